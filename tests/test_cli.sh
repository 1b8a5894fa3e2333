#!/bin/sh
# Runs tests/test_cli.py with a python3 that has numpy (the first python3 on PATH may be another one, e.g. pyenv's,
# without it); exit 77 (skipped, CTest) with the reason when none has.
here=$(dirname "$0")
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import numpy' >/dev/null 2>&1; then
    exec "$py" "$here/test_cli.py" "$@"
  fi
done
echo "test_cli: skipped: no python3 with numpy here (Debian: python3-numpy; scripts/install-deps.sh installs it)"
exit 77
