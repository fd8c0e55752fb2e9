"""The installed tool and its examples say true things (issue 25): one version everywhere, an
install that works as written, example folders whose names are their verdicts, recordings that
the checker and the reproducer judge alike, and conformance verdicts that name the cases of
other profiles."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

from conftest import REPO, run_loopspec

VERSION = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
EXAMPLES = REPO / "examples" / "logs"
GRACEFUL = EXAMPLES / "valid" / "graceful-disposal-then-restart"


def test_one_version_everywhere() -> None:
    assert run_loopspec("--version").stdout.splitlines()[0] == f"loopspec {VERSION}"
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## (\S+)", changelog, re.MULTILINE)
    assert newest is not None
    assert newest.group(1) == VERSION
    for adapter in ("examples/adapters/js/adapter.js", "examples/adapters/python/adapter.py",
                    "model/loopspec/vectors/adapter/reference.py"):
        named = re.search(r"IMPLEMENTATION = ['\"][\w-]+ ([\d.]+)['\"]", (REPO / adapter).read_text(encoding="utf-8"))
        assert named is not None, adapter
        assert named.group(1) == VERSION, adapter
    workflow = (REPO / "examples" / "ci" / "conformance.yml").read_text(encoding="utf-8")
    assert set(re.findall(r"\d+\.\d+\.\d+", workflow)) == {VERSION}


def test_the_install_instructions_need_no_package_index() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    workflow = (REPO / "examples" / "ci" / "conformance.yml").read_text(encoding="utf-8")
    for text in (readme, workflow):
        assert "pip install loopspec" not in text
        assert "loopspec==" not in text
    assert "python -m pip wheel --no-deps -w dist ." in readme
    assert f"dist/loopspec-{VERSION}-py3-none-any.whl" in readme


def test_the_folder_called_valid_passes_as_it_is() -> None:
    done = run_loopspec("check", "--quiet", EXAMPLES / "valid")
    assert done.returncode == 0, done.stdout
    torn = run_loopspec("check", "--allow-torn-tail", EXAMPLES / "valid-with-allow-torn-tail")
    assert torn.returncode == 0, torn.stdout
    assert run_loopspec("check", EXAMPLES / "valid-with-allow-torn-tail").returncode == 1
    manifest = run_loopspec("check", "--quiet", "--manifest", EXAMPLES / "manifest.json")
    assert manifest.returncode == 0, manifest.stdout


def test_check_and_reproduce_agree_on_the_graceful_disposal() -> None:
    log, live = GRACEFUL.with_suffix(".events.jsonl"), GRACEFUL.with_suffix(".live.jsonl")
    checked = run_loopspec("check", log, "--live", live)
    assert checked.returncode == 0, checked.stdout
    reproduced = run_loopspec("reproduce", log, "--live", live)
    assert reproduced.returncode == 0, reproduced.stdout
    assert "graceful-disposal-then-restart: reproduced" in reproduced.stdout


def test_a_full_run_names_the_cases_of_other_profiles(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    assert run_loopspec("vectors", "generate", suite, "--count", "0").returncode == 0
    done = run_loopspec("vectors", "run", suite, "--select", "claim", "--", sys.executable, "-m", "loopspec",
                        "adapter")
    assert done.returncode == 0, done.stderr
    assert "outside profile full" not in done.stdout
    assert "a case of profile inbox only: it needs claim, which profile full does not have" in done.stdout
    verdict = done.stdout.strip().splitlines()[-1]
    # The selection is named and claims no conformance (issue 40); the other profiles' cases are counted.
    assert re.fullmatch(r"the \d+ selected case\(s\) of profile full passed against loopspec-model [\d.]+ "
                        r"\(\d+ of the suite's \d+ case\(s\), --select claim; \d+ case\(s\) of other profiles "
                        r"only skipped\); a selection proves no conformance: run every case", verdict), verdict
