"""Finding, opening and parsing session logs for ``loopspec check`` (spec rules LOG-1, LOG-5).

:func:`discover` turns the command line's paths into log files, naming what is wrong with the
rest (missing, a symlink loop, unreadable, a folder without logs); :func:`holds_an_event` tells a
broken session log from a file that is not one at all.

Logs are read as bytes, line by line, so memory stays flat in the log's length.  Each line is
parsed by the fastest parser available (orjson when installed, else the standard library); a
line the fast parser refuses goes through :func:`parse_slowly`, which decides *why* with the
standard library under JSON's exact rules (no NaN/Infinity tokens, no number that overflows a
double, strict UTF-8, no byte order mark) and the writer's (no key twice in an object: the real
writer is ``JSON.stringify``, decisions.md G3) and tells a torn tail from garbage (LOG-5).
"""

from __future__ import annotations

import errno
import json
import os
import stat
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, NamedTuple

from loopspec.check.torn_tail import is_object_prefix
from loopspec.log.json_fault import why_not_json
from loopspec.log.stdin import STDIN

if TYPE_CHECKING:
    from typing import BinaryIO

    LogPath = str | os.PathLike[str]

BOM = b"\xef\xbb\xbf"
# What opening and reading a log file (plain or gzip-compressed) can raise: a missing or unreadable
# file, a compressed stream cut short, a corrupt one.
UNREADABLE = (OSError, EOFError, zlib.error)
LIVE_SUFFIXES = (".live.jsonl", ".live.jsonl.gz")
LOG_SUFFIXES = (".jsonl", ".jsonl.gz")


class LineProblem(Exception):
    """A line that is not one JSON value; ``torn`` when it is a cut-off last line (LOG-5)."""

    def __init__(self, rule: str, message: str, *, torn: bool = False) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.torn = torn


def is_log_name(name: str) -> bool:
    """Directory walks take ``*.jsonl`` (and ``.gz``) but not live notification streams."""
    return name.endswith(LOG_SUFFIXES) and not name.endswith(LIVE_SUFFIXES)


def path_text(path: LogPath) -> str:
    """``path`` as reports name it: the command line's argument as :class:`pathlib.Path` spells it."""
    return str(Path(path))


class PathProblem(NamedTuple):
    """A path given or found that holds no log to read, and why; printed as ``path: why``."""

    path: str
    why: str

    def __str__(self) -> str:
        return f"{self.path}: {self.why}"


def _stat_problem(path: str, err: OSError) -> PathProblem:
    """What is wrong with a path that cannot be looked at, in the user's words."""
    if err.errno == errno.ELOOP:
        return PathProblem(path, "a symlink loop (the link leads back to itself), not a log")
    if err.errno == errno.ENOENT:
        return PathProblem(path, "no such file or directory")
    return PathProblem(path, f"cannot read ({err.strerror or err})")


def _walk(folder: str, problems: list[PathProblem]) -> list[str]:
    """Log files under ``folder`` (sorted); unreadable folders and broken links become problems.

    Symlinked folders are not followed (a link to an ancestor would never end); symlinked files are.
    """
    found: list[str] = []

    def unreadable(err: OSError) -> None:
        problems.append(_stat_problem(path_text(err.filename or folder), err))

    for top, _, names in os.walk(folder, onerror=unreadable):
        for name in names:
            if not is_log_name(name):
                continue
            path = os.path.join(top, name)
            try:
                if stat.S_ISREG(os.stat(path).st_mode):
                    found.append(path)
            except OSError as err:
                problems.append(_stat_problem(path, err))
    return sorted(found, key=PurePath)


def discover(paths: Iterable[LogPath]) -> tuple[list[str], list[PathProblem]]:
    """Log files named or found under folders (sorted per folder), and what is wrong with the rest.

    A folder that holds no log at all is a problem, not an empty pass: a CI job pointed at the
    wrong folder must fail.  ``-`` (standard input) is passed through for the caller to read.
    """
    found: list[str] = []
    problems: list[PathProblem] = []
    for given in paths:
        path = path_text(given)
        if path == STDIN:
            found.append(path)
            continue
        try:
            mode = os.stat(path).st_mode
        except OSError as err:
            problems.append(_stat_problem(path, err))
            continue
        if stat.S_ISDIR(mode):
            before = len(problems)
            logs = _walk(path, problems)
            if not logs and len(problems) == before:
                problems.append(PathProblem(path, "no session log in this folder (looked for *.jsonl and "
                                                  "*.jsonl.gz, except *.live.jsonl)"))
            found.extend(logs)
        else:
            found.append(path)
    return found, problems


