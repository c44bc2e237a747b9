"""An inferred example that does not load (a step naming what nothing defines: a defect of
the inference) is said in one line and left unchecked; the article's other examples are
still checked, never the whole run ended with an error about a file the user never wrote."""

from __future__ import annotations

from symattn.cli import inferred as cli_inferred
from symattn.infer import Inferred

GOOD = ('[example]\nid = "good"\ntitle = "good"\nsource = "post.md"\n\n[inputs]\nx = [[1, 2]]\n\n'
        '[[steps]]\nname = "y"\nexpr = "x * 2"\nline = 3\n')
BAD = GOOD.replace('"good"', '"bad"').replace('expr = "x * 2"', 'expr = "exp * 2"')


def test_an_inconsistent_example_is_said_and_skipped(tmp_path, monkeypatch, capsys):
    (tmp_path / "post.md").write_text("# post\n\ny = [2, 4]\n", encoding="utf-8")
    made = [Inferred("bad", [str(tmp_path / "post.md")], BAD, str(tmp_path)),
            Inferred("good", [str(tmp_path / "post.md")], GOOD, str(tmp_path))]
    monkeypatch.setattr("symattn.infer.infer", lambda articles, folder=None, skipped=None: made)
    specs = cli_inferred.infer_specs([str(tmp_path / "post.md")])
    assert [s.id for s in specs] == ["good"]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "example bad was inferred inconsistently" in err[0] and "exp" in err[0]
