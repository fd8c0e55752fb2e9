"""The README and the example CI workflow say what the tool does: commands that exist, links that resolve.

The README's first code block is the two commands a stranger runs in a plain clone (the main job,
then the tests); ``tests/cli/test_self_contained.py`` keeps the clone free of outside paths.
"""

from __future__ import annotations

import re
import shlex

import pytest

from conftest import REPO
from loopspec.cli import build_parser

README = (REPO / "README.md").read_text(encoding="utf-8")
WORKFLOW = REPO / "examples" / "ci" / "conformance.yml"


def test_the_first_code_block_is_the_two_commands() -> None:
    block = re.search(r"^```sh\n(.*?)^```", README, re.MULTILINE | re.DOTALL)
    assert block is not None
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]
    assert commands == ["bash scripts/main.sh", "bash scripts/test.sh"]
    for script in ("scripts/main.sh", "scripts/test.sh"):
        assert (REPO / script).is_file()


def test_the_readme_links_resolve() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    assert links, "no links found"
    missing = [link for link in links if not link.startswith("http") and not (REPO / link).exists()]
    assert not missing, missing


def test_the_readme_has_a_path_for_implementers() -> None:
    section = README.split("## For implementers", 1)[1].split("\n## ", 1)[0]
    for needed in ("pip install", "spec/adapter-protocol.md", "examples/ci/conformance.yml", "loopspec vectors run",
                   "loopspec drive", "loopspec check", "loopspec vectors pack"):
        assert needed in section, needed


def _workflow_commands() -> list[str]:
    commands = []
    for line in WORKFLOW.read_text(encoding="utf-8").splitlines():
        text = line.strip().removeprefix("- ").removeprefix("run:").strip()
        if text.startswith("loopspec "):
            commands.append(text.split(" > ")[0])
    return commands


def test_the_workflow_uses_every_job_of_the_oracle() -> None:
    used = {shlex.split(c)[1] for c in _workflow_commands()}
    assert {"vectors", "drive", "check", "--version"} <= used, used


@pytest.mark.parametrize("command", _workflow_commands())
def test_the_workflow_commands_parse(command: str) -> None:
    argv = shlex.split(command)[1:]
    if argv == ["--version"]:
        return
    args = build_parser().parse_args(argv)
    assert callable(args.func)