def open_log(path: LogPath) -> BinaryIO:
    """The log's bytes; transparently decompressed when the name ends in ``.gz``."""
    if os.fspath(path).endswith(".gz"):
        import gzip  # for compressed logs only: a plain check does not pay its import

        return gzip.open(path, "rb")  # type: ignore[return-value]  # a GzipFile reads like BinaryIO
    return open(path, "rb")  # the caller closes it


def _event_like(line: bytes) -> bool:
    """Whether a line is a JSON object once LOG-1's defects are forgiven, or a cut-off one.

    Forgiven: a byte order mark, invalid UTF-8, NaN/Infinity tokens, numbers beyond a double,
    nesting too deep to read.  Such a line is a damaged event (a rule violation); a file with no
    such line at all is not a session log.
    """
    text = line.removeprefix(BOM).decode("utf-8", "replace").strip()
    if not text.startswith("{"):
        return False
    try:
        return isinstance(json.loads(text), dict)
    except RecursionError:
        return True
    except ValueError:
        return is_object_prefix(text)


def holds_an_event(path: LogPath) -> bool:
    """Whether the file is judged as a session log: some line looks like an event (stops at the
    first that does), or no line holds anything but white space.

    The one policy for files without events (``loopspec check --help``, README): every file is a session log to
    judge except one whose content, none of it a JSON object, is something else (random bytes,
    another format).  So an empty file is a valid empty log and a file of blank lines breaks LOG-1
    at its first line, as a blank line does in any log.  An unreadable stream counts as holding an
    event, so the verdict already reached stands.
    """
    try:
        with open_log(path) as stream:
            blank = True
            for line in stream:
                if _event_like(line):
                    return True
                blank = blank and not line.strip()
            return blank
    except (OSError, EOFError, zlib.error):
        return True


def _no_constant(token: str) -> object:
    raise ValueError(f"{token} is not a JSON number (NaN and Infinity tokens are not JSON)")


def _finite_float(token: str) -> float:
    value = float(token)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number {token[:40]} is out of range of a double")
    return value


class DuplicateKey(ValueError):
    """An object of the line names one key twice, which ``JSON.stringify`` never writes (LOG-1)."""


def unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """``object_pairs_hook`` refusing a repeated key instead of letting the last one win silently."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise DuplicateKey(f"key {repeated!r} appears twice in one object (JSON.stringify never writes that)")
    return value


def strict_loads(line: bytes) -> object:
    """The standard library's parse under JSON's exact rules (strict UTF-8, no BOM, finite numbers,
    no key twice in an object)."""
    return json.loads(
        line.decode("utf-8"), parse_constant=_no_constant, parse_float=_finite_float, object_pairs_hook=unique_keys
    )


try:  # orjson is optional: a faster parse of the same JSON, never a different verdict.
    import orjson

    lenient_loads: Callable[[bytes], object] = orjson.loads
    """orjson's parse, which resolves a repeated key silently (the last one wins)."""
    write_back: Callable[[object], bytes] | None = orjson.dumps
    _NEWLINE = orjson.OPT_APPEND_NEWLINE

    def confirmed(line: bytes, value: object) -> object:
        """``value`` (the lenient parse of ``line``) once ``line`` is known to repeat no key.

        Exact and cheap: writing the parse back drops a repeated key, so a line orjson writes back
        byte for byte repeats none; that is every line of a log the real writer (compact
        ``JSON.stringify``) wrote.  Any other line is decided by the standard library's parse,
        which raises :class:`DuplicateKey` for a repeated key (:func:`strict_loads`).
        """
        # Written back with its newline, the line compares without being sliced (a quarter less
        # work per line than slicing off the newline, docs/performance.md); only a last line that
        # has no newline is written back a second time, without one.
        try:
            if orjson.dumps(value, option=_NEWLINE) == line or (line[-1:] != b"\n" and orjson.dumps(value) == line):
                return value
        except TypeError:  # orjson writes at most 254 levels of nesting: a deeper line is rare
            return _not_too_deep(strict_loads(line), len(line))
        return strict_loads(line)

