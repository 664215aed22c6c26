#!/usr/bin/env bash
# rapidllm-mpi sweep on 2 MPI ranks (and on 1) prints byte for byte what one rapidllm
# process prints, in every format, with and without --refine (docs/sweep.md).
# Usage: sweep_mpi_test.sh RAPIDLLM RAPIDLLM_MPI   (run from the repository root)
set -euo pipefail
one=$1
mpi=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# OpenMPI's own allocations outlive MPI_Finalize: not this program's leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(sweep --hardware configs/hardware/H100_SXM5_80GB.yaml --model configs/models/llama3.1-8b.yaml --gpus 16
      --set model_param.global_batch_size=64 --grid recompute=selective,full
      --vary tech_param.DRAM.bandwidth=2e12,3e12)
for refine in 0 1; do
  for format in csv table json; do
    "$one" "${args[@]}" --refine "$refine" --format "$format" >"$tmp/one" 2>/dev/null
    for ranks in 1 2; do
      timeout 120 mpirun -np "$ranks" --oversubscribe "$mpi" "${args[@]}" --refine "$refine" --format "$format" \
        >"$tmp/mpi" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
      cmp "$tmp/one" "$tmp/mpi" || { echo "differs: $ranks ranks, $format, refine $refine" >&2; exit 1; }
    done
  done
done
# The ranks are the shards: --shard under MPI is a configuration error (exit 2).
set +e
timeout 60 mpirun -np 2 --oversubscribe "$mpi" "${args[@]}" --shard 0/2 >/dev/null 2>"$tmp/err"
code=$?
set -e
[ "$code" -ne 0 ] && grep -q -- "--shard" "$tmp/err" || { echo "--shard under MPI accepted (exit $code)" >&2; exit 1; }
echo "rapidllm-mpi: identical on 1 and 2 ranks"
