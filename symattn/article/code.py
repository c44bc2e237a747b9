"""Program text in an article's code: which lines are the program, which print results.

A code line that assigns, imports, defines or comments is the program: its numbers are its
constants and inputs, not printed results. A comment that holds a printout (``# tensor([[…``)
is output, a line with Markdown emphasis (``**Total:** 40.04``) is text, and a trailing
comment (``[2., 7., 1.5],  # Output 1``) is not part of the printout before it.

>>> program(Line(1, "x = torch.tensor([0.1, 0.2])", "code")), program(Line(2, "# tensor([[0.5]])", "code"))
(True, False)
>>> program(Line(3, "**Total:** 40.04", "code")), program(Line(4, "y = x ** 2", "code"))
(False, True)
>>> without_comment(Line(5, "[2., 7., 1.5],  # Output 1", "code")).text
'[2., 7., 1.5],'
"""

from __future__ import annotations

import re
from dataclasses import replace

from .source import Line

_STATEMENT = re.compile(r"^\s*(?:[A-Za-z_][\w.\[\], ]*\s*[-+*/@]?=(?!=)|import\s|from\s|def\s|class\s|"
                        r"for\s|while\s|if\s|return\b|print\(|#|//|>>>)")
_PRINTED_COMMENT = re.compile(r"^\s*#+\s*(?:[^\W\d][\w '()-]{0,40}:\s*(?=tensor\(|array\(|\[))?"   # ``# Raw scores: [[…``
                              r"(?:tensor\(|array\(|\[|\(?-?\d[\d.,e+\- ]*\]|-?\d+\.\d*\s*$)")
_EMPHASIS = re.compile(r"\*\*[^*\s][^*]*\*\*")
_TRAILING_COMMENT = re.compile(r"(?<=[\])0-9,.])\s+#(?!\w*\[).*$")


_MATH = re.compile(r"[√≈²³⁻✅✓×÷·→∑]")      # no Python: a computation worked by hand


def program(line: Line) -> bool:
    """Is ``line`` program text (its numbers are the program's, not printed results)? A
    line written in a code block with the signs of hand arithmetic (``std_dev = √0.1325 =
    0.364``, ``new_mean = … ≈ 0.000 ✅``) is no program: it works a step out."""
    if line.kind != "code" or _PRINTED_COMMENT.match(line.text):
        return False
    if _MATH.search(without_comment(line, labelled=False).text.split("#")[0]):
        return False
    power = "**" in _EMPHASIS.sub("", line.text)
    return bool(_STATEMENT.match(line.text) or power)


_ASSIGNS = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)\s*=\s*(?:torch\.tensor\(|np\.array\()?"
                      r"[\s\[\]()\d.,eE+\-]*\)?\s*(?:#.*)?$")     # numbers, brackets, commas only


def literal_results(lines: list, names) -> set:
    """The lines of program text that write a literal result into one of ``names`` (the
    steps of the example: ``balanced = [-1.5, -0.5, 0.5, 1.5]``): their numbers are printed
    results under that name, not the program's constants. A name the program assigns
    again or updates (``res = 0.`` then ``res += …``) holds program state instead; a formula
    that only defines it before (``Weights = softmax(Scaled)`` over ``Weights = [[0.27, …``)
    is no such assignment."""
    written: dict = {}                       # name -> [(line, literal?, updated?)]
    for ln in lines:
        if ln.kind == "code":
            for name, op in re.findall(r"^\s*([A-Za-z_]\w*)\s*([-+*/@]?=)(?!=)", ln.text):
                written.setdefault(name, []).append((ln.number, bool(_ASSIGNS.match(ln.text)), op != "="))
    return {ln.number for ln in lines if ln.kind == "code" and (m := _ASSIGNS.match(ln.text))
            and m.group("name") in names and _once(written[m.group("name")], ln.number)}


def _once(assigned: list, line: int) -> bool:
    """Is the literal on ``line`` the name's one value: no other literal, no update, no
    formula after it?"""
    return all(at == line or (not literal and not updated and at < line) for at, literal, updated in assigned)


_LABELLED = re.compile(r"\s*#\s*(?:[^\W\d_][\w ]{0,30}?[^\W\d_])\s*[:=]\s*[~≈]?\s*-?\.?\d")


def without_comment(line: Line, labelled: bool = True) -> Line:
    """A code or output line without its trailing comment, unless the comment labels a
    number of its line (``# Range: ~2.75``, ``# Mean=6.5``: a sentence about it) and
    ``labelled`` keeps such comments."""
    if line.kind not in ("code", "output"):
        return line
    m = _TRAILING_COMMENT.search(line.text)
    if m is None or (labelled and _LABELLED.match(line.text, m.start())):
        return line
    return replace(line, text=line.text[:m.start()],
                   columns=line.columns[:m.start()] if line.columns else None,
                   lines=line.lines and line.lines[:m.start()])


PRINTED_BESIDE = re.compile(r"\s*print\(.*\)\s*#\s*(?:tensor|array)?\(?\s*\[*\s*[-+]?\.?\d")


def comment_of(line: Line, printout: bool = False) -> Line | None:
    """The trailing comment of a program line, when it labels a number (``unbalanced =
    [5, 6, 7, 8]  # Mean=6.5``) or, with ``printout`` (a step is said to be printed there),
    is the printout of the line's print (``print(x + y)  # tensor([5., 7., 9.])``), as the
    only text of its line (columns kept); else None."""
    m = _TRAILING_COMMENT.search(line.text)
    if m is None or not (_LABELLED.match(line.text, m.start()) or printout and PRINTED_BESIDE.match(line.text)):
        return None
    return replace(line, text=" " * m.start() + line.text[m.start():])
