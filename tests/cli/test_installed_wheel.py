"""The wheel, installed alone in a fresh virtual environment, does everything a checkout does.

Builds the wheel from this checkout (``python -m build``; hatchling comes from the package index
or pip's cache), installs it with only its declared dependencies into a new venv, and runs every
subcommand from an unrelated folder with nothing of the checkout on the path: the results a user
is promised, the same spec digest as the checkout, and never a traceback.  About a minute; CI runs
it with the rest (``-m "not installed_wheel"`` skips it while editing).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

import attrs
import pytest

from conftest import REAL_TRACES, REPO
from loopspec.rules.shipped import spec_digest
from loopspec.vectors.adapter.client import PROTOCOL
from loopspec.vectors.case import CASE_FORMAT
from loopspec.vectors.suite import SUITE_FORMAT

pytestmark = pytest.mark.installed_wheel

VERSION = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
EXAMPLES = REPO / "examples" / "logs"
VALID = EXAMPLES / "valid" / "S01-single-followup.events.jsonl"
INVALID = EXAMPLES / "invalid" / "TURN-5-blocked-turn-chains.events.jsonl"


@attrs.frozen
class Installed:
    venv: Path
    work: Path  # an unrelated folder holding copies of the inputs

    @property
    def loopspec(self) -> str:
        return str(self.venv / "bin" / "loopspec")

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env.pop("LOOPSPEC_TRACEBACK", None)
        return env

    def run(self, *args: str, stdin: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([self.loopspec, *args], cwd=self.work, env=self.env(), input=stdin,
                              capture_output=True, text=True, timeout=timeout)
        assert "Traceback" not in done.stdout + done.stderr, f"loopspec {' '.join(args)}:\n{done.stderr}"
        return done


def _step(argv: Sequence[str | Path], cwd: Path, timeout: float = 600) -> None:
    done = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    if done.returncode != 0:
        pytest.fail(f"{' '.join(map(str, argv))} failed ({done.returncode}):\n{done.stdout[-3000:]}\n"
                    f"{done.stderr[-3000:]}")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("installed-wheel")
    dist = root / "dist"
    _step([sys.executable, "-m", "build", "--wheel", "--outdir", dist, REPO], cwd=root)
    wheels = sorted(dist.glob("loopspec-*.whl"))
    assert len(wheels) == 1, wheels
    venv = root / "venv"
    _step([sys.executable, "-m", "venv", venv], cwd=root)
    _step([venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheels[0]], cwd=root)
    work = root / "elsewhere"
    work.mkdir()
    shutil.copy(VALID, work / VALID.name)
    shutil.copy(INVALID, work / INVALID.name)
    shutil.copytree(REAL_TRACES, work / "recordings")
    return Installed(venv, work)


def test_only_runtime_dependencies_are_installed(installed: Installed) -> None:
    """The commands need attrs, hypothesis and orjson; the test and lint tools are not pulled in."""
    code = "import importlib.util as u, sys; sys.exit(any(u.find_spec(m) for m in ('jsonschema', 'pytest', 'mypy')))"
    done = subprocess.run([str(installed.venv / "bin" / "python"), "-c", code], cwd=installed.work,
                          env=installed.env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, "a development tool was installed with the wheel"


def test_version(installed: Installed) -> None:
    done = installed.run("--version")
    assert done.returncode == 0
    assert done.stdout.splitlines()[0] == f"loopspec {VERSION}"
    for part in (spec_digest(), CASE_FORMAT, SUITE_FORMAT, PROTOCOL):
        assert part in done.stdout, f"{part} missing: the installed spec differs from the checkout's"


def test_check_valid_and_invalid(installed: Installed) -> None:
    assert installed.run("check", VALID.name).returncode == 0
    done = installed.run("check", INVALID.name)
    assert done.returncode == 1
    assert "[TURN-5]" in done.stdout
    # The rule's page is the one the wheel ships, named by a path that opens from anywhere.
    cited = re.search(r"see: (\S+)#(turn-5\S*)", done.stdout)
    assert cited is not None, done.stdout
    assert cited.group(1).endswith("loopspec/_spec/07-lifecycle.md")
    assert Path(cited.group(1)).is_file()
    report = json.loads(installed.run("check", "--format", "json", INVALID.name).stdout)
    assert report["tool"]["spec_digest"] == spec_digest()
    assert report["logs"][0]["violations"][0]["rule_text"]


def test_check_reads_stdin_and_refuses_an_empty_folder(installed: Installed) -> None:
    assert installed.run("check", "-", stdin=VALID.read_text(encoding="utf-8")).returncode == 0
    (installed.work / "empty").mkdir(exist_ok=True)
    done = installed.run("check", "empty")
    assert done.returncode == 2
    assert "no session log" in done.stderr


def test_replay(installed: Installed) -> None:
    done = installed.run("replay", "recordings")
    assert done.returncode == 0
    assert 'inbox_replace.events.jsonl: {"next-turn": ["t1", "t2b", "t3"], "next-step": ["s1b"]}' in done.stdout


def test_vectors_generate_run_and_pack(installed: Installed) -> None:
    done = installed.run("vectors", "generate", "--out", "suite")
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"suite: wrote [\d,]+ case\(s\): [\d,]+ hand-written, [\d,]+ row, 60 random walk \(20 per "
                        r"profile\), [\d,]+ row-pair; .*", done.stdout.strip()), done.stdout
    manifest = json.loads((installed.work / "suite" / "manifest.json").read_text(encoding="utf-8"))
    assert (manifest["specVersion"], manifest["specDigest"]) == (VERSION, spec_digest())
    assert manifest["uncoveredRules"] == []
    done = installed.run("vectors", "run", "suite", "--", installed.loopspec, "adapter")
    assert done.returncode == 0, done.stdout[-2000:]
    assert installed.run("vectors", "pack", "--out", "packed").returncode == 0
    assert (installed.work / "packed" / f"loopspec-vectors-{VERSION}.tar.gz").is_file()


def test_drive(installed: Installed) -> None:
    done = installed.run("drive", "--examples", "20", "--seed", "1", "--", installed.loopspec, "adapter")
    assert done.returncode == 0, done.stderr[-2000:]


def test_adapter_handshake(installed: Installed) -> None:
    hello = json.dumps({"id": 0, "hello": {"protocol": PROTOCOL}}) + "\n"
    done = installed.run("adapter", stdin=hello, timeout=60)
    assert done.returncode == 0
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["id"] == 0
    assert answer["hello"]["protocol"] == PROTOCOL
    assert VERSION in answer["hello"]["implementation"]


def test_docs_says_what_it_needs(installed: Installed) -> None:
    done = installed.run("docs", "--check")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "source checkout" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_explore_keeps_a_document_only_where_it_is_told(installed: Installed) -> None:
    """No checkout around the package: no document under the venv is checked or written."""
    for mode in ("--check-doc", "--write-doc"):
        done = installed.run("explore", "--scope", "dev", mode)
        assert done.returncode == 2, done
        assert "name the document with --doc FILE" in done.stderr
    done = installed.run("explore", "--scope", "dev", "--check-doc", "--doc", "nowhere.md")
    assert (done.returncode, done.stderr.strip()) == (
        2, "loopspec explore: nowhere.md does not exist: nothing to check (--write-doc writes it)")
    assert not (installed.work / "nowhere.md").exists()


def test_the_licence_and_the_spec_ship(installed: Installed) -> None:
    code = ("import importlib.metadata as m, sys\n"
            "files = [str(f) for f in m.distribution('loopspec').files or []]\n"
            "print('\\n'.join(files))\n")
    done = subprocess.run([str(installed.venv / "bin" / "python"), "-c", code], cwd=installed.work,
                          env=installed.env(), capture_output=True, text=True, timeout=60)
    files = set(done.stdout.splitlines())
    assert any(f.endswith("/LICENSE") for f in files), "the MIT licence is not in the wheel"
    for shipped in ("loopspec/_spec/06-claim.md", "loopspec/_spec/lifecycle-table.json",
                    "loopspec/_spec/schemas/vector.schema.json"):
        assert shipped in files, shipped
