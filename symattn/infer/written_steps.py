"""The arithmetic an article writes out (:mod:`.written`) as steps of its inferred example.

Each written function or expression is a step of one entry: the function (a declared
primitive) of its numbers, each taken as the entry of the nearest block before it that
prints it (``-log(p[0, 2])``), else as an earlier written result it prints, else as written;
it joins the example of the blocks it takes (a :class:`.chains.Chain` of that block). A dot
product worked by hand takes a row and a column of earlier blocks (:func:`_dot`), and the
terms written between it and its result are steps too (:func:`_terms`). The result as
printed is the step's claim: the check judges it, right or wrong.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import replace
from fractions import Fraction

from ..article.tokens import fold
from .blocks import Block
from .chains import Chain
from .written import ARITHMETIC, NO_END, NUMBER, TEMPLATE, Written, arithmetic_text, continues, written

def written_steps(found: list[Block], parts: list, shown: dict, in_example: set, used: set,
                  derived=None, reprinted=frozenset(), onto: dict | None = None) -> Chain:
    """Add the arithmetic written in the article (``parts``: (path, lines)) to ``shown``
    (block index -> :class:`.chains.Chain`) as steps of the nearest block before it that
    prints one of its decimals (those blocks operands), or, with its numbers as written, of
    the nearest block before it in an example (``in_example``: indices); ``used``: the names
    taken. Arithmetic on an entry of a block that a step (``derived``: block index ->
    :class:`.search.Derivation`, or the chains') computes whole (``exp(z)``) is that step's
    already; an entry of rows worked together as a derived block is computed (``[0.0+0.909,
    …]`` of ``X = E + P``) is a claim on that block's entry, put in ``onto`` (block index ->
    (name, at, printed, line), as :func:`.spec_out.echoed` gives). A block that prints
    another's numbers again (``reprinted``: indices) is no operand: taken, its print would be
    an input. Returns the chain of the arithmetic on numbers as written before any block of
    an example (``e^{2.0} = 7.389`` in an article that prints no block): the article's
    example when it has no other."""
    writing = _Writing(found, shown, in_example, used, derived or {}, {} if onto is None else onto)
    done: set = set()
    for path, lines in parts:
        earlier = [b for b in found if b.path in done and _origin(b, reprinted)]   # the files before
        here = [b for b in found if b.path == path and _origin(b, reprinted)]
        done.add(path)
        listed = _listed(lines)
        for w in written(lines):
            before = earlier + [b for b in here if b.end <= w.line and b.line <= w.line
                                and not (w.strict and b.line == w.line)]   # lists worked together:
                                                                           # their own prints are no origin
            writing.take(w, before, lines, listed)
    return writing.lone


def _result_print(b: Block, w: Written) -> bool:
    """Is ``b`` the list of results of the vector equation ``w`` is an entry of, on its line
    (``[exp(-0.00707), exp(0.0)] ≈ [0.9929, 1.0]``: the list, no operand of the exps)?"""
    texts = b.printed.texts[0] if b.shape[0] == 1 else ()
    return b.line == w.line and 0 <= w.place < len(texts) and texts[w.place].strip() == w.result


def _origin(b: Block, reprinted) -> bool:
    """Can ``b``'s entries be a written expression's operands? A whole block printed once."""
    return b.parent is None and b.again < 0 and b.index not in reprinted


class _Writing:
    """The written arithmetic of one article as it joins the example (:func:`written_steps`):
    the chains' steps it may fall on, the results read so far, and the lone chain."""

    def __init__(self, found: list, shown: dict, in_example: set, used: set, derived: dict, onto: dict):
        self.found, self.shown, self.in_example, self.used = found, shown, in_example, used
        self.derived, self.onto = derived, onto
        self.lone = Chain((), [], 0, (), NO_END)
        self.of_rows = {d.expr: i for i, d in derived.items()}
        steps = [(c, name, expr, line) for c in list(shown.values()) for name, expr, line in c.steps]
        self.covered = {expr for _, _, expr, _ in steps} | set(self.of_rows)
        self.worked = {(line, key): (c, name, expr) for c, name, expr, line in steps
                       for key, form in TEMPLATE.items()
                       if form.endswith(")") and expr.lstrip("-").startswith(form.split("{")[0])}   # a call
        self.chained = {line for _, _, _, line in steps}
        self.sums = {line: (c, name, expr) for c, name, expr, line in steps if _SUM_OF.fullmatch(expr)}
        self.by_expr = {expr: (c, name, expr) for c, name, expr, _ in steps}
        self.results: dict = {}              # a result as printed -> (its step, its chain's block
                                             # or None: the lone chain), the latest
        self.printed: dict = {}              # a result as printed -> every such pair, in order
        self.result_line: dict = {}          # a result as printed -> the line it is written on
        self.last: tuple = ("", ())          # the form and operands of the last step

    def take(self, w: Written, before: list[Block], lines, listed: dict) -> None:
        """One written expression: a claim on a chain's entry, or on a derived block's entry,
        or a step of its own."""
        if self._on_chain(w, before):
            return
        before = [b for b in before if not self._results_of(b) and not _result_print(b, w)]
        got = self._operands(w, before, listed)
        if got is None:
            return
        first, (w, owner, owners, operands, key) = w, got
        whole = _of_rows(w, operands, self.of_rows) or _softmax_row(w, self.found, self.of_rows)
        if whole is not None:                # [0.0+0.909, …] = [0.909, …]: X = E + P's entries
            i, at = whole
            self.onto.setdefault(i, []).append((self.derived[i].block.name, at, w.printed, w.line))
            return
        self._step(first, w, owner, owners, operands, key, lines)

    def _on_chain(self, w: Written, before: list[Block]) -> bool:
        """Is ``w`` a chain's step already (its entry claimed there)?"""
        if (w.line, w.key) in self.worked or (w.key == ARITHMETIC and w.line in self.chained):
            claimed = _entry_claim(w, self.worked.get((w.line, w.key)), before) or \
                _sum_claim(w, self.sums.get(w.line), self.results)
            _remember(w, claimed, self)
            return True                      # √0.1325 = 0.364 where a chain's sqrt(variance) is,
                                             # 2.034 + 1 + 2.034 ≈ 5.068 where its sum of exps is
        whole = [b for b in before if w.key != ARITHMETIC and _entry(b, w.argument) is not None
                 and _expr(w, (b.name,)) in self.covered]
        if whole:                            # e^{2.0} = 7.389 of exp(z), a step already
            claimed = _entry_claim(w, self.by_expr.get(_expr(w, (whole[-1].name,))), before)
            _remember(w, claimed, self)
            return True
        return False

    def _operands(self, w: Written, before: list[Block], listed: dict) -> tuple | None:
        """(the form of ``w`` read, its owner block, the blocks it takes, its operands, the
        owner's index) of the first form of ``w`` whose numbers all have an origin, or None."""
        for as_written in _forms(w):         # a result of the chain the step joins, no other's
            owners = _owners(as_written, before, self.results)
            owner = max(owners, key=lambda b: b.index) if owners else \
                next((b for b in reversed(before) if b.index in self.in_example), None)
            key = None if owner is None else owner.index
            table = {p: name for p, (name, k) in self.results.items() if k == key}
            table.update(self._sibling(as_written, key))
            operands, owners = _operands(as_written, before, table, listed)
            if operands is not None:
                return as_written, owner, owners, operands, key
        return None

    def _results_of(self, b: Block) -> bool:
        """Does the one-row block ``b`` print results written on its own line, each taken up
        as a step's (``[exp(-0.00707), exp(0.0)] ≈ [0.9929, 1.0]``)? Then arithmetic on its
        numbers takes those results, not the list as given."""
        texts = b.printed.texts[0] if b.shape[0] == 1 else ()
        return len(texts) > 1 and all(self.result_line.get(t.strip()) == b.line for t in texts)

    def _sibling(self, w: Written, key) -> dict:
        """The result a print stands for where several results print it (``0.61``: e^{-0.5}
        and p(mat)): the one that goes on from the step before of the same form, operand by
        operand (``o_exp[0, 1] / S`` then ``0.61 / S``: ``o_exp[0, 2]``); else the latest."""
        form, before = self.last
        if form != w.form or len(before) != len(w.numbers):
            return {}
        out = {}
        for x, prev in zip(w.numbers, before):
            names = [name for name, k in self.printed.get(x, ()) if k == key]
            a = _AT.fullmatch(prev)
            nxt = a and {f"{a.group(1)}[{a.group(2)}, {int(a.group(3)) + 1}]",
                         f"{a.group(1)}[{int(a.group(2)) + 1}, {a.group(3)}]"}
            fit = [name for name in names if nxt and name in nxt]
            if len(set(names)) > 1 and len(fit) == 1:
                out[x] = fit[0]
        return out

    def _step(self, first: Written, w: Written, owner, owners: list, operands: tuple, key, lines) -> None:
        """``w`` as a step of its owner's chain (the lone chain without one), its result and
        the terms written after it (``first``: as the text writes it) claimed where printed."""
        from .stated import fresh
        self.in_example.update(b.index for b in owners)
        base = owner.name if owners and w.key != ARITHMETIC else "written"
        named = w.label and w.label not in self.used and not _relabelled(lines, w)
        name = w.label if named else f"{base}_{'neg_' if w.negated else ''}{w.key}"
        step = (fresh(name, self.used), _expr(w, operands), w.line)
        self.last = (w.form, operands)
        chain = self.lone if owner is None else self.shown.setdefault(
            owner.index, Chain(tuple(b.index for b in owners), [], 0, (), NO_END))
        chain.operands += tuple(b.index for b in owners if b.index not in chain.operands)
        chain.steps.append(step)
        chain.claims.append((step[0], w.printed, w.line))    # which number on the line it is
        percent = _as_percent(lines, w)
        if percent:                          # 0.61 (61%): the result again, in percent
            chain.claims.append((step[0], percent, w.line))
        terms = _terms(first, w, operands, self.used)   # a*b + c*d = 0.585 + 1.035 = …: 0.585
        for term, at in zip(terms, _printing(lines, w.line, [t[3] for t in terms]) or ()):
            chain.steps.append(term[:3])
            chain.claims.append((term[0], term[3], at))
        if w.result not in w.numbers:        # sin(0.01) ≈ 0.01: the digits are a given's too
            _result(self, w, step[0], key)            # exp(0.357) of the loss -log(0.70) = 0.357
        chain.end = max(chain.end, w.line)


