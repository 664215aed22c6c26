#!/usr/bin/env bash
# The README's second command (and CI's): install dependencies, then build and run the
# whole test suite twice: optimised, and under AddressSanitizer + UndefinedBehaviorSanitizer;
# then fuzz the config loaders for a short, bounded time (scripts/fuzz.sh, fuzz/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
for preset in release asan; do
  echo "== $preset build =="
  bash scripts/configure.sh "$preset"
  cmake --build --preset "$preset" -j"$jobs"
  if [ "$preset" = release ]; then bash scripts/python-link.sh; fi  # `import rapidllm` from any shell
  ctest --preset "$preset" -j"$jobs"
done
echo "== fuzz build =="
bash scripts/configure.sh fuzz
cmake --build --preset fuzz -j"$jobs"
bash scripts/fuzz.sh 12
