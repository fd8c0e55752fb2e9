"""The ``loopspec`` command line: a thin dispatcher over subcommand modules.

Each subcommand lives in its own module exposing ``register(subparsers)``; the module sets
``func`` on its parser, which receives the parsed arguments and returns the exit code.
:func:`main` is the one place an unexpected exception is turned into exit code 3 and a single
line for the user (never a traceback; ``LOOPSPEC_TRACEBACK=1`` shows it to a developer).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence

from loopspec.cli.terminal import terminal_safe_output
from loopspec.data.terminal_text import escaped

SUBCOMMANDS = ("loopspec.cli.replay", "loopspec.cli.docs", "loopspec.cli.check", "loopspec.cli.vectors",
               "loopspec.cli.reproduce", "loopspec.cli.render",
               "loopspec.cli.explore")
# Which module registers a command, so ``loopspec check`` imports the checker and nothing else
# (start-up time: the vectors import Hypothesis).  A command missing here still works: the
# parser is then built from every module (tests/cli/test_startup.py checks this table).
COMMAND_MODULES = {
    "check": "loopspec.cli.check",
    "replay": "loopspec.cli.replay",
    "docs": "loopspec.cli.docs",
    "reproduce": "loopspec.cli.reproduce",
    "render": "loopspec.cli.render",
    "explore": "loopspec.cli.explore",
}
INTERNAL_ERROR = 3
EXIT_CODES = """\
exit codes (every subcommand):
  0  success: every log valid, every case passed, no disagreement found, documents up to date
  1  a finding: a rule is broken, a case failed, a disagreement, a document out of date
  2  unusable input or bad usage: nothing was judged (missing file, folder without logs, ...)
  3  internal error of loopspec itself: please report it with the command line that caused it
"""


def _terminal_columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` gives it: ``COLUMNS`` when a positive
    integer, else the width of the terminal on standard output, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):  # no standard output, or not a terminal
        return 80


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default; descriptions and epilogs are wrapped line by line,
    so the line breaks (and indents) they are written with stay."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        # argparse asks shutil for the terminal's width, and every add_argument makes a formatter:
        # shutil's import (with bz2 and lzma) cost each ``loopspec check`` about 0.1x of a bare
        # interpreter's start-up for help that is rarely printed.  The same width, from os alone.
        super().__init__(prog, indent_increment, max_help_position, _terminal_columns() - 2 if width is None else width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap  # only printed help needs it

        out = []
        for line in text.splitlines():
            hang = indent + " " * (len(line) - len(line.lstrip()) + (3 if line.startswith(" ") else 0))
            out.append(textwrap.fill(line, width, initial_indent=indent, subsequent_indent=hang,
                                     break_long_words=False, break_on_hyphens=False))
        return "\n".join(out)

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap  # only printed help needs it

        # Lines break between words only: never inside a word, a hyphenated name or a list of values.
        return textwrap.wrap(" ".join(text.split()), width, break_long_words=False, break_on_hyphens=False)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        # An option whose help states its default already ("(default: the profile the adapter
        # declares)") says it once: argparse's would repeat or contradict it.
        if "%(default)" in text or "(default" in text or action.default is argparse.SUPPRESS:
            return text
        if not action.option_strings and action.nargs not in (argparse.OPTIONAL, argparse.ZERO_OR_MORE):
            return text
        # Flags and unset options read better as off / none than as Python's False / None.
        if action.required:
            return text
        if action.default is None or action.default == []:
            shown = "none"
        elif action.default is False:
            shown = "off"
        else:
            shown = "%(default)s"
        return f"{text} (default: {shown})"


class Parser(argparse.ArgumentParser):
    """An argument parser whose help shows defaults; subparsers are of the same class."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]


class _Version(argparse.Action):
    """``--version``: the package, the spec it reads and the formats it speaks."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the version, the spec digest and the vector and adapter formats, then exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print(version_text())
        parser.exit(0)


def version_text() -> str:
    # Imported here: the version must not cost the other commands the vectors' imports.
    from loopspec.rules.shipped import SpecMissing, package_version, spec_digest
    from loopspec.vectors.adapter.client import PROTOCOL
    from loopspec.vectors.case import CASE_FORMAT
    from loopspec.vectors.suite import SUITE_FORMAT

    try:
        digest = spec_digest()
    except SpecMissing as err:
        digest = f"missing ({err})"
    return (f"loopspec {package_version()}\n"
            f"spec digest: {digest}\n"
            f"vector case format: {CASE_FORMAT}; suite format: {SUITE_FORMAT}\n"
            f"adapter protocol: {PROTOCOL}")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``command`` (a key of :data:`COMMAND_MODULES`) only that
    subcommand is registered, so only its module is imported."""
    parser = Parser(
        prog="loopspec",
        description="The reference model of the durable agent inbox and turn/step lifecycle, as an oracle: "
        "check session logs, run the conformance vectors against an adapter, search an adapter with drive.",
        epilog=EXIT_CODES,
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = [COMMAND_MODULES[command]] if command in COMMAND_MODULES else SUBCOMMANDS
    for name in modules:
        importlib.import_module(name).register(subparsers)
    return parser


def _named_command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names, when it comes first (options of ``loopspec`` itself come
    before it and need the full parser: ``--help`` lists every command)."""
    return argv[0] if argv and argv[0] in COMMAND_MODULES else None


def _chosen(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The innermost subcommand's parser that ``args`` chose (``loopspec vectors run``: run's)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None) or "")
            if chosen is not None:
                return _chosen(chosen, args)
    return parser


def _inputs(args: argparse.Namespace) -> str:
    """What the command was working on, for the one-line internal error."""
    parts: list[str] = []
    for key in ("paths", "suite", "manifest", "live", "out", "out_dir"):
        value = getattr(args, key, None)
        if isinstance(value, list | tuple):
            parts += [str(v) for v in value]
        elif value is not None:
            parts.append(str(value))
    adapter = [a for a in getattr(args, "adapter", None) or [] if a != "--"]
    if adapter:
        parts.append("adapter " + " ".join(adapter))
    return ", ".join(parts) or "no input"


def _command(args: argparse.Namespace) -> str:
    return " ".join(str(c) for c in (args.command, getattr(args, "vectors_command", None)) if c)


def _reader_gone() -> int:
    """The reader of our output went away (``| head``): nothing more can be said to it."""
    # Point stdout at /dev/null so the interpreter's final flush does not fail a second time.
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    try:
        # --version and --help print while the arguments are parsed: a closed pipe can meet them too.
        parser = build_parser(_named_command(words))
        args, unknown = parser.parse_known_args(words)
        if unknown:  # said by the subcommand that was given them, with its usage (argparse: the top level's)
            _chosen(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
    except BrokenPipeError:
        return _reader_gone()
    # The adapter's stdout is the protocol, already JSON-escaped; every other command's words are
    # escaped for a terminal (values from the user's files reach them).
    safe = contextlib.nullcontext() if args.command == "adapter" else terminal_safe_output()
    try:
        with safe:
            code: int = args.func(args)
    except KeyboardInterrupt:
        print(f"loopspec {_command(args)}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _reader_gone()
    except Exception as err:
        if os.environ.get("LOOPSPEC_TRACEBACK"):
            raise
        detail = " ".join(f"{type(err).__name__}: {err}".split())
        print(escaped(f"loopspec {_command(args)}: internal error — please report (input: {_inputs(args)}; "
                      f"{detail})"), file=sys.stderr)
        return INTERNAL_ERROR
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
