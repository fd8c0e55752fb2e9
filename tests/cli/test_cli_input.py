"""Input as a CI job meets it, for ``check`` and ``replay`` alike.

``-`` is standard input (plain or gzip); ``.gz`` logs are read everywhere; an input set with no
session log in it (an empty folder, a folder of other files, an unreadable folder, a missing
path, a symlink loop) exits 2 with a message saying so, never a vacuous 0; a file in which
nothing is an event is not a session log (exit 2), while a session log with a broken line is a
LOG-1 violation (exit 1).
"""

from __future__ import annotations

import gzip
import io
import os
import sys
from pathlib import Path

import pytest

from conftest import REAL_TRACES, REPO
from loopspec.check import reader
from loopspec.cli import main

LOG = REAL_TRACES / "inbox_replace.events.jsonl"
REPLAYED = '{"next-turn": ["t1", "t2b", "t3"], "next-step": ["s1b"]}'
INVALID = REPO / "examples" / "logs" / "invalid" / "TURN-5-blocked-turn-chains.events.jsonl"
COMMANDS = ("check", "replay")


class _Stdin:
    """Stands in for ``sys.stdin``: only ``.buffer`` is read."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_dash_reads_standard_input(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                   command: str, compress: bool) -> None:
    data = LOG.read_bytes()
    monkeypatch.setattr(sys, "stdin", _Stdin(gzip.compress(data) if compress else data))
    code, out, _ = _run(capsys, command, "-")
    assert code == 0
    assert "<stdin>" in out
    if command == "replay":
        assert f"<stdin>: {REPLAYED}" in out
    else:
        assert "<stdin>: VALID (7 events)" in out


def test_dash_reports_violations_under_its_name(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", _Stdin(INVALID.read_bytes()))
    code, out, _ = _run(capsys, "check", "-")
    assert code == 1
    assert "[TURN-5] <stdin> line 6" in out
    assert "/tmp" not in out
    assert "loopspec-stdin" not in out


def test_dash_is_read_once_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "-", "-"]) == 2
    assert "once only" in capsys.readouterr().err
    assert main(["replay", "-", "-"]) == 2


@pytest.mark.parametrize("command", COMMANDS)
def test_gz_logs_are_read(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    gz = tmp_path / "inbox_replace.events.jsonl.gz"
    gz.write_bytes(gzip.compress(LOG.read_bytes()))
    code, out, err = _run(capsys, command, str(gz))
    assert (code, err) == (0, "")
    assert (f"{gz}: {REPLAYED}" if command == "replay" else f"{gz}: VALID") in out
    code, out, _ = _run(capsys, command, str(tmp_path))  # found in a folder, too
    assert code == 0
    assert str(gz) in out


@pytest.mark.parametrize("command", COMMANDS)
def test_corrupt_gz_is_unusable(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    bad = tmp_path / "x.events.jsonl.gz"
    bad.write_bytes(b"not gzip at all")
    code, out, err = _run(capsys, command, str(bad))
    assert code == 2
    assert "Traceback" not in out + err
    truncated = tmp_path / "y.events.jsonl.gz"
    foreign = b"".join(b'{"type":"x/note","seq":%d,"time":%d,"data":{}}\n' % (i, i) for i in range(7, 400))
    truncated.write_bytes(gzip.compress(LOG.read_bytes() + foreign)[:-30])
    assert main([command, str(truncated)]) == 2


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_folder_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, _, err = _run(capsys, command, str(tmp_path))
    assert code == 2
    assert f"{tmp_path}: no session log in this folder" in err


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_without_logs_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    (tmp_path / "x.live.jsonl").write_bytes((REAL_TRACES / "inbox_replace.live.jsonl").read_bytes())
    (tmp_path / "x.final.json").write_text("{}\n", encoding="utf-8")
    code, _, err = _run(capsys, command, str(tmp_path))
    assert code == 2
    assert "no session log in this folder" in err


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_without_logs_beside_good_logs_still_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              command: str) -> None:
    code, out, err = _run(capsys, command, str(LOG), str(tmp_path))
    assert code == 2
    assert "no session log in this folder" in err
    assert str(LOG) in out  # the good log is still judged


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_path_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, _, err = _run(capsys, command, str(tmp_path / "nowhere.events.jsonl"))
    assert code == 2
    assert "no such file or directory" in err


@pytest.mark.parametrize("command", COMMANDS)
def test_a_symlink_loop_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    loop = tmp_path / "a.events.jsonl"
    os.symlink(tmp_path / "b.events.jsonl", loop)
    os.symlink(loop, tmp_path / "b.events.jsonl")
    code, _, err = _run(capsys, command, str(loop))
    assert code == 2
    assert f"{loop}: a symlink loop" in err
    code, _, err = _run(capsys, command, str(tmp_path))  # met inside a folder
    assert code == 2
    assert "a symlink loop" in err


def test_an_unreadable_folder_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk's error is reported, not swallowed (simulated: the tests may run as root)."""
    locked = tmp_path / "locked"
    locked.mkdir()
    real_scandir = os.scandir

    def scandir(path: object) -> object:
        if Path(str(path)) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "scandir", scandir)
    files, problems = reader.discover([locked])
    assert files == []
    assert [str(p) for p in problems] == [f"{locked}: cannot read (Permission denied)"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any folder")
def test_an_unreadable_folder_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "a.events.jsonl").write_bytes(LOG.read_bytes())
    locked.chmod(0)
    try:
        code, _, err = _run(capsys, "check", str(locked))
    finally:
        locked.chmod(0o755)
    assert code == 2
    assert "Permission denied" in err


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("content", [bytes(range(256)) * 4, b"PK\x03\x04 a zip file\x00\x01", b"1\n2\n"],
                         ids=["random bytes", "a zip header", "numbers"])
