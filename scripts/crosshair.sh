#!/usr/bin/env bash
# CrossHair over the PEP 316 contracts (pre:/post:/raises: docstrings) of the model's pure
# functions: normalization, the inbox write path and claim, the projection fold, the listener
# chain, consumed work and message fates, the lifecycle projection and crash repair.
# Two groups run in parallel (CI has 2 cores), 124 s and 147 s of CPU: every condition gets a
# fixed CPU budget (per_condition_timeout counts CPU seconds, not wall seconds), so the whole run
# takes about 2.5 minutes on 2 idle cores, and stays under 4.5 minutes when another job takes
# most of one core.  Exit status 1 means CrossHair found a counterexample.
# Which conditions are explored fully, and which only up to the budget: docs/contracts.md.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v crosshair >/dev/null || . scripts/bootstrap.sh
# The plugins build symbolic values from ordinary modules under scripts/symbolic/.
plugins=(scripts/crosshair_plugins/values_and_listeners.py scripts/crosshair_plugins/logs.py)
export PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

check() {  # check NAME SECONDS TARGET
  crosshair check --extra_plugin "${plugins[@]}" --analysis_kind=PEP316 --report_all \
    --per_condition_timeout="$2" "$3" >"$out/$1" 2>&1
}

group() {  # group NAME SECONDS TARGET [NAME SECONDS TARGET]...: every check runs, even after a failure
  local rc=0
  while [ $# -gt 0 ]; do
    check "$1" "$2" "$3" || rc=1
    shift 3
  done
  return "$rc"
}

# Group 1 (124 s of CPU): inbox.py 18 conditions x 3 s; consumed_work.py 14 x 5 s.
group inbox 3 loopspec.inbox.operations consumed_work 5 loopspec.loop.consumed_work & first=$!
# Group 2 (147 s): normalize.py 11 x 3 s; fold.py 3 x 4 s; listeners.py 9 x 4 s;
# lifecycle_projection.py 7 x 2 s (apply) + 4 x 4 s (project); repair.py 9 x 4 s.
group normalize 3 loopspec.inbox.normalize fold 4 loopspec.inbox.fold listeners 4 loopspec.loop.pre_step \
  lifecycle_apply 2 loopspec.loop.projection.apply lifecycle_project 4 loopspec.loop.projection.project \
  repair 4 loopspec.loop.repair & second=$!
status=0
wait "$first" || status=1
wait "$second" || status=1
for name in inbox consumed_work normalize fold listeners lifecycle_apply lifecycle_project repair; do
  [ -f "$out/$name" ] && grep -v '^|' "$out/$name" | grep -v '^$' || true
done
if [ "$status" -ne 0 ]; then
  echo "crosshair: counterexample or error (see above)" >&2
fi
exit "$status"
