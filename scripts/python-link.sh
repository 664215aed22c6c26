#!/usr/bin/env bash
# Makes the Python package built in BUILD_DIR (default build/release) importable from any
# shell: a rapidllm.pth file naming BUILD_DIR/python in the site-packages folder of Debian's
# /usr/bin/python3 and, when `python3` on PATH is another interpreter of the same ABI (a
# pyenv one), in its folder too. Idempotent; run by scripts/demo.sh and scripts/test.sh
# after the release build. `cmake --install` is the other way (README, "Python").
set -euo pipefail
cd "$(dirname "$0")/.."
pkg="$(pwd)/${1:-build/release}/python"
if [ ! -f "$pkg/rapidllm/__init__.py" ]; then
  echo "rapidllm: no Python package in $pkg; build it first (cmake --build --preset release)" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi

# The extension's ABI tag, from its file name (_core.cpython-311-x86_64-linux-gnu.so).
abi=$(cd "$pkg/rapidllm" && ls _core.*.so | sed -e 's/^_core\.//' -e 's/\.so$//')
interpreters=(/usr/bin/python3)
onpath=$(command -v python3 || true)
if [ -n "$onpath" ] && [ "$(readlink -f "$onpath")" != "$(readlink -f /usr/bin/python3)" ]; then
  interpreters+=("$onpath")
fi
for py in "${interpreters[@]}"; do
  [ -x "$py" ] || continue
  soabi=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("SOABI"))')
  if [ "$soabi" != "$abi" ]; then
    echo "rapidllm: $py is $soabi, the module was built for $abi: not linked there" >&2
    continue
  fi
  site=$("$py" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
  pth="$site/rapidllm.pth"
  if [ -f "$pth" ] && [ "$(cat "$pth")" = "$pkg" ]; then continue; fi
  if ! { $SUDO mkdir -p "$site" && echo "$pkg" | $SUDO tee "$pth" >/dev/null; } 2>/dev/null; then
    echo "rapidllm: cannot write $pth; run as root, or use PYTHONPATH=$pkg" >&2
    exit 1
  fi
  echo "rapidllm: $py imports rapidllm from $pkg ($pth)" >&2
done
