# Developer entry points; the README's two commands are scripts/demo.sh and scripts/test.sh
# (they need only bash on a fresh Debian 12 machine).
.PHONY: setup demo test build bench validate clean

setup:
	bash scripts/install-deps.sh

demo:
	bash scripts/demo.sh

test:
	bash scripts/test.sh

build: setup
	bash scripts/configure.sh release && cmake --build --preset release -j$$(nproc)

bench: build
	./build/release/bench/rapidllm_bench_gemm

# Accuracy against the published measurements (docs/validation.md): the JSON report, the
# per-source summary on stdout, and the plots. Debian's python3-matplotlib belongs to the
# system interpreter, which need not be the first python3 on PATH.
PYTHON ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
validate: build
	./build/release/apps/rapidllm/rapidllm validate --format json -o validation/report.json
	./build/release/apps/rapidllm/rapidllm validate
	$(PYTHON) scripts/plot_validation.py validation/report.json --out validation/plots

clean:
	rm -rf build
