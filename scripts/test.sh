#!/usr/bin/env bash
# The README's test command: install if needed, then run the whole suite.
# HYPOTHESIS_PROFILE picks dev (default here), ci or thorough.  The tests run on every core
# (pytest-xdist, -n auto); pass -n 0 to run them in this process (for --pdb, say).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bootstrap.sh
exec python -m pytest -q -n auto --dist loadgroup "$@"
