#!/usr/bin/env bash
# Runs every config fuzz target (fuzz/README.md) for SECONDS each (default 30) over its seed
# corpus, after replaying the saved crash inputs in fuzz/regressions/. Exits non-zero on
# the first crash, leak, sanitizer report or timeout. Expects the fuzz preset to be built
# (scripts/test.sh builds it; or: cmake --preset fuzz && cmake --build --preset fuzz).
#   usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_hardware_yaml fuzz_model_yaml fuzz_units fuzz_overrides fuzz_hf_import)

bin=build/fuzz/fuzz
work=build/fuzz/corpus  # each target's grown corpus: the repo's seed folders stay read-only

# The shipped files each target starts from. libFuzzer reads every folder given after the
# first and writes new inputs only to the first, the target's scratch corpus.
seeds() {
  case $1 in
    fuzz_hardware_yaml) echo configs/hardware tests/data/rapid-llm-reference/hardware ;;
    fuzz_model_yaml) echo configs/models configs/examples tests/data/rapid-llm-reference/model ;;
    fuzz_units) echo fuzz/seeds/units ;;
    fuzz_overrides) echo fuzz/seeds/overrides ;;
    fuzz_hf_import) echo tests/data/hf ;;
    *) echo "fuzz.sh: unknown target $1" >&2; exit 2 ;;
  esac
}

# The shipped YAML files are two-thirds comments (sources, calibration notes). The YAML
# targets start from copies without them in the scratch corpus: the keys are what the loader
# reads, and inputs a third the size run about twice as many times in the same seconds.
stripped_yaml_seeds() {
  local t=$1 dir f
  for dir in $(seeds "$t"); do
    for f in "$dir"/*.yaml; do
      sed -E -e 's/(^|[[:space:]]+)#.*$//' -e '/^[[:space:]]*$/d' "$f" >"$work/$t/seed-${dir//\//-}-$(basename "$f")"
    done
  done
}

# Recording an allocation stack for every malloc is a third of a YAML target's time; a bug
# is still caught without them, and replaying the saved input (build/fuzz/fuzz/<target>
# <file>) prints the full stacks.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}
# -rss_limit_mb and -malloc_limit_mb turn a huge allocation into a reported bug; -timeout
# does the same for one input that runs for more than 10 s.
limits=(-rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10)
for t in "${targets[@]}"; do
  [ -x "$bin/$t" ] || { echo "fuzz.sh: $bin/$t is not built (cmake --build --preset fuzz)" >&2; exit 2; }
  mkdir -p "$work/$t" "$work/artifacts"
  if [ -d "fuzz/regressions/$t" ] && [ -n "$(ls -A "fuzz/regressions/$t")" ]; then
    echo "== $t: replaying fuzz/regressions/$t =="
    if ! "$bin/$t" "${limits[@]}" fuzz/regressions/"$t"/* >"$work/$t.replay.log" 2>&1; then
      tail -n 80 "$work/$t.replay.log"
      echo "fuzz.sh: a saved regression input crashes $t again" >&2
      exit 1
    fi
  fi
  case $t in
    fuzz_hardware_yaml | fuzz_model_yaml) stripped_yaml_seeds "$t"; seed_dirs=() ;;
    *) read -r -a seed_dirs <<<"$(seeds "$t")" ;;
  esac
  echo "== $t: fuzzing for ${seconds}s =="
  log="$work/$t.log"
  if ! "$bin/$t" "${limits[@]}" -max_total_time="$seconds" -print_final_stats=1 \
      -artifact_prefix="$work/artifacts/$t-" "$work/$t" "${seed_dirs[@]}" >"$log" 2>&1; then
    tail -n 80 "$log"
    echo "fuzz.sh: $t found a bug (log $log, input in $work/artifacts/)" >&2
    exit 1
  fi
  grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec)' "$log"
done