def test_a_file_that_is_not_a_session_log_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  command: str, content: bytes) -> None:
    path = tmp_path / "x.events.jsonl"
    path.write_bytes(content)
    code, out, err = _run(capsys, command, str(path))
    assert code == 2
    assert "not a session log" in out + err
    assert "Traceback" not in out + err


@pytest.mark.rule("LOG-1")
@pytest.mark.parametrize("command", COMMANDS)
def test_a_session_log_with_a_garbage_line_is_a_violation(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          command: str) -> None:
    path = tmp_path / "x.events.jsonl"
    path.write_bytes(LOG.read_bytes().split(b"\n")[0] + b"\n" + bytes(range(256)) + b"\n")
    code, out, _ = _run(capsys, command, str(path))
    assert code == 1
    assert "LOG-1" in out


@pytest.mark.rule("LOG-1")
def test_replay_reports_bad_utf8_as_log_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.events.jsonl"
    path.write_bytes(LOG.read_bytes().replace(b'"t1"', b'"t\xff"', 1))
    code, out, err = _run(capsys, "replay", str(path))
    assert code == 1
    assert "INVALID" in out
    assert "UTF-8" in out
    assert "Traceback" not in out + err


def test_an_empty_file_is_still_a_valid_empty_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.events.jsonl"
    path.write_bytes(b"")
    assert main(["check", str(path)]) == 0
    assert main(["replay", str(path)]) == 0


def test_the_live_stream_can_come_from_standard_input(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    live = REAL_TRACES / "inbox_replace.live.jsonl"
    monkeypatch.setattr(sys, "stdin", _Stdin(gzip.compress(live.read_bytes())))
    code, out, _ = _run(capsys, "check", str(LOG), "--live", "-")
    assert code == 0
    assert f"{LOG}: VALID" in out
    monkeypatch.setattr(sys, "stdin", _Stdin(live.read_bytes() + b"{not json\n"))
    code, out, _ = _run(capsys, "check", str(LOG), "--live", "-")
    assert code == 1
    assert "[LOG-1] <stdin> line" in out
    assert "loopspec-stdin" not in out


def test_a_folders_logs_come_in_path_order(tmp_path: Path) -> None:
    for name in ("a-c.jsonl", "a/b.jsonl", "a/z/y.jsonl", "a.jsonl", "b.jsonl"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    files, problems = reader.discover([f"{tmp_path}//./"])
    assert problems == []
    assert files == [str(p) for p in sorted(tmp_path.rglob("*.jsonl"))]
