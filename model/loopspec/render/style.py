"""The picture's CSS, inlined in every SVG (so a standalone ``.svg`` looks like the page).

Generic font families only: nothing is fetched.  Colours are chosen to stay apart for the common
colour-vision deficiencies (blue/orange lanes; outcomes also differ by shape: ▲, ✕, arrow).
"""

from __future__ import annotations

SVG_CSS = """
svg.loopspec-timeline { font-family: ui-sans-serif, system-ui, "DejaVu Sans", sans-serif; font-size: 11px;
  background: #fff; }
.title { font-size: 15px; font-weight: 600; fill: #222; }
.subtitle { fill: #444; }
.axis { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 10px; fill: #333; }
.row-name { font-weight: 600; fill: #555; }
.grid { stroke: #eee; stroke-width: 1; }
.ev { stroke: #fff; stroke-width: 1; }
.cat-inbox.ev { fill: #4c78a8; } .cat-lifecycle.ev { fill: #54a24b; } .cat-entry.ev { fill: #b279a2; }
.cat-model.ev { fill: #bab0ac; } .cat-tool.ev { fill: #9d755d; } .cat-restart.ev { fill: #e45756; }
.cat-other.ev { fill: #d8d8d8; } .cat-unreadable.ev { fill: #222; }
.run-count { font-size: 9px; fill: #222; text-anchor: middle; }
.band-turn { fill: #eef2f8; stroke: #8aa1c4; } .band-step { fill: #dde8f3; stroke: #6f8fbd; }
.band-turn.end-completed { fill: #e3f1e2; stroke: #3c8a3f; }
.band-turn.end-max-tokens { fill: #dff1f2; stroke: #00838f; }
.band-turn.end-blocked { fill: #ececec; stroke: #757575; } .band-turn.end-aborted { fill: #f8e1e1; stroke: #c62828; }
.band-turn.end-error { fill: #fbe9d7; stroke: #ef6c00; } .band-turn.end-interrupted { fill: #efe3f4; stroke: #6a1b9a; }
.band-turn.end-open { stroke-dasharray: 4 3; }
.band-label { font-size: 10.5px; fill: #222; }
.dec-enter { fill: #2e7d32; } .dec-reject { fill: #c62828; } .dec-threw { fill: #ef6c00; }
.dec-label { font-size: 10px; fill: #222; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.lane { stroke: #ddd; } .lane-nt { fill: #f4f7fb; } .lane-ns { fill: #fdf6ee; }
.bar-nt { fill: #4c78a8; } .bar-ns { fill: #f58518; }
.bar-label { font-size: 9px; fill: #fff; font-weight: 600; }
.clip { font-size: 9px; fill: #555; }
.cap-claimed { fill: #2e7d32; } .cap-dropped { fill: #fff; stroke: #2e7d32; stroke-width: 1.5; }
.cap-canceled { stroke: #c62828; stroke-width: 2.5; } .cap-pending { fill: #9e9e9e; }
.cap-label { font-size: 9px; fill: #2e7d32; font-weight: 600; }
.transfer { fill: none; stroke: #2e7d32; stroke-width: 1.2; stroke-dasharray: 3 2; }
.splice-insert { stroke: #4c78a8; } .splice-claim { stroke: #2e7d32; } .splice-cancel { stroke: #c62828; }
.splice-replace { stroke: #7b3fa0; } .splice-edit { stroke: #555; }
line.splice-insert, line.splice-claim, line.splice-cancel, line.splice-replace, line.splice-edit {
  stroke-width: 1.5; stroke-opacity: .55; }
.sym { font-size: 10px; text-anchor: middle; font-weight: 700; }
.sym-insert { fill: #4c78a8; } .sym-claim { fill: #2e7d32; } .sym-cancel { fill: #c62828; }
.sym-replace { fill: #7b3fa0; } .sym-edit { fill: #555; }
.notice-dot { stroke: #fff; } .notice-sym { font-size: 9px; fill: #fff; text-anchor: middle; font-weight: 700; }
.n-inserted { fill: #4c78a8; } .n-discarded { fill: #c62828; } .n-claimed { fill: #2e7d32; }
.n-status { fill: #757575; } .n-error { fill: #ef6c00; } .n-prestep { fill: #7b3fa0; } .n-note { fill: #444; }
.n-call { fill: #00838f; } .n-other { fill: #999; }
.notice.dead .notice-dot, .legend-dead .notice-dot { fill-opacity: .35; stroke: #c62828; stroke-dasharray: 2 1; }
.notice-grid { stroke: #e4e4e4; stroke-dasharray: 1 2; }
.crash { stroke: #c62828; stroke-width: 2; stroke-dasharray: 6 3; }
.call { fill: #e0f2f1; stroke: #00838f; } .call-label { font-size: 9.5px; fill: #004d52; }
.highlight { fill: #d32f2f; fill-opacity: .16; stroke: #d32f2f; stroke-width: 2; }
.context { fill: #ffb300; fill-opacity: .16; stroke: #ffb300; }
.highlight-label { font-weight: 700; fill: #b71c1c; }
.cut { fill: #000; fill-opacity: .05; } .cut-label { fill: #555; font-style: italic; }
.legend-title { font-weight: 600; fill: #444; } .legend { fill: #333; font-size: 10.5px; }
"""