def _as_percent(lines, w: Written) -> str | None:
    """The percent written right after ``w``'s result in parentheses (``= 0.61 (61%)``), as
    claims print it (``61%``), or None."""
    pattern = re.compile(rf"(?<![\d.]){re.escape(w.result)}\s*\(\s*({NUMBER.pattern})\s*\\?%\s*\)")
    for ln in lines:
        if ln.number == w.line:
            m = pattern.search(arithmetic_text(ln))
            if m:
                return m.group(1) + "%"
    return None


_PRODUCT = re.compile(r"(?:\(\s*)?\{\d+\}(?:\s*\))?\s*\*\s*(?:\(\s*)?\{\d+\}(?:\s*\))?")
_SUM = re.compile(r"\{0\}(?: [+-] \{\d+\})+")


def _terms(written_as: Written, w: Written, operands: tuple, used: set) -> list[tuple]:
    """(name, expr, line, printed) of each product of a sum of products ``w`` is (the form
    the step takes of ``written_as``'s chain of expressions) whose terms the text writes as
    the next expression of the chain (``0.9*0.65 + 1.15*0.9 = 0.585 + 1.035 = 1.620``: 0.585
    is the first product's; a term written after a minus, its magnitude: ``0.101 - 0.154``
    of ``a*b + c*(-d)``). None where the two do not pair up."""
    from .stated import fresh
    parts = [t.strip() for t in w.form.split(" + ")]
    forms = _forms(written_as)
    k = next((i for i, f in enumerate(forms) if f.form == w.form and f.numbers == w.numbers), None)
    if w.key != ARITHMETIC or k is None or k + 1 >= len(forms) or len(parts) < 2 or \
            not all(_PRODUCT.fullmatch(t) for t in parts):
        return []
    nxt = forms[k + 1]
    signs = ["+"] + re.findall(r" ([+-]) ", nxt.form)
    if not _SUM.fullmatch(nxt.form) or len(nxt.numbers) != len(parts):
        return []
    shown = [f"({o})" if o.startswith("-") else o for o in operands]
    out = []
    for t, sign, printed in zip(parts, signs, nxt.numbers):
        expr = t.format(*shown)
        out.append((fresh(f"{w.label or 'written'}_term", used),
                    f"-({expr})" if sign == "-" else expr, w.line, printed))
    return out


