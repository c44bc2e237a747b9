"""`symattn check` as a CI gate: the pre-commit hook on a throw-away repository, GitHub
workflow commands, JUnit XML, SARIF 2.1.0 and the exit statuses (0 right, 1 wrong, 2 unusable).

The fixture (tests/test_fix.py's): softmax([1, 0])[0] = 1/(1+e⁻¹) = 0.731059 printed 0.7411
at line 2, and 2 × 0.7411 = 1.4822 printed for 1.4621 at line 3."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from test_fix import SPEC, cli

ROOT = Path(__file__).resolve().parents[1]
ARTICLE = "weights\nA = [0.7411, 0.2689]\nZ = [1.4822, 1.0756]\n"
RIGHT = "weights\nA = [0.7311, 0.2689]\nZ = [1.4621, 1.0756]\n"


def _example(d: Path, article: str = ARTICLE, name: str = "a.md") -> None:
    (d / "s.toml").write_text(SPEC.format(name=name, l1=1, l2=2, l3=3).replace('printed = "[0.7411, 0.2689]"\n', "")
                              .replace('printed = "[1.4822, 1.0756]"\n', "").split("[[claims]]")[0])
    (d / name).write_text(article)


def test_exit_statuses(tmp_path):
    (tmp_path / "s.toml").write_text(SPEC.format(name="a.md", l1=1, l2=2, l3=3))
    (tmp_path / "a.md").write_text(ARTICLE)
    assert cli("check", "s.toml", "--article", "a.md", cwd=tmp_path).returncode == 1
    (tmp_path / "s.toml").write_text(SPEC.format(name="a.md", l1=1, l2=2, l3=3)
                                     .replace("0.7411", "0.7311").replace("1.4822", "1.4621"))
    (tmp_path / "a.md").write_text(RIGHT)
    assert cli("check", "s.toml", "--article", "a.md", cwd=tmp_path).returncode == 0
    bad = cli("check", "missing.toml", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_report_exits_like_check(tmp_path):
    (tmp_path / "s.toml").write_text(SPEC.format(name="a.md", l1=1, l2=2, l3=3))
    (tmp_path / "a.md").write_text(ARTICLE)
    done = cli("report", "s.toml", "--article", "a.md", "-o", "r.html", cwd=tmp_path)
    assert done.returncode == 1 and (tmp_path / "r.html").is_file()
    assert cli("report", "002-counts", "-o", "c.html", cwd=tmp_path).returncode == 0
    assert cli("report", "missing.toml", "-o", "m.html", cwd=tmp_path).returncode == 2


def _github_lines(stdout: str) -> list[tuple[str, dict, str]]:
    out = []
    for line in stdout.splitlines():
        if line.startswith("::"):
            kind, rest = line[2:].split(" ", 1)
            props, message = rest.split("::", 1)
            out.append((kind, dict(p.split("=", 1) for p in props.split(",")), message))
    return out


def test_github_workflow_commands(tmp_path):
    (tmp_path / "s.toml").write_text(SPEC.format(name="a.md", l1=1, l2=2, l3=3))
    (tmp_path / "a.md").write_text(ARTICLE)
    done = cli("check", "s.toml", "--article", "a.md", "--format", "github", cwd=tmp_path)
    assert done.returncode == 1
    got = _github_lines(done.stdout)
    errors = [(p["file"], p["line"], p.get("col"), m) for k, p, m in got if k == "error"]
    assert errors == [("a.md", "2", "6", "A[a, a] printed 0.7411, expected 0.7311: digit slip: 0.7411 for 0.7311"),
                      ("a.md", "3", "6", "Z[a, 0] printed 1.4822, expected 1.4621: follows from the "
                                        "wrong number printed at line 2")]
    assert [k for k, _, _ in got].count("notice") == 1          # 1.0756 is carried
    assert done.stdout.splitlines()[-1] == "1 example, 4 printed numbers: 1 correct, 1 carried, 2 wrong"


def test_github_escapes_what_would_end_a_command(tmp_path):
    """A step label with ',' and ':' (property separators) is escaped %2C / %3A in file=."""
    d = tmp_path / "a,b:c"
    d.mkdir()
    (d / "s.toml").write_text(SPEC.format(name="a.md", l1=1, l2=2, l3=3))
    (d / "a.md").write_text(ARTICLE)
    done = cli("check", "s.toml", "--article", str(d / "a.md"), "--format", "github", cwd=d)
    first = [x for x in done.stdout.splitlines() if x.startswith("::error")][0]
    assert "a%2Cb%3Ac/a.md" in first and ",line=2," in first


def test_junit_xml(tmp_path):
    (tmp_path / "s.toml").write_text(SPEC.format(name="a.md", l1=1, l2=2, l3=3))
    (tmp_path / "a.md").write_text(ARTICLE)
    done = cli("check", "s.toml", "--article", "a.md", "--junit-xml", "j.xml", cwd=tmp_path)
    assert done.returncode == 1
    root = ET.parse(tmp_path / "j.xml").getroot()
    suite, = root.findall("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("4", "2")
    failed = {c.get("name"): c.find("failure").get("message") for c in suite if c.find("failure") is not None}
    assert set(failed) == {"A[a, a] line 2", "Z[a, 0] line 3"}
    assert "expected 0.7311" in failed["A[a, a] line 2"]


SARIF_SHAPE = {      # the parts of the SARIF 2.1.0 schema (OASIS) a result viewer reads
    "type": "object", "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"}, "$schema": {"type": "string"},
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["tool"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"}, "version": {"type": "string"},
                                   "rules": {"type": "array", "items": {
                                       "type": "object", "required": ["id"]}}}}}},
                "results": {"type": "array", "items": {
                    "type": "object", "required": ["message"],
                    "properties": {
                        "ruleId": {"type": "string"}, "ruleIndex": {"type": "integer", "minimum": -1},
                        "level": {"enum": ["none", "note", "warning", "error"]},
                        "message": {"type": "object", "required": ["text"]},
                        "locations": {"type": "array", "items": {"type": "object", "properties": {
                            "physicalLocation": {"type": "object", "required": ["artifactLocation"],
                                                 "properties": {
                                "artifactLocation": {"type": "object", "required": ["uri"]},
                                "region": {"type": "object", "properties": {
                                    "startLine": {"type": "integer", "minimum": 1},
                                    "startColumn": {"type": "integer", "minimum": 1}}}}}}}}}}}}}}},
}


def test_sarif(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    (tmp_path / "s.toml").write_text(SPEC.format(name="a.md", l1=1, l2=2, l3=3))
    (tmp_path / "a.md").write_text(ARTICLE)
    done = cli("check", "s.toml", "--article", "a.md", "--sarif", "out.sarif", cwd=tmp_path)
    assert done.returncode == 1
    log = json.loads((tmp_path / "out.sarif").read_text())
    jsonschema.validate(log, SARIF_SHAPE)
    run, = log["runs"]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    placed = [(rules[r["ruleIndex"]], r["ruleId"], r["level"],
               r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]]
    assert placed == [("wrong-number", "wrong-number", "error", 2),
                      ("wrong-number", "wrong-number", "error", 3),
                      ("carried-number", "carried-number", "note", 3)]
    assert cli("check", "s.toml", "--article", "a.md", "--sarif", "out.sarif", cwd=tmp_path).returncode == 2


def test_notebook_annotations_point_into_the_json(tmp_path):
    """For a notebook, line and column are those of the number in the .ipynb file itself."""
    from test_fix import NOTEBOOK
    text = json.dumps(NOTEBOOK, indent=1) + "\n"
    (tmp_path / "a.ipynb").write_text(text)
    (tmp_path / "s.toml").write_text(SPEC.format(name="a.ipynb", l1=1001, l2=1003, l3=2501))
    done = cli("check", "s.toml", "--article", "a.ipynb", "--format", "github", cwd=tmp_path)
    errors = [p for k, p, _ in _github_lines(done.stdout) if k == "error"]
    lines = text.splitlines()
    for p in errors:
        row = lines[int(p["line"]) - 1]
        assert row[int(p["col"]) - 1:].startswith(("0.7411", "1.4822")), (p, row)


# -- pre-commit ----------------------------------------------------------------------------

def _hook_as_local() -> dict:
    """The hook of .pre-commit-hooks.yaml as a `repo: local` hook run from this checkout
    (language system: no virtualenv to build, no network)."""
    import yaml
    hook, = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "symattn-check" and hook["entry"] == "symattn check"
    return dict(hook, language="system", args=["s.toml", "--article", "a.md"])


@pytest.mark.skipif(shutil.which("git") is None, reason="git missing")
def test_pre_commit_refuses_a_commit_with_a_wrong_number(tmp_path):
    pytest.importorskip("pre_commit")
    import yaml
    repo = tmp_path / "repo"
    repo.mkdir()
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "symattn").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m symattn "$@"\n')
    (bin_ / "symattn").chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_}{os.pathsep}{os.environ['PATH']}",
               PRE_COMMIT_HOME=str(tmp_path / "cache"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")

    def run(*cmd):
        return subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True)

    run("git", "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(
        {"repos": [{"repo": "local", "hooks": [_hook_as_local()]}]}))
    (repo / "s.toml").write_text(SPEC.format(name="a.md", l1=1, l2=2, l3=3))
    (repo / "a.md").write_text(ARTICLE)
    assert run(sys.executable, "-m", "pre_commit", "install").returncode == 0
    run("git", "add", "-A")
    refused = run("git", "commit", "-qm", "with a wrong number")
    assert refused.returncode != 0, refused.stdout + refused.stderr
    said = refused.stdout + refused.stderr                     # git shows a hook's output on stderr
    assert "symattn check" in said and "Failed" in said and "expected 0.7311" in said
    assert run("git", "rev-parse", "HEAD").returncode != 0          # nothing was committed
    fixed = run("symattn", "check", "s.toml", "--article", "a.md", "--fix", "--in-place", "--force")
    assert fixed.returncode == 1 and (repo / "a.md").read_text() == RIGHT
    spec = (repo / "s.toml").read_text().replace("0.7411", "0.7311").replace("1.4822", "1.4621")
    (repo / "s.toml").write_text(spec)
    run("git", "add", "-A")
    done = run("git", "commit", "-qm", "numbers right")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout + done.stderr
