"""Weights an article states by name rather than prints as a block of its own: an input of
the inference, never a block to derive.

Three ways of stating them, each read from one line (Markdown escapes ``\\[`` ``\\_`` read
as the characters they escape):

* ``W_Q2 = W_K2 = W_V2 = [[0, 1], [1, 0]]`` — one matrix, every name on the left;
* ``W^O = \\frac{1}{2} \\cdot [[1, 0, 1, 0], [0, 1, 0, 1]]`` (or ``1/2 * [[...]]``) — a
  whole-number fraction times a matrix: the products, exact;
* ``W_Q1 = W_K1 = W_V1 = Identity matrix`` — names and words, the matrix printed on the
  next lines (a block of the article reading that nothing names).

A name's *role* is what the weight projects to (:func:`role`): ``W_Q1`` the queries of head
1, ``w_key`` the keys, ``W^O`` the output projection; the attention chain
(:mod:`.heads`) takes weights by their roles.
"""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

import numpy as np

from ..article import markdown
from ..article.cells import Printed, as_matrix, parse_list
from ..article.matrices import find
from .blocks import Block, floats_of, spec_name
from .written import arithmetic_text

MAX_STATED = 40            # stated weights read from one article (the first ones)
NEXT_LINES = 2             # a block named by words: within this many lines after them

_NAME = r"[A-Za-z]\w*(?:\^\{?\w+\}?)?(?:_\{?\w+\}?)?"
_NAMES = re.compile(rf"((?:(?<![\w\\]){_NAME}\s*=\s*)+)")
_FRACTION = r"(?:\\[dt]?frac\s*(?:\{\s*(?P<n>\d+)\s*\}|(?P<n1>\d))\s*(?:\{\s*(?P<d>\d+)\s*\}|(?P<d1>\d))" \
            r"|(?P<n2>\d+)\s*/\s*(?P<d2>\d+))"   # \frac{1}{2}, \tfrac12, 1/2
_FACTOR = re.compile(rf"\s*{_FRACTION}\s*(?:\\cdot|\*|·|×)?\s*"
                     r"(?:\\text\{|\\left)?\s*(?=\[\s*\[)")
_WORDS = re.compile(r"\s*[A-Za-z][A-Za-z ]*$")          # ``Identity matrix``: no number
_ROLES = {"q": "q", "query": "q", "queries": "q", "k": "k", "key": "k", "keys": "k",
          "v": "v", "value": "v", "values": "v", "o": "o", "out": "o", "output": "o"}


def unescaped(text: str) -> str:
    """The text as Markdown renders its escapes (``\\[`` → ``[``, ``W\\_Q`` → ``W_Q``): in any
    article, as a plain text may be Markdown's too."""
    return markdown.unescaped(text, markdown.ALL)[0]


def role(name: str) -> tuple[str, str] | None:
    """(role, head) of a weight's name: ``W_Q1`` → ("q", "1"), ``W^{K}_2`` and ``W_2^K`` →
    ("k", "2"), ``w_value`` → ("v", ""), ``W^O`` → ("o", ""); None for a name that is no
    weight's."""
    t = name.strip()
    m = re.fullmatch(r"[Ww][_^{]*([A-Za-z]+)[}_^{]*(\d*)\}?", t)
    w, head = (m.group(1), m.group(2)) if m else ("", "")
    if not m:                                   # the head first: W_1^Q, W_{2}^{K}
        m = re.fullmatch(r"[Ww]_\{?(\d+)\}?\^\{?([A-Za-z]+)\}?", t)
        w, head = (m.group(2), m.group(1)) if m else ("", "")
    return (_ROLES[w.lower()], head) if w.lower() in _ROLES else None


def _names(left: str) -> tuple:
    return tuple(n for n in (x.strip() for x in left.split("=")) if n)


def _scaled(p: tuple, num: int, den: int) -> tuple:
    """(values, texts) of the matrix (values, texts) times num/den, exact."""
    f = Fraction(num, den)
    values = tuple(tuple(Fraction(v) * f for v in r) for r in p[0])
    return values, tuple(tuple(_text(v) for v in r) for r in values)


