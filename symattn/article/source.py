"""An article as readers see it: lines of text, each at its place in the source file.

Every reader (plain text, Markdown, LaTeX, HTML, Jupyter notebooks) turns a file into a
list of :class:`Line`; the number tokenizer (:mod:`symattn.article.tokens`) then reads the
numbers of each line and keeps their source line and column.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    """One line of an article's text.

    ``number`` is the record's ``line``: the 1-based line of the source file (for a
    notebook, the stable integer its reader documents; ``where`` says it in words).
    ``text`` is what a reader sees on that line (for HTML, the text without tags, entities
    decoded). ``columns[k]`` is the 1-based source column of ``text[k]``; ``None`` means
    ``text`` is the source line itself (column = k + 1). ``kind`` is one of ``text``,
    ``math``, ``code``, ``table``, ``output`` (a notebook's or a console's printed output).
    ``lines[k]``, when not ``None``, is the 1-based source line of ``text[k]`` (an HTML
    table row whose cells stand on several source lines is one Line, numbered by its first;
    each number keeps the line it is printed on). ``quiet`` holds (start, end) spans of ``text`` whose numbers print nothing of the
    computation (TikZ coordinates, plotting calls: :mod:`symattn.article.quiet`).
    """
    number: int
    text: str
    kind: str = "text"
    columns: tuple | None = None
    where: str = ""
    quiet: tuple = ()
    nest: tuple = ()              # brackets open at the line's start (symattn.article.nesting)
    approx: int = 0               # a block written after ≈ open at its start (the same module)
    lines: tuple | None = None

    def column(self, k: int) -> int:
        """The 1-based source column of ``text[k]``."""
        if self.columns is None:
            return k + 1
        return self.columns[k] if k < len(self.columns) else (self.columns[-1] + 1 if self.columns else 1)

    def line_at(self, k: int) -> int:
        """The 1-based source line of ``text[k]``."""
        if self.lines is None or not self.lines:
            return self.number
        return self.lines[min(k, len(self.lines) - 1)]

    def source_lines(self) -> set:
        """The source lines it holds text of."""
        return set(self.lines) if self.lines else {self.number}

    def place(self) -> str:
        return self.where or f"line {self.number}"