def written_claims(chains: list, onto: dict) -> dict:
    """Line -> Counter of the values the written steps of ``chains``, and the written
    entries of derived blocks (``onto``), claim there."""
    from ..claims.printed import parse_printed
    claims = [(printed, line) for c in chains for _, printed, line, *_ in c.claims] + \
        [(printed, line) for got in onto.values() for _, _, printed, line in got]
    out: dict = {}
    for printed, line in claims:
        out.setdefault(line, Counter()).update(e.value for e in parse_printed(printed).entries)
    return out


def _relabelled(lines, w: Written) -> bool:
    """Whether the text gives the name of ``w``'s result to something else too: ``d_scaled =``
    on another line that does not print its result (the same name again in the next chunk
    of a worked loop). Then it names no step: the article check would claim that line's
    numbers as the step's."""
    name = re.compile(rf"(?<![\w\\]){re.escape(w.label)}\s*=")
    return any(ln.number != w.line and name.search(t := fold(ln.text)) and w.result not in NUMBER.findall(t)
               for ln in lines)


def _printing(lines, last: int, numbers: list) -> list | None:
    """The line of each of ``numbers`` in the equation that ends on line ``last`` (it and the
    lines before it that it goes on from): the last that prints it, each print taken once,
    on ``last`` only before its result; None if one of them is printed on none."""
    by_number = {ln.number: ln for ln in lines}
    span, line = [], last
    while line in by_number:
        span.append(line)
        if not continues(arithmetic_text(by_number[line]), by_number[line].kind != "text"):
            break
        line -= 1
    texts = {n: arithmetic_text(by_number[n]) for n in span}
    left = {n: Counter(NUMBER.findall(_before_result(t) if n == last else t)) for n, t in texts.items()}
    out = []
    for x in numbers:
        at = next((n for n in span if left[n][x] > 0), None)
        if at is None:
            return None
        left[at][x] -= 1
        out.append(at)
    return out


