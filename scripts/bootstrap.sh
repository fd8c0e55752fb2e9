#!/usr/bin/env bash
# Create .venv and install loopspec with its dev extras, once per pyproject.toml change.
# Sourced by the other scripts; safe to run on a fresh machine with only python3.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
stamp="$venv/.installed-$(sha256sum "$root/pyproject.toml" | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -e "$root[dev]"
  touch "$stamp"
fi
export PATH="$venv/bin:$PATH"
