#!/usr/bin/env bash
# Install check (CI): the installed redscan works for a consumer that is not this source tree.
#   1. `cmake --install` of the build in BUILD (default build/, made by scripts/test.sh) into a temporary prefix;
#      examples/hello built against it twice, through find_package(redscan) and through
#      `cc $(pkg-config --cflags --libs redscan)`, and run (exit 0 only when its results are right).
#   2. The same with a static libredscan (BUILD_SHARED_LIBS=OFF, OpenCL only, in build-static/):
#      find_package, and `pkg-config --static`.
#   1b. Where BUILD has libredscan_mpi: its installed header and CMake target, used by a small consumer on one rank.
#   3. `cpack -G DEB` in BUILD; the .deb installed with dpkg (when dpkg is here and we are root), the example built
#      against /usr with pkg-config and run, the package removed again, and nothing of it left behind.
# Runs the example on REDSCAN_BACKEND (default opencl: PoCL on a machine without a GPU). Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
root=$PWD
build=${BUILD:-build}
export REDSCAN_BACKEND=${REDSCAN_BACKEND:-opencl}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/redscan-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "install-check: FAILED: $*"; status=1; }
step() { echo "== install-check: $*"; }

# example <label> <prefix> [static]: build it through find_package and through pkg-config, run both
example() {
  local label=$1 prefix=$2 static=${3:-}
  rm -rf "$tmp/ex-$label"
  if cmake -S examples/hello -B "$tmp/ex-$label" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/ex-$label.log" 2>&1 &&
     cmake --build "$tmp/ex-$label" >>"$tmp/ex-$label.log" 2>&1; then
    "$tmp/ex-$label/hello" || fail "$label: the find_package build of examples/hello did not run right"
  else
    tail -n 20 "$tmp/ex-$label.log"; fail "$label: examples/hello does not build through find_package"
  fi
  local pc=(pkg-config) flags
  [[ -n $static ]] && pc+=(--static)
  if flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/x86_64-linux-gnu/pkgconfig" "${pc[@]}" --cflags --libs redscan); then
    # shellcheck disable=SC2086
    if cc -std=c11 examples/hello/hello.c -o "$tmp/hello-pc-$label" $flags -Wl,-rpath,"$prefix/lib"; then
      "$tmp/hello-pc-$label" || fail "$label: the pkg-config build of examples/hello did not run right"
    else
      fail "$label: cc \$(pkg-config ${pc[*]:1} --cflags --libs redscan) does not build examples/hello"
    fi
  else
    fail "$label: pkg-config finds no redscan under $prefix"
  fi
}

command -v pkg-config >/dev/null 2>&1 || fail "pkg-config is not installed (scripts/install-deps.sh installs it)"

step "cmake --install $build (shared) into a temporary prefix"
if cmake --install "$build" --prefix "$tmp/shared" >"$tmp/install.log" 2>&1; then
  for f in include/redscan.h bin/redscan lib/cmake/redscan/redscanConfig.cmake lib/pkgconfig/redscan.pc; do
    [[ -e $tmp/shared/$f ]] || fail "shared install: $f is missing"
  done
  so=$(ls "$tmp"/shared/lib/libredscan.so.* 2>/dev/null | head -n 1)
  [[ -n $so ]] && objdump -p "$so" | grep -q 'SONAME *libredscan.so.0' || fail "shared install: no libredscan.so.0 soname"
  example shared "$tmp/shared"
  "$tmp/shared/bin/redscan" info >/dev/null 2>&1 || fail "the installed redscan tool does not run"
else
  cat "$tmp/install.log"; fail "cmake --install $build"
fi

# libredscan_mpi, where the build found an MPI: its header and library are installed, and a consumer finds
# redscan::redscan_mpi through find_package and runs it on one rank (a singleton MPI process).
if [[ -e $build/mpi/CMakeFiles ]]; then
  step "libredscan_mpi: the installed header, library and redscan::redscan_mpi"
  [[ -e $tmp/shared/include/redscan_mpi.h ]] || fail "shared install: include/redscan_mpi.h is missing"
  [[ -e $tmp/shared/lib/cmake/redscan/redscanMpiTargets.cmake ]] || fail "shared install: redscanMpiTargets.cmake is missing"
  mkdir -p "$tmp/mpi-consumer"
  cat >"$tmp/mpi-consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(mpi_consumer C)
