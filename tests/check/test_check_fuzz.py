"""Bad input never escapes the checker as an exception; each kind gets its rule (LOG-1, LOG-5).

Random bytes, random JSON lines, and a catalogue of specific bad inputs: a BOM, invalid UTF-8,
NaN/Infinity tokens, numbers beyond doubles and beyond 2^53, blank lines, binary garbage, deep
nesting, torn tails (also cut mid-character), compressed logs good and corrupt, and an empty file
(a valid empty log: the real system's empty session is an empty file).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from check.log_mutations import stdlib_only
from loopspec.check import CheckOptions, LogResult, check_file
from loopspec.check.runner import NOT_A_LOG
from loopspec.check.torn_tail import is_object_prefix
from loopspec.rules.catalogue import load_spec

SLOW = settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
GOOD = (
    b'{"type":"agent/inbox/spliced","seq":0,"time":1,"data":{"target":"next-turn","start":0,'
    b'"inserted":[{"id":"\xc3\xa9t\xc3\xa9","role":"user","content":[],"source":{}}]}}\n'
)
SECOND = b'{"type":"turn/start","seq":1,"time":2,"data":{"turn":1}}\n'

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


def _write(path: Path, content: bytes) -> Path:
    path.write_bytes(content)
    return path


def _check(tmp: Path, content: bytes, name: str = "x.events.jsonl", **options: bool) -> LogResult:
    path = tmp / name
    path.write_bytes(content)
    return check_file(path, CheckOptions(all=True, **options))


@pytest.mark.rule("LOG-1", "LOG-5")
@SLOW
@given(st.binary(max_size=300))
def test_random_bytes_get_a_verdict(tmp_path: Path, content: bytes) -> None:
    """Valid, invalid, or (nothing in it looks like an event) not a session log at all."""
    result = _check(tmp_path, content)
    assert result.status in ("valid", "invalid", "unusable")
    assert (result.status == "unusable") == (result.problem == NOT_A_LOG)
    assert all(v.rule in ("LOG-1", "LOG-2", "LOG-5") or v.seq is not None for v in result.violations)


@pytest.mark.rule("LOG-1")
@SLOW
@given(st.lists(json_values, max_size=6))
def test_random_json_lines_get_a_verdict(tmp_path: Path, values: list[object]) -> None:
    """Lines of JSON objects are judged; lines without any object are not a session log."""
    content = b"".join(json.dumps(v).encode() + b"\n" for v in values)
    result = _check(tmp_path, content)
    if values and not any(isinstance(v, dict) for v in values):
        assert (result.status, result.problem) == ("unusable", NOT_A_LOG)
    else:
        assert result.status in ("valid", "invalid")
        # Explained: the catalogue gives the broken rule's norm and reason (issue 24, point 3).
        assert result.status == "valid" or load_spec().get(result.violations[0].rule) is not None


@pytest.mark.rule("LOG-1", "LOG-5")
@SLOW
@given(st.binary(max_size=200))
def test_random_bytes_in_a_gz_file_get_a_verdict(tmp_path: Path, content: bytes) -> None:
    result = _check(tmp_path, content, name="x.events.jsonl.gz")
    assert result.status in ("valid", "invalid", "unusable")


CASES: list[tuple[str, bytes, str | None]] = [
    ("empty file is a valid empty log", b"", None),
    ("CRLF line endings", GOOD.replace(b"\n", b"\r\n"), None),
    ("lone surrogate escape (legal JSON)", GOOD.replace(b'"content":[]', b'"content":["\\ud800"]'), None),
    ("byte order mark", b"\xef\xbb\xbf" + GOOD, "LOG-1"),
    ("invalid UTF-8", GOOD.replace(b"\xc3\xa9", b"\xe9", 1), "LOG-1"),
    ("NaN token", GOOD.replace(b'"time":1', b'"time":NaN'), "LOG-1"),
    ("Infinity token", GOOD.replace(b'"start":0', b'"start":-Infinity'), "LOG-1"),
    ("number beyond a double", GOOD.replace(b'"start":0', b'"start":1e400'), "LOG-1"),
    ("seq beyond 2^53", GOOD.replace(b'"seq":0', b'"seq":9007199254740992'), "LOG-1"),
    ("time beyond 2^64", GOOD.replace(b'"time":1', b'"time":36893488147419103232'), "LOG-1"),
    ("start beyond 2^53", GOOD.replace(b'"start":0', b'"start":9007199254740993'), "FOLD-2"),
    ("blank line", GOOD + b"\n" + SECOND, "LOG-1"),
    ("not an object", GOOD + b"[1, 2]\n", "LOG-1"),
    ("a string", GOOD + b'"turn/start"\n', "LOG-1"),
    ("wrong field type", GOOD.replace(b'"seq":0', b'"seq":"0"'), "LOG-1"),
    ("binary garbage", GOOD + bytes(range(256)) * 3, "LOG-1"),
    ("binary garbage ending in a newline", GOOD + bytes(range(1, 256)) + b"\n", "LOG-1"),
    ("deep nesting", GOOD + b"[" * 100_000 + b"]" * 100_000 + b"\n", "LOG-1"),
    ("deep nesting, an object", b"{" + b'"a":{' * 50_000 + b"}" * 50_001 + b"\n", "LOG-1"),
    ("an object without newline, cut off", b'{"type":"turn/st', "LOG-5"),
    ("deep nesting inside data", GOOD[:-2] + b', "x":' + b"[" * 5000 + b"]" * 5000 + b"}\n", "LOG-1"),
    ("torn tail", GOOD + SECOND[:30], "LOG-5"),
    ("torn tail inside a string", GOOD + SECOND[:14], "LOG-5"),
    ("torn tail mid-character", GOOD + GOOD[:101], "LOG-5"),
    ("garbage last line without newline", GOOD + b"}{", "LOG-1"),
    ("valid last line without newline", GOOD + SECOND[:-1], None),
    # The one policy for files without events: blank lines break LOG-1 as in any log (an empty file is valid).
    ("only blank lines", b"\n\n\n", "LOG-1"),
]


# Files in which no line is a JSON object, even forgiving LOG-1's defects: not session logs at all.
NOT_LOGS: list[tuple[str, bytes]] = [
    ("an array", b"[1, 2]\n"),
    ("a string", b'"turn/start"\n'),
    ("binary garbage", bytes(range(256)) * 3),
    ("binary garbage ending in a newline", bytes(range(1, 256)) + b"\n"),
    ("deep nesting", b"[" * 100_000 + b"]" * 100_000 + b"\n"),
    ("CSV", b"seq,type\n0,turn/start\n"),
    ("JSON lines of numbers", b"1\n2\n3\n"),
]


@pytest.mark.parametrize("content", [c[1] for c in NOT_LOGS], ids=[c[0] for c in NOT_LOGS])
def test_a_file_with_no_event_is_not_a_session_log(tmp_path: Path, content: bytes) -> None:
    result = _check(tmp_path, content)
    assert (result.status, result.problem, result.violations) == ("unusable", NOT_A_LOG, ())
    gz = _check(tmp_path, gzip.compress(content), name="x.events.jsonl.gz")
    assert (gz.status, gz.problem) == ("unusable", NOT_A_LOG)


@pytest.mark.rule("LOG-1", "LOG-5", "FOLD-2")
@pytest.mark.parametrize(("content", "rule"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_gets_its_rule(tmp_path: Path, content: bytes, rule: str | None) -> None:
    result = _check(tmp_path, content)
    if rule is None:
        assert result.status == "valid", result.violations
    else:
        assert result.status == "invalid"
        assert result.violations[0].rule == rule, result.violations[0].message
        assert result.violations[0].line >= 1
        assert result.violations[0].file.endswith("x.events.jsonl")


@pytest.mark.rule("LOG-5")
def test_torn_tail_is_accepted_only_when_allowed(tmp_path: Path) -> None:
    content = GOOD + SECOND[:30]
    assert _check(tmp_path, content).rules == ("LOG-5",)
    allowed = _check(tmp_path, content, allow_torn_tail=True)
    assert (allowed.status, allowed.torn_tail, allowed.events) == ("valid", True, 1)


@pytest.mark.rule("LOG-5")
def test_torn_tail_allowance_does_not_forgive_garbage(tmp_path: Path) -> None:
    assert _check(tmp_path, GOOD + b"\x00\x01garbage", allow_torn_tail=True).rules == ("LOG-1",)


def test_compressed_logs(tmp_path: Path) -> None:
    good = tmp_path / "a.events.jsonl.gz"
    good.write_bytes(gzip.compress(GOOD + SECOND))
    assert check_file(good).status == "valid"
    corrupt = tmp_path / "b.events.jsonl.gz"
    corrupt.write_bytes(b"not gzip at all")
    result = check_file(corrupt)
    assert result.status == "unusable"
    assert result.problem
    truncated = tmp_path / "c.events.jsonl.gz"
    foreign = b"".join(b'{"type":"x/note","seq":%d,"time":%d,"data":{}}\n' % (i, i) for i in range(1, 300))
    assert check_file(_write(tmp_path / "d.events.jsonl", GOOD + foreign)).status == "valid"
    truncated.write_bytes(gzip.compress(GOOD + foreign)[:-30])
    assert check_file(truncated).status == "unusable"


def test_unreadable_path_is_unusable(tmp_path: Path) -> None:
    assert check_file(tmp_path / "missing.events.jsonl").status == "unusable"
    assert check_file(tmp_path).status == "unusable"  # a directory is no log file


small_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


@pytest.mark.rule("LOG-5")
@given(st.dictionaries(st.text(max_size=4), small_json, min_size=1, max_size=4))
def test_every_proper_prefix_of_an_object_is_a_torn_tail(value: dict[str, object]) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False, separators=(",", ":"))):
        assert not is_object_prefix(text), "a complete object is not torn"
        for cut in range(1, len(text)):
            assert is_object_prefix(text[:cut]), text[:cut]


@pytest.mark.rule("LOG-5")
@pytest.mark.parametrize("text", ['{"a":1}}', '{"a" 1', "[1,", '{"a":tru e', '{"a":01', '{"a":1.e5', '{"\\x', "\x00{",
                                  '{"a":"\x01', '{"a":[1]]', "", "   "])
def test_non_prefixes_are_not_torn_tails(text: str) -> None:
    assert not is_object_prefix(text)


@pytest.mark.rule("LOG-1", "LOG-5")
def test_verdicts_do_not_depend_on_orjson(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without orjson the standard library parses under the same rules: identical results."""
    paths = []
    for index, (_, content, _) in enumerate(CASES):
        path = tmp_path / f"case{index}.events.jsonl"
        path.write_bytes(content)
        paths.append(path)
    examples = sorted((Path(__file__).parents[2] / "examples" / "logs").rglob("*.jsonl"))
    options = CheckOptions(all=True)

    def verdicts() -> list[object]:
        # Messages may differ (orjson reads 2**65 as a float), the verdicts may not.
        return [(r.status, [(v.rule, v.seq, v.line) for v in r.violations])
                for r in (check_file(p, options) for p in paths + examples)]

    with_orjson = verdicts()
    stdlib_only(monkeypatch)
    assert verdicts() == with_orjson
