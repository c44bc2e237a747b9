"""The layout of a rendered step: displayed equations, written-out rows broken into lines.

Generic: nothing here knows an operation. A :class:`Display` is one ``aligned`` chain of
``lhs &= rhs`` rows; :func:`row_lines` breaks a written-out row ``[e_1, e_2, …]`` into
lines of about ``LINE_WIDTH`` printed characters.
"""

from __future__ import annotations

import re

from .step_forms import Tex
from .latex_values import Numbers, symbol, label_text

LINE_WIDTH = 64             # printed characters on one line of a written-out row


class Display:
    """One displayed equation: rows ``lhs &rel rhs`` of an ``aligned`` environment."""

    def __init__(self):
        self.rows: list[tuple[str, str, str]] = []

    def add(self, lhs: str, rel: str, rhs: str) -> "Display":
        self.rows.append((lhs, rel, rhs))
        return self

    def cont(self, rel: str, rhs: str | None) -> "Display":
        """Continue the chain: ``&= rhs``; a repeat of the previous right side is dropped."""
        if rhs is None:
            return self
        if self.rows and self.rows[-1][2].strip() == rhs.strip():
            return self
        self.rows.append(("", rel, rhs))
        return self

    def add_lines(self, lhs: str, rel: str, parts: list[str]) -> "Display":
        """A new chain whose first right side is broken over several lines."""
        self.rows.append((lhs, rel, parts[0]))
        for p in parts[1:]:
            self.rows.append(("", "", r"\quad " + p))
        return self

    def lines(self, rel: str, parts: list[str]) -> "Display":
        """A right side broken over several lines."""
        if not parts:
            return self
        self.cont(rel, parts[0])
        for p in parts[1:]:
            self.rows.append(("", "", r"\quad " + p))
        return self

    def latex(self) -> str:
        body = []
        for lhs, rel, rhs in self.rows:
            body.append(f"{lhs} &{rel} {rhs}".strip() if rel else f"{lhs} &{rhs}")
        return "\\begin{aligned}\n" + " \\\\\n".join(body) + "\n\\end{aligned}"

    def __bool__(self):
        return bool(self.rows)


def rel(approx: bool) -> str:
    return r"\approx" if approx else "="


def printed_tex(text: str) -> str:
    """An article's printed number as LaTeX (for the struck-through original)."""
    from ..numbers import normalize_minus
    s = normalize_minus(str(text)).replace("≈", "").replace("~", "").strip()
    s = s.replace("−∞", r"-\infty").replace("∞", r"\infty").replace("％", "%")
    s = s.replace("%", r"\%").replace(",", "{,}")
    if all(ch in "0123456789.+-eE\\%{},infty " for ch in s):
        return s
    return label_text(text)


_WIDTH_DROP = re.compile(r"\\(left|right|bigl|bigr|mathrm|text|operatorname)\b|[{}]")
_WIDTH_ONE = re.compile(r"\\(cdot|odot|infty|top|sigma|mu|varepsilon|gamma|beta|sqrt|quad|,|;|\ )")
_FRAC = re.compile(r"\\frac\{([^{}]*)\}\{([^{}]*)\}")


def width(tex: str) -> int:
    """A rough count of the characters ``tex`` prints (for breaking long lines)."""
    tex = _FRAC.sub(lambda m: "x" * max(len(m.group(1)), len(m.group(2))), tex)
    tex = _WIDTH_ONE.sub("x", tex)
    tex = _WIDTH_DROP.sub("", tex)
    tex = re.sub(r"\\[A-Za-z]+", "xx", tex)
    return len(tex.replace(" ", ""))


def row_lines(entries: list[Tex]) -> list[str]:
    """A written-out row ``[e_1, e_2, …]`` broken into lines of about ``LINE_WIDTH``
    printed characters; a single long sum breaks between its terms."""
    pieces: list[tuple[str, int, bool]] = []       # (text, width, ends an entry)
    for e in entries:
        w = width(e.text)
        if w > LINE_WIDTH and e.terms:
            chunk, cw, chunks = [], 0, []
            for text, _ in e.terms:
                tw = width(text) + 1
                if chunk and cw + tw > LINE_WIDTH:
                    chunks.append(chunk)
                    chunk, cw = [], 0
                chunk.append(text)
                cw += tw
            chunks.append(chunk)
            for k, c in enumerate(chunks):
                pieces.append(((" + " if k else "") + " + ".join(c), LINE_WIDTH + 1,
                               k == len(chunks) - 1))
        else:
            pieces.append((e.text, w, True))
    sep = ",\\ "
    single = len(entries) == 1
    lines, cur, used = [], "", 0
    for k, (text, w, ends) in enumerate(pieces):
        if cur and (used + w > LINE_WIDTH or w > LINE_WIDTH):
            lines.append(cur)
            cur, used = "", 0
        cur += text
        used += w + 2
        if ends and not single and k < len(pieces) - 1:
            cur += sep
    lines.append(cur)
    lines = [l for l in lines if l]
    if not single:
        if len(lines) == 1:
            open_, close = "\\left[", "\\right]"
        elif any("\\frac" in l for l in lines):
            open_, close = "\\Bigl[", "\\Bigr]"
        else:
            open_, close = "\\bigl[", "\\bigr]"
        lines[0] = open_ + lines[0]
        lines[-1] = lines[-1] + close
    return lines


# -- Jupyter: named steps of the engine -------------------------------------------------

def steps_latex(steps, digits: int = 4) -> str:
    """``$$ name = value … $$`` for a :class:`~symattn.steps.Steps` (its ``_repr_latex_``)."""
    from .latex_values import tensor_latex
    numbers = Numbers()
    d = Display()
    for name, t in steps.flat().items():
        d.add(symbol(name.replace(".", "_")).latex(), "=",
              tensor_latex(t, digits, numbers=numbers))
    return "$$" + d.latex() + "$$"
