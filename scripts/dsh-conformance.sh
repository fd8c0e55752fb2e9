#!/usr/bin/env bash
# loopspec against the real implementation (the published dsh packages), compared with
# conformance/dsh/expectations.json: exit 0 only when the run equals the expectations exactly
# (docs/conformance.md included).  --write takes the case lists from this run (findings must match).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bootstrap.sh
# Install the pinned packages once, before the run starts its adapters side by side: each would
# otherwise run npm ci into the same folder at the same time, inside its 30 s hello timeout.
bash scripts/dsh-adapter.sh --install
exec python conformance/dsh_conformance.py "$@"