def _before_result(text: str) -> str:
    """A line's text before its last ``=`` (``≈``): what is written before its result."""
    cut = max(text.rfind("="), text.rfind("≈"))
    return text[:cut] if cut >= 0 else text


def _entry_claim(w: Written, call, before: list[Block]) -> tuple | None:
    """The result of ``e^{0.45} = 1.586`` where a chain's step computes ``exp(z)`` entry by
    entry and 0.45 prints one entry of ``z`` (once): a claim on that entry of the step, so a
    wrong result is judged there, not left unverified. Returns (chain, that entry: ``z_exp[0,
    1]``), or None."""
    if call is None or w.negated:
        return None
    chain, name, expr = call
    blocks = [b for b in before if re.search(rf"\b{re.escape(b.name)}\b", expr)]
    places = [(b, i, j) for b in blocks for i, j in _places(b, w.argument)]
    if len(places) == 1 and expr == TEMPLATE[w.key].format(places[0][0].name):
        _, i, j = places[0]
        chain.claims.append((name, w.printed, w.line, (i, j)))
        return chain, f"{name}[{i}, {j}]"
    return None


_SUM_OF = re.compile(r"sum\((\w+)\)")


def _sum_claim(w: Written, call, results: dict) -> tuple | None:
    """The result of ``24.53 + 2.72 + 0.61 + 12.18 = 40.04`` where a chain's step on its
    line sums a row (``sum(o_exp)``) and every term is a result taken as an entry of that
    row, each once: a claim on that row's sum. Returns (chain, ``o_sum_exp[0, 0]``), or None."""
    if call is None or not w.form.startswith("{0} + "):
        return None
    chain, name, expr = call
    row = _SUM_OF.fullmatch(expr).group(1)
    at = [_AT.fullmatch(results[x][0]) if x in results else None for x in w.numbers]
    if not all(a is not None and a.group(1) == row for a in at) or len({a.group(2) for a in at}) != 1 \
            or len({a.group(3) for a in at}) != len(at):
        return None
    chain.claims.append((name, w.printed, w.line, (int(at[0].group(2)), 0)))
    return chain, f"{name}[{at[0].group(2)}, 0]"


