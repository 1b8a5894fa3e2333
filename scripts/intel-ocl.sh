#!/usr/bin/env bash
# Intel's OpenCL CPU runtime (issue 15), installed from PyPI into a cache folder, never into the system:
#   scripts/intel-ocl.sh [install]   install if missing (pip download --no-deps of the pinned wheels + unzip), say where
#   scripts/intel-ocl.sh status      exit 0 if installed (prints where and what), 1 if not; never touches the network
#   scripts/intel-ocl.sh --env       install if missing, then print the line to eval:
#                                      eval "$(scripts/intel-ocl.sh --env)"
#                                    export OCL_ICD_VENDORS=<dir>/vendors LD_LIBRARY_PATH=<dir>/lib:...
#   scripts/intel-ocl.sh clinfo      install if missing and run `clinfo -l` with both runtimes visible
# With that environment the ICD loader sees the system's ICDs (/etc/OpenCL/vendors/*.icd, PoCL's among them) and
# Intel's; without it nothing changes (the system's ICDs only). REDSCAN_OPENCL_DEVICE=intel picks Intel's device
# (README, "Environment"); scripts/test.sh runs the opencl tests on it as its third pass.
#
# Folder: $REDSCAN_INTEL_OCL_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/redscan-intel-ocl (beside, not inside, the
# program cache's ~/.cache/redscan, which docs/CACHE.md says may always be removed). It holds lib/ (the three
# wheels' lib folders in one, without the wheel's own libOpenCL.so, so that the system's ICD loader stays the one
# loaded, and with the wheels' duplicated .so copies turned into links), vendors/ (links to the system's .icd files
# and intel-cpu.icd naming lib/libintelocl.so by its full path), licenses/ and INSTALLED (the pinned versions). A
# folder whose INSTALLED names other versions is installed again. About 280 MB to download, 495 MB installed.
# Needs python3 with pip (python3-pip is installed through apt-get only when pip is missing) and unzip.
set -euo pipefail

# The pinned wheels (manylinux_2_28_x86_64). intel-opencl-rt declares tbb==2023.* and intel-cmplr-lic-rt (a
# license-only wheel); libintelocl.so needs libimf, libsvml, libirng and libintlc, which intel-cmplr-lib-rt carries.
PINS=(intel-opencl-rt==2026.2.0 tbb==2023.2.0 intel-cmplr-lib-rt==2026.2.0)

dir=${REDSCAN_INTEL_OCL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/redscan-intel-ocl}
mode=${1:-install}

die() { echo "intel-ocl: $*" >&2; exit 1; }
say() { echo "intel-ocl: $*" >&2; }

installed() {
  [[ -f "$dir/INSTALLED" && "$(head -n1 "$dir/INSTALLED")" == "${PINS[*]}" && -f "$dir/lib/libintelocl.so" &&
     -f "$dir/vendors/intel-cpu.icd" ]]
}

