#!/usr/bin/env bash
# Install the system packages redscan needs to build and test, only those that are missing (Debian/Ubuntu):
#   cmake (>= 3.20) gcc make libc6-dev pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo pkg-config python3-numpy
#   openmpi-bin libopenmpi-dev (libredscan_mpi and its tests; docs/DISTRIBUTED.md)
# Uses sudo only when not root. Runs `apt-get update` only when a package has no install candidate or the
# first install attempt fails. Set REDSCAN_SKIP_DEPS=1 to skip this step entirely.
set -euo pipefail

if [[ "${REDSCAN_SKIP_DEPS:-0}" == 1 ]]; then
  echo "install-deps: REDSCAN_SKIP_DEPS=1, not checking system packages"
  exit 0
fi

missing=()
have_dpkg=0
command -v dpkg >/dev/null 2>&1 && have_dpkg=1

need_pkg() {  # a package without a command to test: ask dpkg
  if [[ $have_dpkg == 1 ]]; then
    dpkg -s "$1" >/dev/null 2>&1 || missing+=("$1")
  fi
}
need_cmd() {  # a command, else its package
  command -v "$1" >/dev/null 2>&1 || missing+=("$2")
}

# cmake: any cmake >= 3.20 on PATH will do (a pip or Kitware one included)
if command -v cmake >/dev/null 2>&1; then
  cmake_version=$(cmake --version | sed -n '1s/[^0-9]*\([0-9][0-9.]*\).*/\1/p')
  if [[ "$(printf '%s\n' 3.20 "$cmake_version" | sort -V | head -n1)" != 3.20 ]]; then
    echo "install-deps: cmake $cmake_version is older than 3.20"
    missing+=(cmake)
  fi
else
  missing+=(cmake)
fi
need_cmd gcc gcc
need_cmd make make
need_cmd clinfo clinfo
need_cmd pkg-config pkg-config
need_cmd mpirun openmpi-bin # libredscan_mpi's tests: mpirun -np 1..4 (docs/DISTRIBUTED.md)
if [[ $have_dpkg == 1 ]]; then
  need_pkg libc6-dev
  need_pkg pocl-opencl-icd
  need_pkg ocl-icd-opencl-dev
  need_pkg opencl-headers
  need_pkg python3-numpy # tests/test_cli.py: .npy files written by numpy, and numpy's results as the reference
  need_pkg libopenmpi-dev # mpi.h and mpicc: libredscan_mpi is built when CMake finds an MPI
else
  [[ -e /usr/include/CL/cl.h ]] || missing+=(opencl-headers)
fi

if [[ ${#missing[@]} == 0 ]]; then
  echo "install-deps: all system packages present"
  exit 0
fi

if [[ $have_dpkg == 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: missing: ${missing[*]}" >&2
  echo "install-deps: this is not a Debian/Ubuntu system; install the equivalents by hand" \
       "(or set REDSCAN_SKIP_DEPS=1 if they are installed under other names)" >&2
  exit 1
fi

SUDO=()
if [[ $(id -u) != 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "install-deps: missing ${missing[*]}; not root and no sudo: install them as root" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive

updated=0
apt_update() {
  echo "install-deps: apt-get update"
  "${SUDO[@]}" apt-get update -q
  updated=1
}
# Update the package lists first only when some package has no install candidate (e.g. empty lists).
for p in "${missing[@]}"; do
  candidate=$(apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ {print $2}')
  if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
    apt_update
    break
  fi
done

echo "install-deps: apt-get install ${missing[*]}"
install() { "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; }
if ! install; then
  if [[ $updated == 1 ]]; then
    exit 1
  fi
  apt_update   # stale lists: the archive moved on
  install
fi
