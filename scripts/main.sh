#!/usr/bin/env bash
# The README's main job: install if needed, then replay the bundled example logs.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bootstrap.sh
exec loopspec replay ../shared/reference/real-traces "$@"