def _remember(w: Written, claimed: tuple | None, writing: _Writing) -> None:
    """A result claimed on a chain's entry (:func:`_entry_claim`) is that entry where later
    arithmetic takes it up (``Sum = 1.649 + 3.320 + 1.350``)."""
    if claimed is not None:
        chain, entry = claimed
        key = next((k for k, c in writing.shown.items() if c is chain), None)
        _result(writing, w, entry, key)


def _result(writing: _Writing, w: Written, entry: str, key) -> None:
    """``w``'s result as printed is ``entry``'s (of the chain of block ``key``): the latest such."""
    writing.results[w.result] = (entry, key)
    writing.printed.setdefault(w.result, []).append((entry, key))
    writing.result_line[w.result] = w.line


_VECTOR = re.compile(r"\[([-+\d.,\s]*)\]")


def _listed(lines) -> dict:
    """The decimals the lines print inside a bracketed vector (``[0.3, 0.6]``), each with
    the first line it is printed on."""
    out: dict = {}
    for ln in lines:
        for m in _VECTOR.finditer(fold(ln.text)):
            for x in NUMBER.findall(m.group(1)):
                out.setdefault(x, ln.number)
    return out


def _owner(x: str, before: list[Block], results=()) -> Block | None:
    """The nearest block before that prints the decimal ``x`` (a whole number: none, √2 of
    d_k = 2 is no entry); none where a written result (``results``: as printed) is ``x`` and
    the block prints it to other digits (0.280 of a result, not the given 0.28)."""
    if "." not in x:
        return None
    b = next((b for b in reversed(before) if _entry(b, x) is not None), None)
    return None if b is not None and x in results and not _at_digits(b, x) else b


def _owners(w: Written, before: list[Block], results=()) -> list[Block]:
    """The blocks whose entries the decimals of ``w`` print (the nearest for each; not for a
    decimal that a written result prints to more digits than the block: ``results``)."""
    got = _row_of(tuple(Fraction(x) for x in w.numbers), before) if w.row else None
    if got is not None:                     # a sum beside its list, a softmax of a list: that row's
        return [got[0]]
    out = []
    rows = [_in_row(w, s, before) for s in range(len(w.numbers))]
    for b in (r[0] if r else _owner(x, before, results) for x, r in zip(w.numbers, rows)):
        out += [b] if b is not None and b not in out else []
    return out


def _forms(w: Written) -> list[Written]:
    """``w`` as each expression it is written equal to, the first first, then itself."""
    across = w.across or [()] * (len(w.earlier) + 1)
    return [replace(w, form=f, numbers=n, across=(a,)) for (f, n), a in zip(w.earlier, across)] + \
        [replace(w, across=(across[-1],))]


