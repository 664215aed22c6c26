# Developer entry points; the README's two commands are scripts/demo.sh and scripts/test.sh
# (they need only bash on a fresh Debian 12 machine).
.PHONY: setup demo test build bench clean

setup:
	bash scripts/install-deps.sh

demo:
	bash scripts/demo.sh

test:
	bash scripts/test.sh

build: setup
	cmake --preset release >/dev/null && cmake --build --preset release -j$$(nproc)

bench: build
	./build/release/bench/rapidllm_bench_gemm

clean:
	rm -rf build
