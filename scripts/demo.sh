#!/usr/bin/env bash
# The README's first command: install dependencies, build, and run the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
bash scripts/configure.sh release
cmake --build --preset release -j"$jobs" --target rapidllm rapidllm_python
bash scripts/python-link.sh  # `import rapidllm` in /usr/bin/python3 (README, "Python")
echo
# Llama-2-7B training on one DGX A100 node: 8-way data parallel with a distributed
# optimizer (ZeRO-1), micro-batches of one 4096-token sequence, global batch 128.
./build/release/apps/rapidllm/rapidllm predict \
  --hardware configs/hardware/A100_SXM4_80GB.yaml \
  --model configs/models/llama2-7b.yaml \
  --set parallelism.train.dp=8 --set parallelism.micro_batch_size=1 --set sw_param.dp_zero_stage=1
