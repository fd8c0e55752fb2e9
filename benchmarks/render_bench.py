"""Rendering a long log's default window, run by hand (not a test): ``python benchmarks/render_bench.py``.

Writes a synthetic session log of ``--events`` events (default 1,000,000; the checker's generator
:func:`check.synthetic_logs.generate`, in ``tests/``: sends of every kind, edits, cancels, rejections, tool
steps with steering, crashes with repair, and 40 streamed chunks per model step), then times in
one run, each ``--repeat`` times (best of):

* a bare parse of the file: every line through the checker's fast JSON parser (orjson when
  installed), nothing else;
* ``loopspec render``'s work for the default window (the last few turns): the streaming pass
  over the whole log (the lifecycle projection and every message's fate), the window's marks,
  the SVG and the page.

It prints CPU and wall seconds and the ratio of rendering to the bare parse.  With ``--compare
DIR`` (another tree's ``model/`` folder, e.g. an earlier commit's, from ``git archive``) it also
times that tree's render of the same log, each tree in a fresh process (``PYTHONPATH``), the two
alternating ``--repeat`` times, and prints both bests and their ratio.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from loopspec.check.reader import fast_loads
from loopspec.render.build import build
from loopspec.render.page import render_page
from loopspec.render.window import WindowSpec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the log generator is a test fixture

from check.synthetic_logs import generate


def write_log(path: Path, events: int, seed: int) -> None:
    with path.open("wb") as out:
        for event in generate(random.Random(seed).randrange, events, chunks=40):
            out.write(json.dumps(event, separators=(",", ":")).encode() + b"\n")


def bare_parse(path: Path) -> None:
    loads = fast_loads
    with path.open("rb") as stream:
        for line in stream:
            loads(line)


def render(path: Path) -> str:
    window = WindowSpec()
    return render_page(build(path, window), window.describe())


ONE_RENDER = """
import gc, sys, time
from pathlib import Path
from loopspec.render.build import build
from loopspec.render.page import render_page
from loopspec.render.window import WindowSpec
gc.collect()
started = time.process_time()
window = WindowSpec()
render_page(build(Path(sys.argv[1]), window), window.describe())
print(time.process_time() - started)
"""


def compare(path: Path, other: Path, repeat: int) -> None:
    """Best CPU seconds of a render by the tree at ``other`` and by this one, alternating fresh processes."""
    here = Path(__file__).resolve().parents[1] / "model"
    times: dict[Path, list[float]] = {other: [], here: []}
    for _ in range(repeat):
        for tree in times:
            env = dict(os.environ, PYTHONPATH=str(tree))
            done = subprocess.run([sys.executable, "-c", ONE_RENDER, str(path)], env=env, capture_output=True,
                                  text=True, check=True)
            times[tree].append(float(done.stdout))
    theirs, ours = min(times[other]), min(times[here])
    print(f"  render, {other}  {theirs:7.3f} s CPU (runs: {', '.join(f'{t:.3f}' for t in times[other])})")
    print(f"  render, this tree          {ours:7.3f} s CPU (runs: {', '.join(f'{t:.3f}' for t in times[here])})")
    print(f"  ratio other / this tree    {theirs / ours:7.2f}")


def best(work: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The lowest (CPU, wall) seconds of ``repeat`` runs: other processes only ever add time."""
    cpu = wall = float("inf")
    for _ in range(repeat):
        gc.collect()
        started, clock = time.process_time(), time.perf_counter()
        work()
        cpu = min(cpu, time.process_time() - started)
        wall = min(wall, time.perf_counter() - clock)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the log here instead of a temporary directory")
    parser.add_argument("--compare", type=Path, help="another tree's model/ folder to time on the same log")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "long.events.jsonl"
        write_log(path, args.events, seed=1)
        size = path.stat().st_size
        with path.open("rb") as handle:
            events = sum(1 for _ in handle)  # the generator ends a session cleanly, a few events past the count
        print(f"log: {events:,} events, {size / 1e6:.1f} MB; JSON parser: {fast_loads.__module__}")
        parse_cpu, parse_wall = best(lambda: bare_parse(path), args.repeat)
        page = render(path)
        render_cpu, render_wall = best(lambda: render(path), args.repeat)
        timeline = build(path)
        print(f"  bare parse                 {parse_cpu:7.3f} s CPU  {parse_wall:7.3f} s wall")
        print(f"  render default window      {render_cpu:7.3f} s CPU  {render_wall:7.3f} s wall"
              f"  (seq {timeline.first}-{timeline.last}, {len(timeline.events)} marks, page {len(page) / 1e3:.0f} kB)")
        print(f"  ratio render / bare parse  {render_cpu / parse_cpu:7.2f} (CPU) "
              f" {render_wall / parse_wall:7.2f} (wall)")
        if args.compare is not None:
            compare(path, args.compare.resolve(), args.repeat)


if __name__ == "__main__":
    main()