def _text(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f'"{v.numerator}/{v.denominator}"'


def _on_line(text: str) -> list[tuple[tuple, tuple, tuple]]:
    """(names, values, texts) of each matrix the line states by name."""
    out = []
    for m in _NAMES.finditer(text):
        names, at = _names(m.group(1)), m.end()
        f = _FACTOR.match(text, at)
        start = f.end() if f else at
        if not text.startswith("[", start):
            continue
        value, _ = parse_list(text, start)
        mat = as_matrix(value) if value and isinstance(value[0], list) else None
        if mat is None:
            continue
        if f:
            num, den = _ratio(f)
            if den == 0:
                continue
            mat = _scaled(mat, num, den)
        out.append((names, *mat))
    return out


def stated(lines: list) -> list[tuple[tuple, Printed]]:
    """(names, printed) of every weight the article's ``lines`` state by name, in line order;
    only names of which one has a role (:func:`role`)."""
    out = []
    for ln in lines:
        for names, values, texts in _on_line(unescaped(ln.text)):
            out.append((names, Printed(names[0], ln.number, values, texts, None, "list")))
    words = {}
    for ln in lines:
        t = unescaped(ln.text).strip()
        m = _NAMES.match(t)
        if m and m.end() < len(t) and _WORDS.fullmatch(t[m.end():]):
            words[ln.number] = _names(m.group(1))
    for p in find(lines):
        near = [n for n in range(p.line - NEXT_LINES, p.line) if n in words]
        if not p.name and near:
            out.append((words[near[-1]], Printed(words[near[-1]][0], p.line, p.values, p.texts, None, "list")))
    out = [(n, p) for n, p in out if any(role(x) for x in n)]
    return sorted(out, key=lambda x: x[1].line)[:MAX_STATED]


def with_stated(found: list[Block], parts: list[tuple[str, list]]) -> list[Block]:
    """The blocks ``found`` with the stated weights among them (``given``: the names the
    text gives; a found block on the same line with the same numbers is that weight),
    renumbered in reading order."""
    extra = []
    for path, lines in parts:
        _scaled_latex(found, path, lines)
        for names, p in stated(lines):
            same = next((b for b in found if b.path == path and b.line == p.line
                         and b.printed.values == p.values), None)
            if same is not None:                # named by the first of its names, as the text states it
                same.given = names
                first = spec_name(names[0])
                if first and same.name != first and first not in {b.name for b in found}:
                    same.name = first
                continue
            floats = floats_of(p.values)
            extra.append(Block(spec_name(names[0]) or "W", p, 0, path, floats,
                               np.zeros(floats.shape), "", names[0], given=names))
    if not extra:
        return found
    order = {path: k for k, (path, _) in enumerate(parts)}
    both = sorted(found + extra, key=lambda b: (order.get(b.path, 0), b.line, b.index))
    used = {b.name for b in found}
    for b in extra:
        b.name = fresh(b.name, used)
    return [replace(b, index=i) for i, b in enumerate(both)]


_LATEX_FACTOR = re.compile(rf"(?<![\w\\])({_NAME})\s*=\s*{_FRACTION}\s*(?:\\cdot|\\times)?\s*(?:\\left\s*)?"
                           r"\\begin\s*\{")


def _ratio(m: re.Match) -> tuple[int, int]:
    """(numerator, denominator) of a :data:`_FRACTION` matched."""
    return (int(m.group("n") or m.group("n1") or m.group("n2")),
            int(m.group("d") or m.group("d1") or m.group("d2")))


def _scaled_latex(found: list[Block], path: str, lines: list) -> None:
    """A LaTeX matrix the text states as a whole-number fraction of one (``W_1 =
    \\frac12\\begin{bmatrix}1 & -1 …``, the only matrix on its line) is that fraction's
    products, exact, a given by that name (in place in ``found``)."""
    texts = {ln.number: arithmetic_text(ln) for ln in lines if getattr(ln, "kind", "text") != "code"}
    used = {b.name for b in found}
    for b in found:
        text = texts.get(b.line, "")
        m = _LATEX_FACTOR.search(text)
        if b.path != path or b.printed.form != "latex" or b.given or m is None or text.count("\\begin") != 1:
            continue
        num, den = _ratio(m)
        if den == 0:
            continue
        values, texts_of = _scaled((b.printed.values, b.printed.texts), num, den)
        b.printed = replace(b.printed, values=values, texts=texts_of)
        b.floats, b.half = floats_of(values), np.zeros(b.floats.shape)
        b.given = (m.group(1),)
        name = spec_name(m.group(1))
        if name and name != b.name and name not in used:
            used.discard(b.name)
            b.name = name
            used.add(name)


def fresh(base: str, used: set) -> str:
    """``base``, or ``base_2``, ``base_3``… : the first not in ``used`` (then added to it)."""
    name, k = base, 2
    while name in used:
        name, k = f"{base}_{k}", k + 1
    used.add(name)
    return name


def code_names(found: list[Block], parts: list[tuple[str, list]]) -> list[Block]:
    """An unlabelled printout (``M308``) named as the program line just above it assigns
    or prints it (``print(keys)``, ``outputs = weighted_values.sum(dim=0)``:
    :func:`symattn.article.prints.assignment_above`), where no other block has that name:
    the name the article check then places the printout by."""
    from ..article.prints import assignment_above
    from .masks import is_unmasked, name_unmasked
    used = {b.name for b in found}
    by_path = {path: {ln.number: ln for ln in lines} for path, lines in parts}
    in_order = _printed_in_order(found, by_path)
    for b in found:
        if b.label or b.given or is_unmasked(b) or b.path not in by_path:
            continue
        name = spec_name(in_order.get(b.index) or assignment_above(by_path[b.path], b.line) or "")
        if name and name not in used:
            used.add(name)
            b.name = name
    name_unmasked(found, {b.name for b in found if not is_unmasked(b)})   # after the masked print's name
    return found


def _printed_in_order(found: list[Block], by_path: dict) -> dict:
    """Block index -> the name printed for it, where the printouts after one program are
    as many as its prints (``print(Q)``, ``print(K)``, ``print(V)``: the k-th block the
    k-th name)."""
    from ..article.prints import prints_above
    runs: dict = {}
    for b in found:
        if b.path in by_path and b.parent is None and not b.printed.form == "prose":
            end, names = prints_above(by_path[b.path], b.line)
            if end and names:
                runs.setdefault((b.path, end), (names, []))[1].append(b)
    out = {}
    for names, blocks in runs.values():
        if len(blocks) == len(names):
            out.update({b.index: n for b, n in zip(blocks, names) if n})
    return out
