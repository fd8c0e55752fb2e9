#!/usr/bin/env bash
# The real implementation behind the adapter protocol: the published dsh agent loop, pinned exactly
# by conformance/dsh/package-lock.json (with the Node it needs, >= 22.15), installed on first use
# into conformance/dsh/node_modules (ignored), then `loopspec-adapter/2` on stdin/stdout.
#   loopspec vectors run SUITE -- bash scripts/dsh-adapter.sh
#   bash scripts/dsh-adapter.sh --record OUT_DIR SCENARIO.json...   (the recorder: recorder.mjs)
#   bash scripts/dsh-adapter.sh --install   (install only: before several adapters start at once)
# Needs npm and the npm registry the first time; nothing is written outside conformance/dsh.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../conformance/dsh" && pwd)"
stamp="$here/node_modules/.installed-$(sha256sum "$here/package-lock.json" | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  command -v npm >/dev/null 2>&1 || { echo "dsh-adapter: npm is needed to install the pinned dsh packages" >&2; exit 2; }
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error >&2)
  touch "$stamp"
fi
[ "${1:-}" = "--install" ] && exit 0
if [ "${1:-}" = "--record" ]; then
  shift
  exec "$here/node_modules/.bin/node" "$here/recorder.mjs" "$@"
fi
exec "$here/node_modules/.bin/node" "$here/adapter.mjs" "$@"
