#!/usr/bin/env bash
# CrossHair over the PEP 316 contracts (pre:/post:/raises: docstrings) of the model's pure
# functions: normalization, the inbox write path and claim, and the projection fold.
# Two groups run in parallel (CI has 2 cores); every condition gets a fixed CPU budget, so the
# whole run stays under 4 minutes. Exit status 1 means CrossHair found a counterexample.
# Which conditions are explored fully, and which only up to the budget: docs/contracts.md.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v crosshair >/dev/null || . scripts/bootstrap.sh
plugin=scripts/crosshair_plugin.py
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

check() {  # check NAME SECONDS TARGET...
  local name=$1 seconds=$2
  shift 2
  crosshair check --extra_plugin "$plugin" --analysis_kind=PEP316 --report_all \
    --per_condition_timeout="$seconds" "$@" >"$out/$name" 2>&1
}

# inbox.py: 18 conditions x 6 s; normalize.py + fold.py: 11 x 5 s + 3 x 10 s.
check inbox 6 loopspec.inbox & inbox=$!
( check normalize 5 loopspec.normalize && check fold 10 loopspec.fold ) & rest=$!
status=0
wait "$inbox" || status=1
wait "$rest" || status=1
for name in inbox normalize fold; do
  [ -f "$out/$name" ] && grep -v '^|' "$out/$name" | grep -v '^$' || true
done
if [ "$status" -ne 0 ]; then
  echo "crosshair: counterexample or error (see above)" >&2
fi
exit "$status"
