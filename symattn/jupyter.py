"""symattn in Jupyter: ``%load_ext symattn`` gives the ``%%symattn`` cell magic.

The cell holds a spec's TOML; it is checked as ``symattn check`` checks a file and shown
step by step, handcalcs-like: each step's LaTeX with the numbers substituted (as MathML),
then a table of its printed numbers, the wrong ones highlighted with what to print and the
diagnosis. ``%%symattn --article FILE`` checks the article's numbers too (a notebook: the
saved file, so save first); ``--article`` alone means this notebook, when Jupyter tells its
path (``JPY_SESSION_NAME``, or VS Code's ``__vsc_ipynb_file__``). ``--no-diagnosis`` skips
the search for the mistake. The cell's value is a :class:`CellCheck` (``_`` holds it);
an unusable spec is one line on standard error, no traceback.

IPython is imported only here, when the extension is loaded: symattn does not need it.

>>> from symattn.jupyter import check_cell
>>> r = check_cell('[example]\\nid = "x"\\n[inputs]\\nX = { value = [[1]] }\\n'
...                '[[steps]]\\nname = "Y"\\nexpr = "X + X"\\n'
...                '[[claims]]\\nstep = "Y"\\nat = [0, 0]\\nprinted = "3"\\nline = 1\\n')
>>> [(c.printed, c.expected, c.verdict) for c in r.records]
[('3', '2', 'wrong')]
"""

from __future__ import annotations

import os
import shlex

from .errors import SpecError, SymattnError

CELL = "%%symattn"          # the spec's name in messages: "%%symattn:4: ..."


class CellCheck:
    """What a ``%%symattn`` cell found: ``records`` (as ``check --json`` gives them),
    ``unmatched`` article numbers, and ``summary`` (a :class:`~symattn.claims.check.Summary`)."""

    def __init__(self, spec, records: list, unmatched: list):
        from .claims.check import Summary
        self.spec, self.records, self.unmatched = spec, records, unmatched
        self.summary = Summary(examples=1)
        for r in records:
            self.summary.add(r)

    @property
    def wrong(self) -> list:
        return [r for r in self.records if r.verdict == "wrong"]

    def __repr__(self) -> str:
        from .render.report import format_report
        return format_report(self.records, self.summary).rstrip("\n")

    def _repr_html_(self) -> str:
        from .render.html.collect import step_mathml
        from .render.html.jinja import render
        from .render.report import summary_line
        steps = []
        math = step_mathml(self.spec)
        for s in self.spec.steps:
            mine = [r for r in self.records if r.step == s.name]
            if mine:
                steps.append({"name": s.name, "math": _markup(math.get(s.name, [])),
                              "records": mine})
        return render("jupyter.html.j2", what="check", spec=self.spec, steps=steps,
                      summary=summary_line(self.summary), unmatched=self.unmatched,
                      n_wrong=len(self.wrong))


def _markup(mathml: list):
    from markupsafe import Markup
    return [Markup(m) for m in mathml]          # rebuilt from a whitelist by to_mathml


def check_cell(cell: str, line: str = "", user_ns: dict | None = None) -> CellCheck:
    """Check the spec TOML ``cell`` with the magic's options ``line``."""
    from .cli.check import check_all
    from .spec.load import load
    args = _options(line, user_ns or {})
    spec = load(CELL, cell)
    records, unmatched = check_all([spec], args["articles"], diagnose=args["diagnose"])
    return CellCheck(spec, records, unmatched)


def _options(line: str, user_ns: dict) -> dict:
    try:
        words = shlex.split(line)
    except ValueError as e:
        raise SpecError(f"cannot read the options: {e}", where=CELL,
                        hint="write %%symattn [--article FILE] [--no-diagnosis]") from None
    out = {"articles": [], "diagnose": True}
    k = 0
    while k < len(words):
        w = words[k]
        if w == "--no-diagnosis":
            out["diagnose"] = False
        elif w == "--article":
            if k + 1 < len(words) and not words[k + 1].startswith("--"):
                out["articles"].append(words[k + 1])
                k += 1
            else:
                out["articles"].append(this_notebook(user_ns))
        else:
            raise SpecError(f"unknown option '{w}'", where=CELL,
                            hint="write %%symattn [--article [FILE]] [--no-diagnosis]")
        k += 1
    return out


def this_notebook(user_ns: dict) -> str:
    """The running notebook's file, as Jupyter or VS Code tells it."""
    for path in (user_ns.get("__vsc_ipynb_file__"), user_ns.get("__session__"),
                 os.environ.get("JPY_SESSION_NAME")):
        if path and str(path).endswith(".ipynb") and os.path.isfile(str(path)):
            return str(path)
    raise SpecError("cannot tell which file this notebook is", where=CELL,
                    hint="name it: %%symattn --article NAME.ipynb (saved first)")


def symattn_magic(line: str, cell: str, shell=None):
    """The ``%%symattn`` cell magic: the check's result, or one line on stderr. Lines are
    counted as Jupyter counts the cell's (the ``%%symattn`` line is line 1)."""
    from .cli.output import say
    try:
        return check_cell("\n" + cell, line, getattr(shell, "user_ns", None))
    except SymattnError as e:
        say(str(e))
        return None


def load_ipython_extension(ipython) -> None:
    """``%load_ext symattn``: register the ``%%symattn`` cell magic."""
    ipython.register_magic_function(lambda line, cell: symattn_magic(line, cell, ipython),
                                    magic_kind="cell", magic_name="symattn")