def _operands(w: Written, before: list[Block], results: dict, listed: dict | None = None
              ) -> tuple[tuple, list] | tuple[None, None]:
    """Each number's operand (its entry in the nearest block before that prints it, for a
    decimal: √2 of d_k = 2 is no entry; else an earlier written result it is, else the
    number), and the blocks taken, the nearest first; (None, None) for an expression with a
    decimal that no block, result or earlier vector (``listed``: number -> its first line;
    ``→ [0.3, 0.6]``, a given of the arithmetic) prints. For ``w.strict`` (an entry of lists
    worked together) a given does not count, nor a block's whole entry (0.0: any zero prints
    it)."""
    listed = listed or {}
    dot = _dot(w, before) if w.key == ARITHMETIC else None
    if dot is not None:
        return dot
    got = _row_of(tuple(Fraction(x) for x in w.numbers), before) if w.row else None
    if got is not None:                       # a sum beside its list, a softmax of a list: that
        return tuple(f"{got[0].name}[{got[1]}, {k}]" for k in range(len(w.numbers))), [got[0]]   # row's
    operands, owners, loose = [], [], False
    for k, x in enumerate(w.numbers):
        row = _in_row(w, k, before)
        if row is not None:                   # [0.0+0.909, 0.1+0.141]: the row "is" of E, of P
            operands.append(f"{row[0].name}[{row[1]}, {w.place}]")
            owners += [row[0]] if row[0] not in owners else []
            continue
        owner = _owner(x, before, results)
        if owner is not None and w.strict and Fraction(x).denominator == 1:
            return None, None                 # 0.0 of lists worked together: any 0 prints it
        if owner is not None:
            i, j = _entry(owner, x)
            operands.append(f"{owner.name}[{i}, {j}]")
            owners += [owner] if owner not in owners else []
        else:                                 # a whole number: as written (2 is no result)
            operands.append(results.get(x, x) if "." in x else x)
            loose |= "." in x and x not in results and (w.strict or listed.get(x, w.line) >= w.line)
    if w.key == ARITHMETIC and loose:
        return None, None
    return tuple(operands), owners


_AT = re.compile(r"(.+)\[(\d+), (\d+)\]")


def _of_rows(w: Written, operands: tuple, of_rows: dict) -> tuple | None:
    """(block index, ``[row, column]``) where ``w`` is an entry of rows worked together
    (every operand the same row of a block, at ``w``'s place) whose form over the blocks
    is a derived block's expression (``E[2, 1] + P[2, 1]`` of ``X = E + P``), else None."""
    at = [_AT.fullmatch(o) for o in operands]
    if w.place < 0 or not at or not all(at) or len({(m.group(2), m.group(3)) for m in at}) != 1 \
            or int(at[0].group(3)) != w.place:
        return None
    i = of_rows.get(w.form.format(*(m.group(1) for m in at)))
    return None if i is None else (i, f"[{at[0].group(2)}, {w.place}]")


def _softmax_row(w: Written, found: list, of_rows: dict) -> tuple | None:
    """(block index, ``[row, column]``) where ``w`` is an entry of ``softmax([…]) = […]``
    written on the numbers of a block's row (``softmax([2, 4, 4])``, row 0 of ``scores``)
    that a derived block is the softmax of (``softmax(scores)``): that block's entry, else
    None."""
    if not w.results or w.place < 0 or not w.form.startswith("exp({"):
        return None
    row = tuple(Fraction(x) for x in w.numbers)
    for b in found:
        i = of_rows.get(f"softmax({b.name})")
        hit = next((k for k, r in enumerate(b.printed.values) if tuple(r) == row), None) if i is not None else None
        if hit is not None:
            return i, f"[{hit}, {w.place}]"
    return None