# vendors/: the system's ICDs (links, so an update of the system's PoCL is followed) and Intel's. Rewritten only
# when it differs from what it should be, so that a run using it is never disturbed by a second call.
write_vendors() {
  local want=() have=() f
  for f in /etc/OpenCL/vendors/*.icd; do
    [[ -e "$f" ]] || continue
    grep -q libintelocl "$f" 2>/dev/null && continue # an Intel CPU runtime of the system's own: ours replaces it
    want+=("$(basename "$f") -> $f")
  done
  want+=("intel-cpu.icd: $dir/lib/libintelocl.so")
  if [[ -d "$dir/vendors" ]]; then
    for f in "$dir/vendors"/*; do
      [[ -e "$f" || -L "$f" ]] || continue
      if [[ -L "$f" ]]; then have+=("$(basename "$f") -> $(readlink "$f")")
      else have+=("$(basename "$f"): $(cat "$f")"); fi
    done
  fi
  [[ "$(printf '%s\n' "${have[@]}" | sort)" == "$(printf '%s\n' "${want[@]}" | sort)" ]] && return 0
  local tmp="$dir/vendors.new.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  for f in /etc/OpenCL/vendors/*.icd; do
    [[ -e "$f" ]] || continue
    grep -q libintelocl "$f" 2>/dev/null && continue
    ln -s "$f" "$tmp/$(basename "$f")"
  done
  echo "$dir/lib/libintelocl.so" > "$tmp/intel-cpu.icd"
  rm -rf "$dir/vendors"
  mv "$tmp" "$dir/vendors"
  [[ -e /etc/OpenCL/vendors/pocl.icd ]] || say "note: no /etc/OpenCL/vendors/pocl.icd (PoCL not installed): vendors/ holds Intel's ICD and the system's other ICDs only"
}

ensure_pip() {
  python3 -m pip --version >/dev/null 2>&1 && return 0
  command -v apt-get >/dev/null 2>&1 || die "cannot download: python3 -m pip is missing and this is not a Debian/Ubuntu system (install pip for python3)"
  local sudo=()
  if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "cannot download: python3 -m pip is missing; not root and no sudo (apt-get install python3-pip as root)"
    sudo=(sudo)
  fi
  say "python3 -m pip is missing: apt-get install python3-pip"
  local candidate
  candidate=$(apt-cache policy python3-pip 2>/dev/null | awk '/Candidate:/ {print $2}')
  if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get update -q >&2 || die "cannot install python3-pip: apt-get update failed"
  fi
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends python3-pip >&2 ||
    die "cannot install python3-pip with apt-get"
  python3 -m pip --version >/dev/null 2>&1 || die "python3-pip installed, but python3 -m pip still does not run"
}

install() {
  if installed; then
    write_vendors
    return 0
  fi
  command -v python3 >/dev/null 2>&1 || die "cannot download: python3 is missing"
  command -v unzip >/dev/null 2>&1 || die "cannot unpack: unzip is missing (apt-get install unzip)"
  ensure_pip
  mkdir -p "$dir"
  t0=$SECONDS tmp="$dir/.new.$$" # globals: the EXIT trap removes $tmp
  rm -rf "$tmp"
  mkdir -p "$tmp/wheels" "$tmp/lib" "$tmp/licenses"
  trap 'rm -rf "$tmp"' EXIT
  say "downloading ${PINS[*]} from PyPI (about 280 MB) into $dir"
  if ! python3 -m pip download --no-deps --only-binary=:all: --no-cache-dir --disable-pip-version-check --progress-bar off \
       --dest "$tmp/wheels" "${PINS[@]}" > "$tmp/pip.log" 2>&1; then
    local why
    why=$(grep -E 'ERROR|error|Error' "$tmp/pip.log" | tail -n1)
    cp "$tmp/pip.log" "$dir/pip-download.log" 2>/dev/null || true
    local hint=""
    grep -q 'from versions: none' "$tmp/pip.log" && hint=" - PyPI unreachable (no network?) or the version is gone"
    die "cannot download ${PINS[*]} with pip: ${why:-$(tail -n1 "$tmp/pip.log")}$hint (log: $dir/pip-download.log)"
  fi
  local w n=0
  for w in "$tmp/wheels"/*.whl; do
    [[ -e "$w" ]] || continue
    n=$((n + 1))
    # the wheels keep their libraries under <name>.data/data/lib/ (flat); their licenses in the .dist-info
    unzip -q -o -j "$w" '*.data/data/lib/*' -d "$tmp/lib" || die "cannot unpack $(basename "$w")"
    mkdir -p "$tmp/licenses/$(basename "$w" .whl)"
    unzip -q -o -j "$w" '*.dist-info/*LICENSE*' -d "$tmp/licenses/$(basename "$w" .whl)" 2>/dev/null || true
  done
  [[ $n == "${#PINS[@]}" ]] || die "pip downloaded $n wheels, expected ${#PINS[@]} (${PINS[*]})"
  [[ -f "$tmp/lib/libintelocl.so" ]] || die "the wheels hold no libintelocl.so (intel-opencl-rt changed its layout?)"
  # The wheel's own ICD loader would replace the system's (ocl-icd) for any process run with LD_LIBRARY_PATH=lib.
  rm -f "$tmp/lib"/libOpenCL.so* "$tmp/lib"/*-gdb.py
  # Zip files hold no links: libX.so and libX.so.<version> arrive as two full copies (300 MB for two of them).
  local f g
  for f in "$tmp/lib"/*.so "$tmp/lib"/*.so.*; do
    [[ -f "$f" && ! -L "$f" ]] || continue
    for g in "$f".*; do
      if [[ -f "$g" && ! -L "$g" ]] && cmp -s "$f" "$g"; then
        ln -sf "$(basename "$g")" "$f"
        break
      fi
    done
  done
  rm -rf "$tmp/wheels" "$dir/lib" "$dir/licenses" "$dir/vendors"
  mv "$tmp/lib" "$dir/lib"
  mv "$tmp/licenses" "$dir/licenses"
  write_vendors
  { echo "${PINS[*]}"; echo "installed $(date -u +%Y-%m-%dT%H:%M:%SZ) in $((SECONDS - t0)) s"; } > "$dir/INSTALLED"
  rm -rf "$tmp"
  trap - EXIT
  say "installed in $dir ($((SECONDS - t0)) s)"
}

env_line() {
  printf 'export OCL_ICD_VENDORS=%q LD_LIBRARY_PATH=%q\n' "$dir/vendors" "$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

case "$mode" in
  install)
    install
    installed || die "installation in $dir is incomplete"
    say "ready in $dir (${PINS[*]}); eval \"\$(scripts/intel-ocl.sh --env)\" makes it visible next to the system's ICDs"
    ;;
  status)
    if installed; then
      echo "intel-ocl: installed in $dir (${PINS[*]})"
    else
      if [[ -f "$dir/INSTALLED" ]]; then
        echo "intel-ocl: not installed in $dir (it holds $(head -n1 "$dir/INSTALLED"); wanted ${PINS[*]})"
      else
        echo "intel-ocl: not installed in $dir"
      fi
      exit 1
    fi
    ;;
  --env | env)
    install
    env_line
    ;;
  clinfo)
    install
    eval "$(env_line)"
    clinfo -l
    ;;
  -h | --help | help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    ;;
  *)
    die "unknown mode '$mode' (install, status, --env, clinfo)"
    ;;
esac
