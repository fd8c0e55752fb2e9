"""``check`` reports a CI job can archive: which tool judged, and for each violation its rule and spec section."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import REAL_TRACES, REPO
from loopspec.cli import main
from loopspec.rules.catalogue import load_spec
from loopspec.rules.shipped import package_version, spec_digest

EXAMPLES = REPO / "examples" / "logs"
INVALID = sorted((EXAMPLES / "invalid").glob("*.events.jsonl"))


def _heading_line(section: str) -> str:
    """The heading a ``spec/FILE.md#anchor`` section points to, found by its anchor."""
    file, anchor = section.split("#")
    for line in (REPO / file).read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            slug = re.sub(r"[^\w\- ]", "", line[3:].strip().lower()).replace(" ", "-")
            if slug == anchor:
                return line
    raise AssertionError(f"{section}: no heading has that anchor")


def test_json_names_the_tool_and_each_violated_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--all", "--format", "json", *map(str, INVALID)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["tool"] == {"name": "loopspec", "version": package_version(), "spec_digest": spec_digest()}
    spec = load_spec()
    violations = [v for log in report["logs"] for v in log["violations"]]
    assert len(violations) >= len(INVALID)
    for v in violations:
        rule = spec.get(v["rule"])
        assert rule is not None, v["rule"]
        assert v["rule_text"] == rule.rule
        assert v["spec_section"].startswith("spec/")
        assert v["spec_section"].endswith(f"#{rule.anchor}")
        assert _heading_line(v["spec_section"]).startswith(f"## {v['rule']} — ")


def test_text_and_junit_point_at_the_spec_section(capsys: pytest.CaptureFixture[str]) -> None:
    log = EXAMPLES / "invalid" / "TURN-5-blocked-turn-chains.events.jsonl"
    section = load_spec().get("TURN-5")
    assert section is not None
    assert main(["check", str(log)]) == 1
    assert f"see: {section.section}" in capsys.readouterr().out
    assert main(["check", "--format", "junit", str(log)]) == 1
    root = ET.fromstring(capsys.readouterr().out)
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props == {"loopspec.version": package_version(), "loopspec.spec_digest": spec_digest()}
    failure = root.find("./testsuite/testcase/failure")
    assert failure is not None
    assert failure.text is not None
    assert section.section in failure.text


@pytest.mark.parametrize("fmt", ["text", "json", "junit"])
def test_manifest_honours_format(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    assert main(["check", "--format", fmt, "--manifest", str(EXAMPLES / "manifest.json")]) == 0
    out = capsys.readouterr().out
    count = len(json.loads((EXAMPLES / "manifest.json").read_text(encoding="utf-8"))["logs"])
    if fmt == "json":
        report = json.loads(out)
        assert report["tool"]["spec_digest"] == spec_digest()
        assert report["summary"] == {"examples": count, "as_expected": count, "mismatched": 0}
        assert all(e["ok"] and e["mismatch"] is None for e in report["examples"])
        invalid = [e for e in report["examples"] if e["expected"]["verdict"] == "invalid"]
        assert all(e["result"]["violations"][0]["rule"] == e["expected"]["rule"] for e in invalid)
    elif fmt == "junit":
        root = ET.fromstring(out)
        assert len(root.findall("./testsuite/testcase")) == count
        assert root.get("failures") == "0"
    else:
        assert f"manifest: {count}/{count} example(s) as expected" in out


@pytest.mark.parametrize("fmt", ["json", "junit"])
def test_manifest_mismatch_in_each_format(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    (tmp_path / "a.events.jsonl").write_bytes(INVALID[0].read_bytes())
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"logs": [{"file": "a.events.jsonl", "verdict": "valid"}]}), encoding="utf-8")
    assert main(["check", "--format", fmt, "--manifest", str(manifest)]) == 1
    out = capsys.readouterr().out
    if fmt == "json":
        (example,) = json.loads(out)["examples"]
        assert not example["ok"]
        assert example["mismatch"].startswith("expected valid, got invalid")
    else:
        assert ET.fromstring(out).get("failures") == "1"


def test_an_empty_manifest_is_not_a_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "m.json"
    manifest.write_text('{"logs": []}', encoding="utf-8")
    assert main(["check", "--manifest", str(manifest)]) == 2
    assert "lists no example logs" in capsys.readouterr().err


def test_json_of_a_valid_run_still_names_the_tool(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--format", "json", str(REAL_TRACES)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tool"]["version"] == package_version()
    assert report["summary"]["valid"] == report["summary"]["logs"] > 0