def _in_row(w: Written, k: int, before: list[Block]) -> tuple | None:
    """(block, row) of the nearest block before whose row prints the numbers in place of
    ``w``'s ``k``-th across the entries of its vector equation (``w.across``), in order; None
    where there is none. A row of one number over and over (any row of it fits) only as the
    row another number's row is (``[0.2+0.141, 0.2+0.990]``: E's row 3 beside P's row 3)."""
    rows = _rows(w)
    if rows is None or rows[k] is None:
        return None
    if len(set(rows[k])) > 1:
        return _row_of(rows[k], before)
    others = {got[1] for j, r in enumerate(rows) if j != k and r is not None and len(set(r)) > 1
              for got in [_row_of(r, before)] if got is not None}
    return next(((b, i) for b in reversed(before) if b.shape[1] == len(rows[k])
                 for i, r in enumerate(b.printed.values) if tuple(r) == rows[k] and i in others), None)


def _rows(w: Written) -> list | None:
    """The numbers in place of each of ``w``'s across its vector equation (None for one
    that is not a number)."""
    if not w.across or not w.across[-1] or len(w.across[-1]) != len(w.numbers):
        return None
    out = []
    for texts in w.across[-1]:
        try:
            out.append(tuple(Fraction(x) for x in texts))
        except ValueError:
            out.append(None)
    return out


def _row_of(row: tuple, before: list[Block]) -> tuple | None:
    """(block, row index) of the nearest block before whose row prints ``row``, or None."""
    return next(((b, i) for b in reversed(before) if b.shape[1] == len(row)
                 for i, r in enumerate(b.printed.values) if tuple(r) == row), None)


def _at_digits(b: Block, x: str) -> bool:
    """Whether ``b``'s entry that prints the number ``x`` prints it to as many decimals."""
    i, j = _entry(b, x)
    return math.isclose(float(b.half[i, j]), 0.5 * 10.0 ** -len(x.partition(".")[2]))


_PRODUCTS = re.compile(r"\{0\} \* \{1\}(?: \+ \{\d+\} \* \{\d+\})+")


def _dot(w: Written, before: list[Block]) -> tuple[tuple, list] | None:
    """The operands of a dot product worked by hand (``0.6×0.5 + 0.4×0.2 + 1.0×0.7``) whose
    left factors are a row of an earlier block and right factors a column (or a row: a key)
    of one, the nearest first (for entry ``k`` of a vector equation, column ``k`` first:
    that of a row times a matrix): each factor that block's entry there, not the first entry
    anywhere that prints the same number. None when no such pair of blocks prints them."""
    if not _PRODUCTS.fullmatch(w.form):
        return None
    try:
        left = tuple(Fraction(x) for x in w.numbers[0::2])
        right = tuple(Fraction(x) for x in w.numbers[1::2])
    except ValueError:
        return None
    n = len(left)
    row, key = _row_of(left, before), _row_of(right, before)
    cols = [(j != w.place, b, f"{b.name}[{{}}, {j}]") for b in reversed(before) if b.shape[0] == n
            for j in range(b.shape[1]) if tuple(r[j] for r in b.printed.values) == right]
    cols += [(True, key[0], f"{key[0].name}[{key[1]}, {{}}]")] if key else []
    if row is None or not cols:
        return None
    (a, at_a), (_, b, at_b) = (row[0], f"{row[0].name}[{row[1]}, {{}}]"), min(cols, key=lambda c: c[0])
    operands = tuple(x for k in range(n) for x in (at_a.format(k), at_b.format(k)))
    return operands, [a] + ([b] if b is not a else [])


def _expr(w: Written, operands: tuple) -> str:
    return w.form.format(*(f"({o})" if o.startswith("-") else o for o in operands))


def _entry(b: Block, argument: str) -> tuple[int, int] | None:
    """The (row, column) of ``b``'s first entry printed as the number ``argument``."""
    return next(_places(b, argument), None)


def _places(b: Block, argument: str):
    """The (row, column) of each of ``b``'s entries printed as the number ``argument``."""
    x = Fraction(argument)
    return ((i, j) for i, row in enumerate(b.printed.values) for j, v in enumerate(row) if v == x)
