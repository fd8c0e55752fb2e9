#!/usr/bin/env bash
# loopspec against the real implementation (the published dsh packages), compared with
# conformance/dsh/expectations.json: exit 0 only when the run equals the expectations exactly
# (docs/conformance.md included).  --write takes the case lists from this run (findings must match).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bootstrap.sh
exec python conformance/dsh_conformance.py "$@"
