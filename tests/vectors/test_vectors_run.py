"""``loopspec vectors run`` and the adapter protocol, against the reference adapter and fakes.

* Every generated case passes against ``python -m loopspec adapter`` (the model over the wire):
  the encoding, the protocol and the comparison lose nothing.
* A broken adapter (in-process and as a subprocess) is caught, and the report names the first
  differing observation by its JSON path.
* A crashed, hung, babbling or incompatible adapter is reported — which request was pending,
  the last line received, its stderr — and fails the case in progress; the runner starts the
  adapter again and goes on with the next case, within the timeout, never hanging.
* Protocol errors and tampered case files are failures, never passes; ``unsupported`` is a
  case not run, which fails the run (spec/adapter-protocol.md says the same).

The suite's cases carry the commands rules (see test_vectors_generate); running them here proves
the wire protocol preserves them: SPLICE-7 (the fake breaks its return value), INPUT-4.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from loopspec.cli import main
from loopspec.vectors.adapter.client import AdapterError, AdapterFailure, InProcessAdapter
from loopspec.vectors.adapter.process import SubprocessAdapter
from loopspec.vectors.adapter.reference import ModelHandler, serve
from loopspec.vectors.runner import AdapterUnavailable, run_suite
from loopspec.vectors.suite import generate
from vectors.fixtures import REFERENCE, WrongRemove, fake_argv


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("suite")
    generate(out, seed=3, count=6)
    return out


@pytest.mark.rule("INPUT-4", "SPLICE-7")
def test_every_generated_case_passes_against_the_reference_adapter(suite: Path) -> None:
    out = io.StringIO()
    report = run_suite(suite, lambda: SubprocessAdapter(REFERENCE), out)
    assert report.ok, out.getvalue()
    manifest = json.loads((suite / "manifest.json").read_text())
    assert report.count("pass") == manifest["counts"]["profiles"]["full"]
    assert report.count("pass") + report.count_reason("outside-profile") == len(manifest["cases"])
    assert report.implementation.startswith("loopspec-model")
    assert "conforms to profile full" in out.getvalue()


def test_cli_run_exit_codes(suite: Path, fake: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "run", str(suite), "--", *REFERENCE]) == 0
    assert main(["vectors", "run", str(suite), "--", *fake_argv(fake, "wrong-remove")]) == 1
    out = capsys.readouterr().out
    assert "FAIL    splice/replace/splice-7-locate-and-miss" in out
    assert "step 3 (remove): $.value: expected false, got null" in out
    assert main(["vectors", "run", str(suite)]) == 2  # no adapter given


@pytest.mark.rule("SPLICE-7")
def test_a_broken_in_process_adapter_is_reported_with_the_first_difference(suite: Path) -> None:
    out = io.StringIO()
    report = run_suite(suite, lambda: InProcessAdapter(WrongRemove().handle), out)
    assert not report.ok
    failed = {r.id: r.detail for r in report.results if r.status == "fail"}
    assert failed["splice/replace/splice-7-locate-and-miss"] == "step 3 (remove): $.value: expected false, got null"
    assert report.count("pass") > 0


def test_a_single_case_file_runs_without_manifest(suite: Path) -> None:
    case = suite / "splice/replace/splice-7-locate-and-miss.json"
    assert run_suite(case, lambda: InProcessAdapter(ModelHandler().handle), io.StringIO()).ok
    assert not run_suite(case, lambda: InProcessAdapter(WrongRemove().handle), io.StringIO()).ok


@pytest.mark.parametrize("damage", ["edited", "deleted"])
def test_a_broken_suite_is_unusable_input_and_claims_nothing(suite: Path, tmp_path: Path, damage: str) -> None:
    """A case file edited or deleted after generation: the run says the suite is broken and exits 2,
    never that the implementation does not conform (issue 40)."""
    copy = tmp_path / "suite"
    subprocess.run(["cp", "-r", str(suite), str(copy)], check=True)
    victim = copy / "splice/append/splice-1-append-prepend.json"
    if damage == "edited":
        victim.write_text(victim.read_text().replace('"start": 1', '"start": 0'))
    else:
        victim.unlink()
    done = subprocess.run([sys.executable, "-m", "loopspec", "vectors", "run", str(copy), "--format", "junit", "--",
                           "loopspec", "adapter"], capture_output=True, text=True, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    why = "checksum differs from manifest.json" if damage == "edited" else "cannot read"
    assert done.stderr.startswith(f"loopspec vectors run: {copy}: the suite is broken, so nothing was tested: 1 of ")
    assert f"splice/append/splice-1-append-prepend: {why}" in done.stderr
    assert "conform" not in done.stderr


@pytest.mark.parametrize(("mode", "what"), [
    ("exit", "exited"),
    ("garbage", "not JSON"),
    ("sleep", "no response within 1 s"),
])
def test_adapter_crashes_and_hangs_fail_one_case_and_the_run_goes_on(
        suite: Path, fake: Path, tmp_path: Path, mode: str, what: str) -> None:
    """The adapter breaks once, in its first process: that case fails, a new process runs the rest."""
    out = io.StringIO()
    started = time.monotonic()
    argv = fake_argv(fake, mode, 5, once=tmp_path / "broke")
    report = run_suite(suite, lambda: SubprocessAdapter(argv, timeout=1.0), out)
    assert time.monotonic() - started < 60
    text = out.getvalue()
    assert not report.ok
    assert what in text
    assert "pending request: {" in text
    # The last line received: the garbage itself, or the answer before the crash or hang.
    assert ("last line received: this is not json" if mode == "garbage" else "last line received: {") in text
    failed = [r for r in report.results if r.status == "fail"]
    assert len(failed) == 1
    assert report.count("not-run") == report.count_reason("outside-profile")  # nothing skipped for the crash
    assert report.count("pass") == len(report.results) - 1 - report.count("not-run")
    if mode == "exit":
        assert "exit code: 3" in failed[0].detail
        assert "fake: giving up" in failed[0].detail


def test_an_adapter_that_always_crashes_fails_every_case_it_gets(suite: Path, fake: Path) -> None:
    report = run_suite(suite, lambda: SubprocessAdapter(fake_argv(fake, "exit", 0), timeout=1.0), io.StringIO(),
                       select=["splice"])
    assert report.count("pass") == 0
    assert len(report.results) > 3
    assert report.count("fail") == len(report.of_profile)


def test_an_adapter_that_speaks_another_protocol_runs_nothing(suite: Path, fake: Path) -> None:
    """Said once, before any case: no line per case repeating it."""
    out = io.StringIO()
    with pytest.raises(AdapterUnavailable, match="loopspec-adapter/0") as raised:
        run_suite(suite, lambda: SubprocessAdapter(fake_argv(fake, "old-protocol")), out)
    assert str(raised.value).startswith("cannot start the adapter: ")  # the protocol is named on that line
    assert out.getvalue() == ""


def test_unsupported_is_a_case_not_run_that_fails_the_run(suite: Path, fake: Path) -> None:
    """spec/adapter-protocol.md: unsupported counts the case as not run, which fails the run."""
    out = io.StringIO()
    report = run_suite(suite, lambda: SubprocessAdapter(fake_argv(fake, "unsupported")), out)
    assert report.count("fail") == 0
    assert report.count_reason("unsupported") == len(report.of_profile) > 0
    assert "unsupported" in report.of_profile[0].detail
    assert not report.ok
    assert "NOT RUN" in out.getvalue()
    assert "does NOT conform to profile full" in out.getvalue()


def test_an_adapter_that_cannot_start_is_reported() -> None:
    with pytest.raises(AdapterFailure, match="cannot start"):
        SubprocessAdapter(["/nonexistent/adapter"])
    with pytest.raises(AdapterFailure, match="exited"):
        SubprocessAdapter([sys.executable, "-c", "import sys; sys.exit(0)"])


def test_reference_adapter_protocol_errors() -> None:
    """Requests the reference adapter must refuse as protocol errors, not as observations."""
    handler = ModelHandler()
    lines = [
        '{"id": 0, "state": {}}',
        '{"id": 1, "hello": {"protocol": "loopspec-adapter/2"}}',
        "not json",
        '{"id": "x", "state": {}}',
        '{"id": 2, "state": {}, "reset": {}}',
        '{"id": 3, "command": {"op": "jump"}}',
        '{"id": 4, "command": {"op": "step-result", "kind": "stop"}}',
        '{"id": 5, "reset": {}}',
    ]
    out = io.StringIO()
    serve(handler, lines, out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a.get("error", {}).get("kind") for a in answers] == [
        "protocol", None, "bad-request", "bad-request", "bad-request", "bad-request", None, None]
    assert answers[6] == {"id": 4, "observation": {
        "ok": False, "code": "INPUT-4", "message": answers[6]["observation"]["message"]}}
    assert answers[7] == {"id": 5, "reset": {}}
    adapter = InProcessAdapter(ModelHandler().handle)
    with pytest.raises(AdapterError, match="bad-request"):
        adapter.command({"op": "splice", "target": "next-turn", "start": "nan", "deleteCount": 0})
