#!/usr/bin/env bash
# Rewrites tests/golden/<case>/expected.json from the release build's CLI (see
# tests/golden/README.md). Only for deliberate changes of the numbers, in their own commit.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=build/release/apps/rapidllm/rapidllm
[ -x "$cli" ] || { echo "build the release preset first (cmake --build --preset release)" >&2; exit 2; }
cases=("$@")
[ ${#cases[@]} -gt 0 ] || mapfile -t cases < <(find tests/golden -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
for c in "${cases[@]}"; do
  dir=tests/golden/$c
  [ -f "$dir/cmd" ] || { echo "no $dir/cmd" >&2; exit 2; }
  set +e
  # shellcheck disable=SC2046 # the arguments are split as a shell would split the line
  eval "$cli $(cat "$dir/cmd")" >"$dir/.out" 2>"$dir/.err" </dev/null
  code=$?
  set -e
  if [ $code -eq 0 ]; then
    mv "$dir/.out" "$dir/expected.json"
  else
    python3 -c 'import json,sys; print(json.dumps({"exit_code": int(sys.argv[1]), "stderr": open(sys.argv[2]).read()}, indent=2))' \
      "$code" "$dir/.err" >"$dir/expected.json"
    rm -f "$dir/.out"
  fi
  rm -f "$dir/.err"
  echo "$c: exit $code"
done
