"""Placing a printed block where its label says: the entries of the tensor it names.

A block whose label names a tensor (:mod:`symattn.article.labels`) and whose shape fits
the part of it the label names is a claim on those entries whatever its values: right,
carried, consistent or wrong, as the checker finds. Values still choose among the
tensors a label may name (``X`` for the steps ``X`` and ``X_toy``), and a label whose
row or column is only an index (``P_{0,1}``: 0- or 1-based is not said) or only a prefix
of a step's name counts only where values agree with it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .labels import (Target, Index, label_text, by_caption, by_name, caption_above, label_after,
                     parse, resolve)
from .prints import assignment_above, printed_as
from . import rows_named
from .align import taken
from .match import Cell, Matcher
from .code import without_comment
from .tokens import fold, numbers_in
from ..spec.expr import names

_AFTER_OP = re.compile(r"(?:=|≈|⋅|·|×|\*|@|\+|\\cdot|\\times|\\approx|\s-\s)")
_EMPHASIS = re.compile(r"\*\*|(?:(?<=\s)|^)\*(?=\w)|(?<=\w)\*(?=[\s.,;:!?]|$)")   # Markdown *word*
_CLOSERS = re.compile(r"\\end\{[A-Za-z*]+\}|\\right[\])]?|\\[,;!]|\\\\")
_KWARG = re.compile(r",\s*[A-Za-z_]\w*=[^,()\[\]]*")   # tensor(1.2, dtype=torch.float32)
_REMARK = re.compile(r"\((?=[^()]*[^\W\d_]{2})[^()]*\)")  # (should be ≈1): a remark, not an operation
_OPENS_LINE = re.compile(r"^[\s#>*`$|]*(?:tensor\(|array\(|\\begin\{[bpvBV]?matrix\}|[\[(])*\s*$")


def place(m: Matcher, g, lines: dict) -> dict | None:
    """``{id(number): (Cell, number)}`` for group ``g`` as its label places it, or None
    when the text names no tensor that the block fits."""
    first = g.numbers[0]
    if not _ends_chain(g):
        return None
    if "|" in first.line_text or "\t" in first.line_text:
        cells = _by_headers(m, g) or _by_columns(m, g)
        if cells is not None:
            return cells
    targets, table_row, weak = label_targets(m, g, lines)
    if not targets:
        return rows_named.place(m, g)
    best, maybe = None, {}
    lead = rows_named.lead(m, first)
    for t in targets:
        rows = m.spec.tensors[t.tensor].rows or ()
        if t.row is None and lead in rows and list(rows).count(lead) == 1:
            t = t._replace(row=list(rows).index(lead))   # "Hello": […]  # Range: ~2.75
        cells = _fit(m, t, g, table_row)
        if isinstance(cells, Unsure):
            if t.exact and not weak:
                for k, cs in cells.likely.items():
                    maybe.setdefault(k, []).extend(cs)
            continue
        if t.tensor in m.spec.inputs:
            if t.exact or (cells and all(m.rounds_to(n, c) for c, n in cells.values())):
                return None               # an input printed: the values say which (a step may equal it)
            continue                      # P_toy for the label P: a prefix names it only if it prints it
        if cells is None:
            continue
        right = sum(m.rounds_to(n, c, loose=True) for c, n in cells.values())
        about = _about_its_line(m, t.tensor, first)
        sure = not weak and (t.exact or len(targets) == 1 and (right > 0 or _said_here(m, t.tensor, first))) \
            and not _by_index(t) and about
        if not sure and right * 2 <= len(cells):
            if t.exact and not weak and about:
                for k, (c, _) in cells.items():
                    maybe.setdefault(k, []).append(c)
            continue                                # a prefix or an index: values must agree
        key = (right, sure, -m.order[t.tensor])
        if best is None or key > best[0]:
            best = (key, cells)
    if best is None:
        return Unsure(maybe) if maybe else rows_named.place(m, g)
    right, cells = best[0][0], best[1]
    few = first.approximate and right == 0 or \
        right * 2 <= len(cells) and not any(_whole(m, c) for c, _ in cells.values())
    if few and all(n.integer for n in g.numbers):
        return None               # ≈ [1, 0] and no entry agrees, or [1, 0, 1] where no entry is
    return cells                  # whole and most disagree: not enough (~2.88 says its places)


def _said_here(m: Matcher, name: str, n) -> bool:
    """May number ``n``'s line print step ``name`` though only its operation names it
    there (``→ softmax: […]``) and none of its entries agree? Not where the step was
    printed whole already on the line its spec says (its block): elsewhere that caption is
    the operation on other numbers. (A spec's ``line`` that no print of the step is on,
    a program's, says nothing.)"""
    line = m.hints.get(name)
    return line is None or line == n.line or not any(
        g.numbers[0].line == line and any(c.name == name for c, _ in cells.values()) for g, cells in taken(m))


def _whole(m: Matcher, c: Cell) -> bool:
    """Is the entry at ``c`` (its approximate value) within 0.01 of a whole number?"""
    v = float(m.approx[c.name][c.i][c.j])
    return abs(v - round(v)) < 0.01


def _by_headers(m: Matcher, g):
    """A table's cells placed by their row's first cell and their column's header when
    these are the row and column labels of a step (``| A | ML | love |`` over rows ``ML``,
    ``love``: in the table's order, whatever the step's); among steps with those labels
    the values choose, and when they agree with none of several, Unsure; but the step the
    spec says the table prints (its ``line``, a row a line) is the one.""" 
    keys = []
    for n in g.numbers:
        row, col = _cell_text(_first_cell(n.line_text)), _cell_text(m.header(n, n.line_text))
        if not row or not col:
            return None
        keys.append((n, row, col))
    fits = []
    for name, t in m.spec.tensors.items():
        if not t.rows or not t.cols or m.approx.get(name) is None:
            continue
        for flip in (False, True):
            rl, cl = (t.cols, t.rows) if flip else (t.rows, t.cols)
            if not all(rl.count(r) == 1 and cl.count(c) == 1 for _, r, c in keys):
                continue
            cells = {id(n): (Cell(name, *((cl.index(c), rl.index(r)) if flip else
                                          (rl.index(r), cl.index(c)))), n) for n, r, c in keys}
            right = sum(m.rounds_to(n, c, loose=True) for c, n in cells.values())
            fits.append(((right, not flip, -m.order[name]), name, cells))
    if fits and max(fits, key=lambda f: f[0])[1] in m.spec.inputs and \
            2 * max(fits, key=lambda f: f[0])[0][0] > len(keys):
        return None                       # an input printed: the values say which
    fits = [f for f in fits if f[1] not in m.spec.inputs]
    if not fits:
        return None
    said = [f for f in fits if f[0][1] and _printed_here(m, f[1], f[2])]
    if len(said) == 1:
        return said[0][2]                 # the step the spec says this table prints, row by row
    key, name, cells = max(fits, key=lambda f: f[0])
    if 2 * key[0] <= len(cells) and len({f[1] for f in fits}) > 1:
        return Unsure({id(n): [f[2][id(n)][0] for f in fits] for n in g.numbers})
    return cells


def _printed_here(m: Matcher, name: str, cells: dict) -> bool:
    """Does the spec say step ``name`` is printed from the line its first row is on (its
    ``line``), each cell on the line of its row?"""
    hint = m.hints.get(name)
    return hint is not None and all(n.line - hint == c.i for c, n in cells.values())


def _by_columns(m: Matcher, g):
    """A table whose column headers name vectors (``i | x_i | normalised``): each column
    that a header names a step of one row (or one column) prints its entries, a table row
    each; a column of whole numbers (the rows' numbers) and a column of an input print no
    claim. None unless some column is placed and every other is one of those."""
    rows = g.rows
    if len(rows) < 2 or len({len(r) for r in rows}) != 1 or any(n is None for r in rows for n in r):
        return None
    cells, placed = {}, False
    for p in range(len(rows[0])):
        column = [r[p] for r in rows]
        header, start = m.table_place(column[0], column[0].line_text)
        name = _header_name(header) if header else None
        named = [t for t in resolve(name, m.spec) if t.exact and t.row in (None, -1)] if name else []
        if not named:
            if all(n.integer for n in column):
                continue                               # the rows' numbers
            return None
        t = m.spec.tensors[named[0].tensor]
        if named[0].tensor in m.spec.inputs:
            continue
        if 1 not in t.shape or start + len(column) > t.shape[0] * t.shape[1]:
            return None
        cells.update({id(n): (Cell(named[0].tensor, *((0, start + k) if t.shape[0] == 1 else (start + k, 0))), n)
                      for k, n in enumerate(column)})
        placed = True
    return cells if placed else None


def _first_cell(text: str) -> str:
    sep = "\t" if "\t" in text else "|"
    parts = [p for p in fold(text).strip().strip("|").split(sep)]
    return parts[0] if parts else ""


def _cell_text(cell: str) -> str:
    return re.sub(r"\\text\{([^{}]*)\}", r"\1", cell).strip().strip("$*`'\" ").strip()


RESTATED_WITHIN = 6              # lines between a block and the labelled one it repeats


def restated(g, placed: list) -> dict | None:
    """The cells of a placed block that prints exactly what ``g`` prints (two or more
    numbers, not all whole), a few lines away or, when ``g`` is too particular to be printed
    again by chance, anywhere: ``= [2.0, 7.0, 1.5]`` under a sum, then "the resulting vector
    [2.0, 7.0, 1.5] is Output 1"; ``P = [0.71, 0.23, 0.06]``, then the same in prose: the
    same entries, right or wrong."""
    printed = [[n and n.printed for n in r] for r in g.rows]
    if len(g.numbers) < 2 or all(n.integer for n in g.numbers):
        return None
    anywhere = _distinctive(g.numbers)
    for h, cells in placed:
        if (anywhere or abs(h.line - g.line) <= RESTATED_WITHIN) and h is not g and \
                [[n and n.printed for n in r] for r in h.rows] == printed:
            return same_entries(g, h, cells)
    return None


def _distinctive(numbers: list) -> bool:
    """Too particular to be printed again by chance: all with decimals, five significant
    digits in all."""
    return not any(n.integer for n in numbers) and sum(n.significant for n in numbers) >= 5


def same_entries(g, h, cells: dict) -> dict:
    """The cells of block ``h`` (``cells``, as placed) for block ``g`` of its shape, number
    by number: ``g`` prints what ``h`` prints."""
    return {id(n): (cells[id(k)][0], n) for n, k in zip(g.numbers, h.numbers) if id(k) in cells}


def _about_its_line(m: Matcher, name: str, n) -> bool:
    """For a number in the trailing comment of a line that prints a vector (``"Hello":
    [-0.41, 0.14, -1.24, 1.51]  # Range: ~2.75``): is step ``name`` computed right from
    that vector (a row of one of its operands)? The comment speaks of the vector; a range
    of the raw embeddings is not the step ``ranges`` of the normalised ones. True for any
    other number."""
    line = (getattr(m, "source", None) or {}).get(n.line)
    step = m.spec.step(name)
    if line is None or step is None or "#" not in fold(n.line_text[:n.start]):
        return True
    printed = numbers_in(without_comment(line, labelled=False))
    if not printed or printed[-1].start >= n.start:
        return True
    for d in names(step.tree) & set(m.spec.tensors):
        t = m.spec.tensors[d]
        if m.approx.get(d) is None or t.shape[1] != len(printed):
            continue
        if any(all(m.rounds_to(x, Cell(d, i, p), loose=True) or m.near_print(x, Cell(d, i, p))
                   for p, x in enumerate(printed)) for i in range(t.shape[0])):
            return True
    return False


def _by_index(t: Target) -> bool:
    return isinstance(t.row, Index) or isinstance(t.col, Index)


def label_targets(m: Matcher, g, lines: dict) -> tuple[list, int | None, bool]:
    """The tensors the text may say the block prints, the table row it stands in, and
    whether the saying is weak: a program's variable (a notebook reuses its names for
    other values, so only values that agree with it count)."""
    first = g.numbers[0]
    text = first.line_text
    lhs = said = label_text(text, first.start)
    header, row = m.table_place(first, text) if lhs is None and fold(text).count("|") >= 2 else ("", None)
    if header:
        name = _header_name(header)
        if name is None:
            return [], None, False
        return resolve(name, m.spec), row, False
    source = getattr(m, "source", None) or lines
    caption, weak = None, False
    if lhs is None and _OPENS_LINE.match(fold(text[:first.start])):
        lhs = assignment_above(source, first.line)
        weak = lhs is not None and _assigned(m, source, lhs) > 1
        caption = None if lhs or _in_computation(source, first.line) else caption_above(source, first.line)
    if said is not None and first.kind in ("output", "code"):
        program = printed_as(source, said)           # print(f"Variance: {variance:.3f}")
        got = [t for t in resolve(parse(program), m.spec) if t.exact] if program else []
        if got:                                      # the step of the program's name itself
            return got, None, _assigned(m, source, program) > 1
    if lhs is not None:
        name = parse(lhs)
        got = resolve(name, m.spec) if name is not None else []
        phrase = " " in lhs.strip() and not any(t.exact for t in got)   # Normalized std: 1.0
        if (got and not phrase) or not re.search(re.escape(lhs) + r"\s*[:：]", fold(text)):
            return got, None, weak
        caption = lhs                               # Original stds per token: tensor([…])
        if got:
            return by_caption(caption, m.spec, m.last_result) or got, None, weak
    if caption:
        return by_caption(caption, m.spec, m.last_result), None, False
    after = label_after(text, g.numbers[-1].end) if lhs is None else None
    return (by_name(after, m.spec) if after else []), None, False


_BETWEEN_BLOCKS = re.compile(r"[\])]\s*(?:[x×*·⋅@+=-]|\\cdot|\\times)\s*[\[(]")


def _in_computation(source: dict, line: int, ahead: int = 4) -> bool:
    """Is the block that opens ``line`` one row of a matrix written out in a computation
    (``[0, 0, 1]`` over ``[1, 0, 1, 0] x [1, 1, 0] = [0, 1, 1]``)? Then the caption above
    speaks of the computation's result, not of this operand."""
    for k in range(line, line + ahead):
        ln = source.get(k)
        if ln is None or not ln.text.strip():
            return False
        if _BETWEEN_BLOCKS.search(fold(ln.text)):
            return True
    return False


def _assigned(m: Matcher, source: dict, name: str) -> int:
    """How many lines of the example assign the program variable ``name`` (a notebook that
    reassigns a name prints other values under it)."""
    memo = m.__dict__.setdefault("_assigned", {})
    if name not in memo:
        pattern = re.compile(r"^\s*" + re.escape(name) + r"\s*=(?!=)")
        memo[name] = sum(bool(pattern.match(ln.text)) for ln in source.values())
    return memo[name]


def _header_name(header: str):
    """The tensor a table column's header names: its math (``Positional Encoding $P_i$``)
    or a lone name (``weights``)."""
    math = re.findall(r"\$([^$]+)\$", header)
    text = math[-1] if math else header.strip()
    name = parse(text)
    if name is None or (not math and " " in text.strip()):
        return None
    return name


def _ends_chain(g) -> bool:
    """Is the block the last value of its equation (nothing is computed from it after it on
    its line)? ``Q = x·W = [0.8, 1.2]·W = [0.92, 1.24]``: only the last block is Q."""
    last = g.numbers[-1]
    after = _CLOSERS.sub(" ", _KWARG.sub(" ", _REMARK.sub(" ", fold(last.line_text[last.end:]))))
    after = after.split("#")[0] if "#" in after else after
    return _AFTER_OP.search(_EMPHASIS.sub("", after)) is None


def _fit(m: Matcher, t: Target, g, table_row: int | None) -> dict | None:
    """The cells of tensor ``t`` the block prints, by position, if its shape fits."""
    rows_n, cols_n = m.spec.tensors[t.tensor].shape
    rows = g.rows
    if t.row is None and table_row is not None and len(g.numbers) == 1 and 1 in (rows_n, cols_n) \
            and table_row < rows_n * cols_n:             # a table column prints a vector, a row each
        return mapped(t.tensor, rows, lambda k, p: (0, table_row) if rows_n == 1 else (table_row, 0))
    row = table_row if t.row == -1 else t.row
    if t.row == -1 and table_row is None:
        return None
    if row is None and len(rows) == 1 and rows_n > 1 and len(rows[0]) == cols_n and not t.transposed:
        return _row_of(m, t.tensor, rows[0])
    if row is not None:
        if len(rows) != 1 or not 0 <= row < rows_n:
            return None
        if t.col is not None:
            return mapped(t.tensor, rows, lambda k, p: (row, t.col)) if len(g.numbers) == 1 else None
        return mapped(t.tensor, rows, lambda k, p: (row, p)) if len(rows[0]) == cols_n else None
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        return None
    width = widths.pop()
    if t.transposed and (len(rows), width) == (cols_n, rows_n):
        return mapped(t.tensor, rows, lambda k, p: (p, k))
    if (len(rows), width) == (rows_n, cols_n):
        return mapped(t.tensor, rows, lambda k, p: (k, p))
    if len(rows) == 1 and cols_n == 1 and width == rows_n:
        return mapped(t.tensor, rows, lambda k, p: (p, 0))
    return None


class Unsure(NamedTuple):
    """The text names what the block prints, not which entries: ``likely`` maps each
    number (by id) to the entries it may print."""
    likely: dict


def _row_of(m: Matcher, name: str, row: list):
    """The cells of the one row of ``name`` that the printed row agrees with most, entry by
    entry (more than half of it); Unsure when no row agrees so or two rows of other values
    agree as well (``q_rot = [0, 2, 3, 1]`` near the rows of positions 0 and 1 alike)."""
    t = m.spec.tensors[name]
    scores = []
    for i in range(t.shape[0]):
        cells = mapped(name, [row], lambda k, p: (i, p))
        scores.append((sum(m.rounds_to(n, c, loose=True) for c, n in cells.values()), i, cells))
    top = max(s[0] for s in scores)
    best = [s for s in scores if s[0] == top]
    values = {tuple(m.approx[name][i]) for _, i, _ in best}
    if 2 * top <= sum(n is not None for n in row) or len(values) > 1:
        return Unsure({id(n): [Cell(name, i, p) for i in range(t.shape[0])]
                       for p, n in enumerate(row) if n is not None})
    return best[0][2]


def mapped(name: str, rows: list, where) -> dict:
    return {id(n): (Cell(name, *where(k, p)), n) for k, r in enumerate(rows)
            for p, n in enumerate(r) if n is not None}


def whole_block(m: Matcher, g) -> dict | None:
    """A block of several rows that prints a whole step (its shape, or its transpose's),
    every entry right or near it (within a quarter: carried, or a slip; one in eight may be
    far off when half are right), a row or a third of the entries right: every entry is a
    claim on that step, right or wrong.
    Among such steps the one it prints most rows and entries of right, then the earlier.
    None when the best is an input (a printout of an input) or nothing fits."""
    rows = g.rows
    if len(rows) < 2 or len({len(r) for r in rows}) != 1 or any(n is None for r in rows for n in r):
        return None
    shape = (len(rows), len(rows[0]))
    best = None
    for name, t in m.spec.tensors.items():
        if m.approx.get(name) is None:
            continue
        for flip in (False, True):
            if (t.shape[::-1] if flip else t.shape) != shape or (flip and shape[0] == shape[1] == 1):
                continue
            cells = mapped(name, rows, (lambda k, p: (p, k)) if flip else (lambda k, p: (k, p)))
            right = {id(n): prints_right(m, n, c) for c, n in cells.values()}
            far = sum(not (right[id(n)] or m.near_print(n, c)) for c, n in cells.values())
            whole = sum(all(right[id(n)] for n in r) for r in rows)
            key = (whole, sum(right.values()), not flip, -m.order[name])
            if far and (far > len(cells) // 8 or 2 * key[1] < len(cells)):
                continue                  # far-off entries: another tensor, unless a slip or two
            if (whole or 3 * key[1] >= len(cells)) and (best is None or key > best[0]):
                best = (key, name, cells)
    if best is None or best[1] in m.spec.inputs:
        return None
    return best[2]


def prints_right(m: Matcher, n, c) -> bool:
    """Does ``n`` print entry ``c``? A printout's ``1.`` is the float 1 exactly (torch and
    NumPy print 0.5517 otherwise), not 0.55 rounded to no decimals."""
    return m.equals(n, c) if n.text.endswith(".") else m.rounds_to(n, c)


def pattern(g) -> bool:
    """A printout of a pattern, not of values: several rows of whole numbers printed
    without decimals taking at most two values, one of them 0 (a ``torch.tril`` mask, a
    dropout of ones, a 0/1 keep mask)."""
    if len(g.rows) < 2 or any(n is None or n.neg_inf for r in g.rows for n in r):
        return False
    values = {n.value for r in g.rows for n in r}
    return len(values) <= 2 and 0 in values and all(
        n.integer or n.text.endswith(".") for r in g.rows for n in r)
