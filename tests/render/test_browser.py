"""The pages as a person sees them: opened from disk in headless Chromium.

Each page must load with no console message (a page without script only gets one when the
browser rejects its markup, e.g. an SVG attribute), show the expected elements after load
(``--dump-dom``), and screenshot as a picture, not a blank page.  Debian's ``chromium`` is what CI
installs (``.ci/run``); the tests are skipped, saying so, only where no Chromium can be found.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from loopspec.cli import main
from render.drawing import EXAMPLES, RECORDINGS
from render.png import colours

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")
TIMEOUT = 120


def _browser() -> str:
    for name in (os.environ.get("LOOPSPEC_CHROMIUM", ""), *BROWSERS):
        found = shutil.which(name) if name else None
        if found:
            return found
    pytest.skip("no Chromium found (install Debian's `chromium`; .ci/run installs it when apt is available)")


def _run(page: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    command = [_browser(), *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *extra,
               page.resolve().as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def console(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stderr.splitlines() if ":CONSOLE" in line]


def _pages(tmp_path: Path) -> dict[str, Path]:
    """A scenario, a recording with its live stream, and a check page with a violation."""
    pages = {"scenario": tmp_path / "scenario.html", "violation": tmp_path / "violation.html"}
    assert main(["render", str(EXAMPLES / "valid" / "S16-keep-inbox-cancel-parks-queued-work.events.jsonl"),
                 "--out", str(pages["scenario"])]) == 0
    recording = RECORDINGS / "resume_crash_mid_turn.events.jsonl"
    assert recording.is_file(), f"{recording} is missing: the recordings are part of the repository"
    pages["recording"] = tmp_path / "recording.html"
    live = recording.with_name("resume_crash_mid_turn.live.jsonl")
    assert main(["render", str(recording), "--live", str(live), "--out", str(pages["recording"])]) == 0
    invalid = EXAMPLES / "invalid" / "CLAIM-1-claim-takes-two-next-turn.events.jsonl"
    out = tmp_path / "check"
    assert main(["check", "--format", "html", "--out", str(out), str(invalid)]) == 1
    shutil.copy(next(out.glob("001-*.html")), pages["violation"])
    return pages


EXPECTED = {
    "scenario": ('class="event', 'class="bar fate-claimed', 'class="band turn', 'class="decision decision-enter',
                 'class="splice splice-claim', "Legend"),
    "recording": ('class="notice', 'class="crash"', "interrupted", 'class="call-span'),
    "violation": ('class="violation"', "violation-panel", "[CLAIM-1]", "state before:", 'class="context-mark'),
}


@pytest.mark.rule("CLAIM-5", "WORK-2")
def test_pages_load_without_console_errors_and_show_their_elements(tmp_path: Path) -> None:
    for name, page in _pages(tmp_path).items():
        result = _run(page, tmp_path, "--dump-dom")
        assert result.returncode == 0, result.stderr[-2000:]
        assert console(result) == [], f"{name}: console messages"
        dom = result.stdout
        for part in EXPECTED[name]:
            assert part in dom, f"{name}: {part} missing after load"
        assert dom.count('class="event') == page.read_text(encoding="utf-8").count('class="event')


def test_a_screenshot_shows_a_picture(tmp_path: Path) -> None:
    page = _pages(tmp_path)["scenario"]
    shot = tmp_path / "scenario.png"
    result = _run(page, tmp_path, f"--screenshot={shot}", "--window-size=1400,900", "--hide-scrollbars")
    assert result.returncode == 0, result.stderr[-2000:]
    counts = colours(shot.read_bytes())
    total = sum(counts.values())
    background, most = counts.most_common(1)[0]
    assert len(counts) > 50, "a drawn page has many colours (bars, bands, text anti-aliasing)"
    assert most / total < 0.97, f"{100 * most / total:.1f}% of the screenshot is one colour {background.hex()}"
    lane_blue = bytes.fromhex("4c78a8")
    assert any(colour[:3] == lane_blue for colour in counts), "the next-turn bars are on screen"


def test_the_console_check_sees_a_browser_complaint(tmp_path: Path) -> None:
    """The detector itself: markup the browser rejects is reported on the console this test reads."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><body><svg><rect width="-5" height="3"/></svg></body></html>',
                   encoding="utf-8")
    result = _run(bad, tmp_path, "--dump-dom")
    assert any(re.search(r"negative value", line) for line in console(result))
