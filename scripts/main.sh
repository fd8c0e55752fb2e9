#!/usr/bin/env bash
# The README's main job: install if needed, then check the bundled example logs against their
# expected verdicts and the real traces against the spec (both must pass).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bootstrap.sh
loopspec check --quiet --manifest examples/logs/manifest.json
loopspec check ../shared/reference/real-traces "$@"
