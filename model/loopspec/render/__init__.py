"""Pictures of sessions: a log (and its live recording) as a timeline, drawn as self-contained SVG/HTML.

Layer: above :mod:`loopspec.check` — it may import ``check``, ``loop``, ``inbox``, ``log``,
``data`` and ``rules``; the command line (``loopspec render``, ``loopspec check --format html``)
and the docs generator (the scenario pictures) import it.

* :mod:`.timeline` — the picture as frozen values; :mod:`.build` computes it with the model's folds
  (:mod:`.scan`: lifecycle projection, inbox fold and per-message fates — :mod:`.fates`, the twin of
  ``message_fates`` over parsed JSON — in one streaming pass;
  :mod:`.window`, :mod:`.marks`, :mod:`.lanes`, :mod:`.decisions`, :mod:`.live`);
* :mod:`.layout`, :mod:`.frame` — where things go; :mod:`.svg` with ``draw_*``, :mod:`.legend`,
  :mod:`.style` — the SVG text; :mod:`.page` — the HTML page;
* :mod:`.violation` — ``check --format html``; :mod:`.scenarios` — the scenario pictures in ``docs/``.
"""

from loopspec.render.build import build
from loopspec.render.page import render_page
from loopspec.render.svg import render_svg
from loopspec.render.window import WindowSpec

__all__ = ["WindowSpec", "build", "render_page", "render_svg"]
