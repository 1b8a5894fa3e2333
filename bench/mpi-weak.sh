#!/usr/bin/env bash
# Weak scaling of libredscan_mpi: bench/mpi_weak (built in BUILD, default build/) on 1, 2 and 4 ranks with the same
# n per rank. Usage: bench/mpi-weak.sh [n_per_rank (default 4194304)] [runs (default 5)]
#   NPS="1 2 4 8" to change the rank counts; REDSCAN_BACKEND picks the backend as everywhere.
# Prints one markdown table per rank count (docs/PERFORMANCE.md "Distributed (MPI), weak scaling").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${BUILD:-build}
exe=$build/mpi/mpi_weak
[[ -x $exe ]] || { echo "mpi-weak: $exe not built (configure with an MPI installed: scripts/install-deps.sh)"; exit 1; }
flags=()
mpirun --version 2>/dev/null | grep -q "Open MPI" && flags+=(--oversubscribe)
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for np in ${NPS:-1 2 4}; do
  mpirun -np "$np" "${flags[@]}" "$exe" "${1:-4194304}" "${2:-5}"
done
