#!/usr/bin/env bash
# The README's main job: install if needed, then check the bundled example logs against their
# expected verdicts, check the recordings of the real implementation against the spec, and drive
# the model with every recorded call to reproduce each recording exactly (all must pass).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bootstrap.sh
loopspec check --quiet --manifest examples/logs/manifest.json
loopspec check examples/recordings "$@"
loopspec reproduce examples/recordings