except ImportError:  # pragma: no cover - exercised in environments without orjson
    lenient_loads = strict_loads
    write_back = None

    def confirmed(line: bytes, value: object) -> object:
        # The standard library's parse already refused a repeated key; a line too short to nest
        # past the bound (two brackets a level) needs no depth check.
        return _not_too_deep(value, len(line))


def _depth_problem(value: object, size: int) -> LineProblem | None:
    """LOG-1 (decisions.md D9) when the line's ``data`` or ``surfaceOp`` nests past the bound every reader holds."""
    # Imported here: only a line nested past 254 levels gets this far, and the model's frozen JSON
    # brings attrs, which a plain check otherwise never loads (about 10 ms of start-up).
    from loopspec.data.json_value import MAX_DEPTH, nests_too_deep

    if isinstance(value, dict):
        for key in ("data", "surfaceOp"):
            if key in value and nests_too_deep(value[key], size):
                return LineProblem("LOG-1", f"'{key}' is nested more than {MAX_DEPTH} levels deep")
    return None


def _not_too_deep(value: object, size: int) -> object:
    """``value``; a :class:`RecursionError` when it nests too deep, so the caller asks :func:`parse_slowly` why."""
    problem = _depth_problem(value, size)
    if problem is not None:
        raise RecursionError(problem.message)  # as orjson's own refusal of a deep line is one
    return value


def fast_loads(line: bytes) -> object:
    """One line's JSON value by the fastest parser installed, refusing what :func:`strict_loads` refuses."""
    return confirmed(line, lenient_loads(line))


def _torn(line: bytes) -> bool:
    """Whether ``line`` (no trailing newline) is a cut-off JSON object, maybe mid-character."""
    for cut in range(4):  # a crash may split a multi-byte UTF-8 character
        try:
            text = line[: len(line) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return is_object_prefix(text)
    return False


def parse_slowly(line: bytes) -> object:
    """Parse a line the fast parser refused, or raise :class:`LineProblem` saying why."""
    last = not line.endswith(b"\n")
    if not line.strip():
        raise LineProblem("LOG-1", "a blank line; every line of a session log holds one event")
    if line.startswith(BOM):
        raise LineProblem("LOG-1", "the line starts with a UTF-8 byte order mark; logs are plain UTF-8 JSONL")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as err:
        if last and _torn(line):
            raise LineProblem("LOG-5", "a torn tail: the last line is cut off mid-character", torn=True) from None
        raise LineProblem("LOG-1", f"not valid UTF-8 (byte {err.start} of the line)") from None
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float, object_pairs_hook=unique_keys)
    except DuplicateKey as err:
        raise LineProblem("LOG-1", f"not a line the session writes: {err}") from None
    except RecursionError:
        raise LineProblem("LOG-1", "JSON nested too deeply to check") from None
    except ValueError as err:
        if last and is_object_prefix(text):
            raise LineProblem("LOG-5", "a torn tail: the last line has no newline and is cut off", torn=True) from None
        raise LineProblem("LOG-1", f"not valid JSON: {why_not_json(err, text)}") from None
    problem = _depth_problem(value, len(line))
    if problem is not None:
        raise problem
    return value


def parse_line(line: bytes) -> object:
    """One line's JSON value (fast path first); :class:`LineProblem` when it has none."""
    try:
        return fast_loads(line)
    except (ValueError, RecursionError):
        return parse_slowly(line)


def parsed_lines(stream: BinaryIO) -> Iterator[tuple[int, object | LineProblem]]:
    """``(line number, value or problem)`` for every line; the slow, general form of the scan."""
    for line_no, line in enumerate(stream, start=1):
        try:
            yield line_no, parse_line(line)
        except LineProblem as problem:
            if problem.torn:
                stream.read(1)  # a torn tail is the last line, unless a compressed stream broke off here
            yield line_no, problem
