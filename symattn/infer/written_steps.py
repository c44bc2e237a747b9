"""The arithmetic an article writes out (:mod:`.written`) as steps of its inferred example.

Each written function or expression is a step of one entry: the function (a declared
primitive) of its numbers, each taken as the entry of the nearest block before it that
prints it (``-log(p[0, 2])``), else as an earlier written result it prints, else as written;
it joins the example of the blocks it takes (a :class:`.chains.Chain` of that block). A dot
product worked by hand takes a row and a column of earlier blocks
(:func:`.written_operands._dot`), and the
terms written between it and its result are steps too (:func:`_terms`). The result as
printed is the step's claim: the check judges it, right or wrong.
"""

from __future__ import annotations

import re
from collections import Counter

from ..article.tokens import fold
from ..claims.printed import parse_number, rounding_interval
from ..errors import SymattnError
from ..tensor import NEG_INF
from .blocks import ROUNDED_PLACES, Block
from .chains import Chain
from .written import (ARITHMETIC, EQUALS, NO_END, NUMBER, TEMPLATE, Written, form_value, arithmetic_text,
                      continues, written)
from .written_operands import (_AT, _entry, _expr, _forms, _listed, _of_rows, _operands, _owners, _places,
                               _softmax_row)

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


def _of_a_rounding(w: Written, operands: tuple) -> bool:
    """Is ``w`` a function of one decimal as written (no block or result prints it), printed
    as a computed number is (:data:`.blocks.ROUNDED_PLACES` decimals or more), whose printed result
    is wrong of that decimal but right of a number that rounds to it
    (``-log(0.4251) = 0.8555``: of 0.42508…, the softmax the text printed rounded)? Not
    knowing which it took, the text is judged by no verdict: no step. Both numbers stand for
    their rounding intervals (:func:`~symattn.claims.printed.rounding_interval`)."""
    if w.key == ARITHMETIC or len(w.numbers) != 1 or tuple(operands) != tuple(w.numbers):
        return False
    try:
        x, result = (parse_number(fold(t)) for t in (w.numbers[0], w.printed or w.result))
    except SymattnError:
        return False
    if NEG_INF in (x.value, result.value) or x.percent or result.percent or x.decimals < ROUNDED_PLACES:
        return False                          # 1.0 of e^{1.0}: a given, as written
    (lo, hi), (r_lo, r_hi) = rounding_interval(x, "half-up"), rounding_interval(result, "half-up")
    at = [form_value(w.form, (str(v),)) for v in (x.value, lo, hi)]
    if None in at or not (min(at[1:]) <= float(r_hi) and float(r_lo) <= max(at[1:])):
        return False                          # none of them gives it: wrong of any, judged exactly
    margin = float(r_hi - r_lo) * 1e-9        # floats only choose whether to judge: near a tie of
    return not float(r_lo) + margin < at[0] < float(r_hi) - margin   # x's own, no verdict is the safe side


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
        self.on_line: dict = {}              # line -> the chains' steps on it: (chain, name, expr)
        for c, name, expr, line in steps:
            self.on_line.setdefault(line, []).append((c, name, expr))
        self.sums = {line: (c, name, expr) for c, name, expr, line in steps if _SUM_OF.fullmatch(expr)}
        self.by_expr = {expr: (c, name, expr) for c, name, expr, _ in steps}
        self.results: dict = {}              # a result as printed -> (its step, its chain's block
                                             # or None: the lone chain), the latest
        self.printed: dict = {}              # a result as printed -> every such pair, in order
        self.result_lines: dict = {}         # a result as printed -> the lines it is written on
        self.placed: dict = {}               # (line, place, result as printed) -> (its step, key):
                                             # an entry of a vector equation's results
        self.last: tuple = ("", ())          # the form and operands of the last step

    def take(self, w: Written, before: list[Block], lines, listed: dict) -> None:
        """One written expression: a claim on a chain's entry, or on a derived block's entry,
        or a step of its own."""
        if self._on_chain(w, before):
            return
        placed = self._placed(w, before)
        before = [b for b in before if not self._results_of(b) and not _result_print(b, w)]
        got = self._operands(w, before, listed, placed)
        if got is None:
            return
        first, (w, owner, owners, operands, key) = w, got
        if _of_a_rounding(w, operands):
            return
        whole = _of_rows(w, operands, self.of_rows) or _softmax_row(w, self.found, self.of_rows)
        if whole is not None:                # [0.0+0.909, …] = [0.909, …]: X = E + P's entries
            i, at = whole
            self.onto.setdefault(i, []).append((self.derived[i].block.name, at, w.printed, w.line))
            return
        self._step(first, w, owner, owners, operands, key, lines)

    def _on_chain(self, w: Written, before: list[Block]) -> bool:
        """Is ``w`` a chain's step already (its entry claimed there)?"""
        if (w.line, w.key) in self.worked or (w.key == ARITHMETIC and w.line in self.on_line):
            claimed = _entry_claim(w, self.worked.get((w.line, w.key)), before) or \
                _sum_claim(w, self.sums.get(w.line), self.results) or self._named(w)
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

    def _named(self, w: Written) -> tuple | None:
        """(chain, ``name[0, 0]``) of the one chain step on ``w``'s line that ``w``'s label names
        (``std = sqrt(1.25 + 0.00001) = 1.118`` where ``x_std`` is computed): the statistic
        its result prints, taken up so by later arithmetic (``(1.0 - 2.5) / 1.118``); else None."""
        if not w.label:
            return None
        named = [(c, name) for c, name, _ in self.on_line.get(w.line, ())
                 if name == w.label or name.endswith("_" + w.label)]
        return (named[0][0], f"{named[0][1]}[0, 0]") if len(named) == 1 else None

    def _operands(self, w: Written, before: list[Block], listed: dict, placed: dict) -> tuple | None:
        """(the form of ``w`` read, its owner block, the blocks it takes, its operands, the
        owner's index) of the first form of ``w`` whose numbers all have an origin (a result
        of a list before it: ``placed``, as :meth:`_placed`), or None."""
        for as_written in _forms(w):         # a result of the chain the step joins, no other's
            owners = _owners(as_written, before, self.results)
            owner = max(owners, key=lambda b: b.index) if owners else \
                next((b for b in reversed(before) if b.index in self.in_example), None)
            owner = self._joined(as_written, owner, before, placed)
            key = None if owner is None else owner.index
            table = {p: name for p, (name, k) in self.results.items() if k == key}
            table.update(self._sibling(as_written, key))
            table.update({x: name for x, (name, _) in placed.items()})
            operands, owners = _operands(as_written, before, table, listed)
            if operands is not None and owner is None and owners and not set(operands) & set(table.values()):
                owner = max(owners, key=lambda b: b.index)     # 1·4 + 2·5 + 3·6 of Q and K's entries
                key = owner.index
            if operands is not None:
                return as_written, owner, owners, operands, key
        return None

    def _joined(self, w: Written, owner, before: list[Block], placed: dict):
        """The owner ``w`` joins: a block with no chain yet gives way to the one chain whose
        results ``w`` takes (0.42 · [0.12, …] with V's rows, of α = 0.42 worked out before;
        ``placed``: as :meth:`_placed`)."""
        if owner is None or owner.index in self.shown:
            return owner
        keys = {self.results[x][1] for x in w.numbers if x in self.results and not any(
            _entry(b, x) is not None for b in before)} | {placed[x][1] for x in w.numbers if x in placed}
        by_index = {b.index: b for b in self.found}
        return by_index.get(keys.pop(), owner) if len(keys) == 1 and None not in keys else owner

    def _results_of(self, b: Block) -> bool:
        """Does the one-row block ``b`` print results written on its own line, each taken up
        as a step's (``[exp(-0.00707), exp(0.0)] ≈ [0.9929, 1.0]``)? Then arithmetic on its
        numbers takes those results, not the list as given."""
        texts = b.printed.texts[0] if b.shape[0] == 1 else ()
        return len(texts) > 1 and all(b.line in self.result_lines.get(t.strip(), ()) for t in texts)

    def _placed(self, w: Written, before: list[Block]) -> dict:
        """For each number of ``w`` (any of its forms) that a list before it of a vector
        equation's results prints (``softmax(…) ≈ [0.28, 0.23, 0.49]``, then ``[0.18, 0.59,
        0.23]``), the step of that entry, as printed -> (step, key): of the list that prints
        most of ``w``'s numbers, then the nearest (0.23 of ``0.28·v₁ + 0.23·v₂ + 0.49·v₃``:
        the first list's)."""
        out = {}
        for numbers in (f.numbers for f in _forms(w)):
            lists = [b for b in before if b.shape[0] == 1 and self._results_of(b)]
            count = {b.index: sum(_entry(b, x) is not None for x in set(numbers)) for b in lists}
            for x in numbers:
                b = max((b for b in lists if _entry(b, x) is not None),
                        key=lambda b: (count[b.index], b.index), default=None)
                got = b is not None and self.placed.get((b.line, _entry(b, x)[1], x))
                if got:
                    out.setdefault(x, got)
        return out

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
        self.result_lines.setdefault(w.result, set()).add(w.line)    # a list of results, whatever
        if w.result not in w.numbers:        # sin(0.01) ≈ 0.01: the digits are a given's too
            _result(self, w, step[0], key)            # exp(0.357) of the loss -log(0.70) = 0.357
        chain.end = max(chain.end, w.line)


def _as_percent(lines, w: Written) -> str | None:
    """The percent written right after ``w``'s result in parentheses (``= 0.61 (61%)``,
    ``$= 0.196$ (19.6% attention to "The")``), as claims print it (``61%``), or None."""
    pattern = re.compile(rf"(?<![\d.]){re.escape(w.result)}\$?\s*\(\s*({NUMBER.pattern})\s*\\?%[^()\d]{{0,60}}\)")
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
    cut = [m.start() for m in _EQUALS.finditer(text)]
    return text[:cut[-1]] if cut else text


_EQUALS = re.compile(EQUALS)


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
    writing.result_lines.setdefault(w.result, set()).add(w.line)
    if w.place >= 0:
        writing.placed[(w.line, w.place, w.result)] = (entry, key)
