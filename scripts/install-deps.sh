#!/usr/bin/env bash
# Installs rapidllm's build and test dependencies from Debian 12 packages, only those that
# are missing (idempotent: a second run installs nothing and needs no network).
set -euo pipefail

packages=(
  g++ cmake ninja-build make pkgconf
  libtcmalloc-minimal4  # the executables' allocator (cmake/fast_malloc.cmake)
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libns3-dev libgsl-dev  # ns-3 reference backend (tools/ns3); ns-3's pkg-config files need GSL
  python3-matplotlib  # validation plots (scripts/plot_validation.py, make validate)
  protobuf-compiler libprotobuf-dev  # Chakra export (proto/chakra, src/io/chakra_export)
  libopenmpi-dev openmpi-bin  # rapidllm-mpi: the sweep split over MPI ranks and nodes
  clang libclang-rt-14-dev  # the fuzz preset (fuzz/): clang++ with libFuzzer and its sanitizer runtimes
  pybind11-dev python3-dev python3-pytest python3-numpy python3-pandas  # the Python module (python/; plots: matplotlib above)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "rapidllm: installing Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
  else
    echo "rapidllm: run this as root (or install sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
${SUDO:-} apt-get update -qq
DEBIAN_FRONTEND=noninteractive ${SUDO:-} apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
