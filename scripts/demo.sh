#!/usr/bin/env bash
# The README's first command: install dependencies, build, and run the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
cmake --preset release >/dev/null
cmake --build --preset release -j"$jobs" --target rapidllm
echo
./build/release/apps/rapidllm/rapidllm predict \
  --hardware configs/hardware/A100_SXM4_80GB.yaml \
  --model configs/examples/gemm_llama2_7b_mlp_up.yaml