find_package(redscan CONFIG REQUIRED)
add_executable(consumer consumer.c)
target_link_libraries(consumer PRIVATE redscan::redscan_mpi)
CMAKE
  cat >"$tmp/mpi-consumer/consumer.c" <<'CSRC'
#include <stdio.h>
#include "redscan_mpi.h"
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    redscan_ctx *ctx = NULL;
    int ok = 1;
    if (redscan_create(&ctx, REDSCAN_BACKEND_AUTO) == REDSCAN_OK) {
        redscan_buffer *b = NULL;
        const float x[3] = {1.0f, 2.0f, 4.0f};
        float r = 0.0f;
        const redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, REDSCAN_REDUCE_AUTO, 0};
        ok = redscan_buffer_create(ctx, sizeof x, &b) == REDSCAN_OK &&
             redscan_buffer_write(ctx, b, 0, x, sizeof x) == REDSCAN_OK &&
             redscan_mpi_reduce(ctx, MPI_COMM_WORLD, &d, b, 3, &r) == REDSCAN_OK && r == 7.0f;
        redscan_buffer_destroy(ctx, b);
        redscan_destroy(ctx);
    }
    printf("consumer: redscan_mpi_reduce %s (CUDA-aware MPI: %d)\n", ok ? "ok" : "FAILED", redscan_mpi_cuda_aware());
    MPI_Finalize();
    return ok ? 0 : 1;
}
CSRC
  if cmake -S "$tmp/mpi-consumer" -B "$tmp/mpi-consumer/build" -DCMAKE_PREFIX_PATH="$tmp/shared" \
       >"$tmp/mpi-consumer.log" 2>&1 && cmake --build "$tmp/mpi-consumer/build" >>"$tmp/mpi-consumer.log" 2>&1; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LD_LIBRARY_PATH="$tmp/shared/lib" \
      "$tmp/mpi-consumer/build/consumer" || fail "the libredscan_mpi consumer did not run right"
  else
    tail -n 20 "$tmp/mpi-consumer.log"; fail "a consumer of redscan::redscan_mpi does not build through find_package"
  fi
fi

step "static libredscan (build-static, BUILD_SHARED_LIBS=OFF, OpenCL only)"
if cmake -S . -B build-static -DBUILD_SHARED_LIBS=OFF -DREDSCAN_WITH_CUDA=OFF -DREDSCAN_BUILD_TESTS=OFF \
     >"$tmp/static.log" 2>&1 && cmake --build build-static -j"$(nproc)" >>"$tmp/static.log" 2>&1 &&
   cmake --install build-static --prefix "$tmp/static" >>"$tmp/static.log" 2>&1; then
  [[ -e $tmp/static/lib/libredscan.a ]] || fail "static install: lib/libredscan.a is missing"
  example static "$tmp/static" static
else
  tail -n 30 "$tmp/static.log"; fail "the static build or its install"
fi

step "cpack -G DEB"
if (cd "$build" && cpack -G DEB) >"$tmp/cpack.log" 2>&1; then
  deb=$(ls -t "$build"/redscan_*.deb 2>/dev/null | head -n 1)
  echo "install-check: $(basename "$deb"): $(dpkg-deb -c "$deb" | wc -l) entries"
  if [[ $(id -u) == 0 ]] && command -v dpkg >/dev/null 2>&1; then
    if dpkg -s redscan >/dev/null 2>&1; then
      fail "a redscan package is already installed here; not touching it"
    elif dpkg -i "$deb" >"$tmp/dpkg.log" 2>&1 || { apt-get install -f -y >>"$tmp/dpkg.log" 2>&1 && dpkg -s redscan >/dev/null 2>&1; }; then
      example deb /usr
      redscan --version >/dev/null 2>&1 || fail "the packaged redscan tool does not run"
      files=$(dpkg -L redscan | grep -v '/$' || true)
      dpkg -r redscan >>"$tmp/dpkg.log" 2>&1 || fail "dpkg -r redscan"
      left=0
      for f in $files; do [[ -f $f ]] && { echo "left behind: $f"; left=1; }; done
      [[ $left == 0 ]] || fail "files of the package left after dpkg -r"
    else
      cat "$tmp/dpkg.log"; fail "dpkg -i $deb"
    fi
  else
    echo "install-check: not root or no dpkg: the .deb was built, not installed"
  fi
else
  tail -n 30 "$tmp/cpack.log"; fail "cpack -G DEB"
fi

[[ $status == 0 ]] && echo "== install-check: passed" || echo "== install-check: FAILED"
exit $status
