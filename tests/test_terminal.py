"""Terminal habits, as a user meets them: `symattn ...` in a subprocess.

Quiet by default like pytest, `-v` for every number; colour only on a terminal (NO_COLOR,
FORCE_COLOR); no abbreviated options and "did you mean"; `-` for standard input; bundled
example names; progress on stderr only; shell completion; one version."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from test_fix import SPEC

ROOT = Path(__file__).resolve().parents[1]
ESC = "\x1b["


def cli(*args, cwd=None, env=None, stdin=None):
    full = dict(os.environ, **(env or {}))
    for k in ("NO_COLOR", "FORCE_COLOR"):
        if k not in (env or {}):
            full.pop(k, None)
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          cwd=cwd, env=full, input=stdin)


def test_quiet_by_default_and_every_number_with_v():
    quiet = cli("check", "002-counts")                   # a bundled example by its name
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout == "1 example, 2 printed numbers: 2 correct, 0 carried, 0 wrong\n"
    loud = cli("check", "002-counts", "-v")
    assert [l.split()[0] for l in loud.stdout.splitlines() if l.startswith("    ")] == ["✓", "✓"]
    assert loud.stdout.splitlines()[-1] == quiet.stdout.strip()


def test_quiet_lists_what_is_not_correct(tmp_path):
    (tmp_path / "s.toml").write_text(SPEC.format(name="a.md", l1=1, l2=2, l3=3))
    out = cli("check", "s.toml", cwd=tmp_path).stdout
    marks = [l.split()[0] for l in out.splitlines() if l.startswith("    ")]
    assert marks == ["✗", "↳", "✗", "≈"]                 # 0.2689 (correct) is not listed


def test_colour_only_on_a_terminal_or_when_forced(tmp_path):
    (tmp_path / "s.toml").write_text(SPEC.format(name="a.md", l1=1, l2=2, l3=3))
    assert ESC not in cli("check", "s.toml", cwd=tmp_path).stdout
    forced = cli("check", "s.toml", cwd=tmp_path, env={"FORCE_COLOR": "1"}).stdout
    assert ESC in forced
    plain = cli("check", "s.toml", cwd=tmp_path).stdout
    import re
    assert re.sub(r"\x1b\[[0-9;]*m", "", forced) == plain   # the same text, coloured
    assert ESC not in cli("check", "s.toml", cwd=tmp_path, env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout


def test_no_abbreviations_and_did_you_mean():
    r = cli("check", "002-counts", "--prob")
    assert r.returncode == 2 and "unrecognized arguments: --prob" in r.stderr
    assert "did you mean '--problems'?" in r.stderr and r.stderr.count("\n") == 1
    r = cli("chek")
    assert r.returncode == 2 and "did you mean 'check'?" in r.stderr
    r = cli("compare", "002-causal-mask", "--step", "Zn", "--reference", "x.npy")
    assert r.returncode == 2 and "did you mean 'Zm'?" in r.stderr


def test_did_you_mean_for_operations_and_names(tmp_path):
    (tmp_path / "s.toml").write_text(SPEC.format(name="a.md", l1=1, l2=2, l3=3)
                                     .replace('"softmax(X @ X.T)"', '"sofmax(X @ X.T)"'))
    r = cli("check", "s.toml", cwd=tmp_path)
    assert r.returncode == 2 and "unknown operation 'sofmax'; did you mean 'softmax'?" in r.stderr
    (tmp_path / "s.toml").write_text(SPEC.format(name="a.md", l1=1, l2=2, l3=3)
                                     .replace('"A @ V"', '"A @ Vx"'))
    r = cli("check", "s.toml", cwd=tmp_path)
    assert r.returncode == 2 and "unknown name 'Vx'; did you mean 'V'?" in r.stderr
    (tmp_path / "s.toml").write_text(SPEC.format(name="a.md", l1=1, l2=2, l3=3)
                                     .replace('step = "Z"', 'step = "Zz"'))
    r = cli("check", "s.toml", cwd=tmp_path)
    assert r.returncode == 2 and "did you mean 'Z'?" in r.stderr


def test_standard_input_for_the_spec_and_the_article(tmp_path):
    spec = SPEC.format(name="a.md", l1=1, l2=2, l3=3)
    (tmp_path / "s.toml").write_text(spec)
    (tmp_path / "a.md").write_text("weights\nA = [0.7411, 0.2689]\nZ = [1.4822, 1.0756]\n")
    from_file = cli("check", "s.toml", "--article", "a.md", "--json", cwd=tmp_path)
    from_stdin = cli("check", "-", "--article", "a.md", "--json", cwd=tmp_path, stdin=spec)
    assert from_stdin.returncode == 1, from_stdin.stderr
    import json
    a, b = json.loads(from_file.stdout), json.loads(from_stdin.stdout)
    assert a["summary"] == b["summary"] and a["summary"]["wrong"] == 2
    (tmp_path / "s2.toml").write_text(spec.replace('source = "a.md"\n', ""))
    article = cli("check", "s2.toml", "--article", "-", "--json", cwd=tmp_path,
                  stdin="weights\nA = [0.7411, 0.2689]\nZ = [1.4822, 1.0756]\n")
    assert article.returncode == 1, article.stderr
    assert json.loads(article.stdout)["summary"] == a["summary"]


def test_progress_never_on_stdout_nor_on_a_piped_stderr():
    piped = cli("check")
    assert piped.stderr == ""                          # stderr not a terminal: no bar
    leader, follower = pty.openpty()                   # stderr a terminal, stdout a pipe
    try:
        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
        r = subprocess.run([sys.executable, "-m", "symattn", "check"], stdout=subprocess.PIPE,
                           stderr=follower, text=True, env=env)
    finally:
        os.close(follower)
        os.close(leader)
    assert r.stdout == piped.stdout and ESC not in r.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completion_completes_commands_and_options(tmp_path):
    script = cli("--print-completion", "bash").stdout
    (tmp_path / "c.bash").write_text(script)

    def complete(*words):
        line = " ".join(words)
        code = (f"source c.bash; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
                f"COMP_LINE='{line}'; COMP_POINT={len(line)}; "
                f"_shtab_symattn symattn {words[-1]} {words[-2]}; echo \"${{COMPREPLY[@]}}\"")
        return subprocess.run(["bash", "-c", code], cwd=tmp_path, capture_output=True,
                              text=True).stdout.split()
    assert complete("symattn", "ch") == ["check"]
    assert complete("symattn", "check", "--fix-c") == ["--fix-carried"]


def test_one_version_from_pyproject():
    want = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert cli("--version").stdout.strip() == f"symattn {want}"
    r = subprocess.run([sys.executable, "-c", "import symattn; print(symattn.__version__)"],
                       capture_output=True, text=True)
    assert r.stdout.strip() == want
