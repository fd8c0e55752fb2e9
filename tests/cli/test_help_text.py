"""``--help`` as a new user reads it, in a narrow terminal: plain words, whole words, each default once."""

from __future__ import annotations

import re

import pytest

from conftest import run_loopspec

COMMANDS = [(), ("check",), ("replay",), ("docs",), ("reproduce",), ("render",), ("explore",), ("vectors",),
            ("vectors", "generate"), ("vectors", "run"), ("vectors", "pack"), ("adapter",), ("drive",)]
# Words argparse's wrapping used to cut (at a hyphen, or a long comma-separated list).
WHOLE = {("vectors",): ("loopspec-vectors-VERSION.tar.gz",), ("vectors", "pack"): ("loopspec-vectors-VERSION.tar.gz",),
         ("explore",): ("wrong-answers",)}


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "loopspec")
def test_help_is_plain_text_in_whole_words_with_each_default_once(command: tuple[str, ...]) -> None:
    done = run_loopspec(*command, "--help", columns=72)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "`" not in text, "markup in the help"
    for line in text.splitlines():
        assert line.count("(default") <= 1, line
    assert "(default explore" not in text
    assert "(default: [])" not in text
    for line in text.splitlines():  # a line ends at a whole word: never after a hyphen inside one
        assert not re.search(r"[A-Za-z0-9]-$", line), line
    for word in WHOLE.get(command, ()):
        assert word in text, f"{word} is broken across lines"
