"""CrossHair plugin: symbolic session logs written by a protocol-following agent (scripts/symbolic/logs.py)."""

from symbolic import crosshair_internals, logs

crosshair_internals.install_log_creator(logs.log)
