"""The candidates of an inference: the blocks an article prints, as the article reading
finds them (:func:`symattn.article.matrices.find`), with what the search needs beside
their exact values: a float copy, the half unit of each entry's print (what "reproduces
the print" allows), a name that the spec language takes, and the text before each block
(where an article states ``ε = 1e-5``, ``T = 0.5`` or its scaling by ``√d_k``).

Beside the blocks the article reading finds, the per-token vectors of its prose and its
space-aligned tables are candidates (:mod:`.vectors`). A block is kept once: a 1×1 block
(a lone number is never explained by others) and a block that repeats an earlier one's
numbers (the whole, one of its rows, or them rounded to fewer digits) are left to the
article check, which assigns their numbers like any other print; a whole block printed
again is kept marked (``again``) for the search to try anew (:mod:`.again`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..article.cells import Printed
from ..article.matrices import find
from ..article.results import _decimals
from ..claims.printed import last_place, parse_number
from ..spec.load import NAME, RESERVED

MAX_BLOCKS = 200            # blocks of one article the search considers (the first ones; as
                            # many vectors of the prose beside them)


@dataclass
class Block:
    """One printed block: ``name`` for the spec, ``printed`` as found, its ``index`` in the
    article's order, ``floats`` (rows × cols), ``half`` (the half unit of each entry's last
    printed digit; 0 for an exact form such as ``1/3``) and ``before`` (the text between
    the previous block and this one)."""
    name: str
    printed: Printed
    index: int
    path: str
    floats: np.ndarray
    half: np.ndarray
    before: str = ""
    label: str = field(default="")       # the article's own name for it ('' when none)
    parent: "Block | None" = None        # a row of this block (named ``X[1]``)
    row: int = -1                        # and which one
    again: int = -1                      # the earlier block whose numbers it prints again
                                         # (a step of its own only if derived anew: .again)
    given: tuple = ()                    # a weight the text states by these names (.stated)
    echoes: tuple = ()                   # (path, Printed): its numbers (or a row's) printed again,
                                         # maybe rounded (left to the article check: no block)
    program: str = ""                    # the code between the previous block and this one
    fill: Fraction | None = None         # the number printed for a mask's −∞ (-1e9), read as −∞

    @property
    def stating(self) -> str:
        """Where the scaling of this block is stated: the text before it and the program
        that prints it (``softmax(q @ k.T / np.sqrt(2))`` above a notebook's output)."""
        return f"{self.before}\n{self.program}" if self.program else self.before

    @property
    def shape(self) -> tuple[int, int]:
        return self.printed.shape

    @property
    def line(self) -> int:
        return self.printed.line

    @property
    def end(self) -> int:
        """The last source line of its print."""
        return self.printed.end or self.printed.line + self.shape[0] - 1

    @property
    def rounded(self) -> bool:
        """A printout of computed numbers (every entry at the same 4 or more decimals, or
        in scientific notation with as many, as PyTorch and NumPy print, or percentages at
        the same decimals): as an input, each entry is a rounding (``rounded = true``)."""
        halves = set(self.half[np.isfinite(self.floats)].tolist())     # a mask's −∞: no print
        if len(halves) == 1 and 0 < next(iter(halves)) <= 0.5 * 10 ** -ROUNDED_PLACES:
            return True
        texts = [t.strip() for row in self.printed.texts for t in row]
        if len(halves) == 1 and all(t.endswith("%") and "." in t for t in texts):
            return True                    # 58.7%, 41.3%, 0.0%: percentages at one decimal, computed
        mantissas = {len(m.group(2)) if m else -1 for m in
                     (_SCIENTIFIC.fullmatch(t.strip()) for row in self.printed.texts for t in row)}
        return len(mantissas) == 1 and mantissas.pop() >= ROUNDED_PLACES    # 4.7559e-06: as PyTorch prints


ROUNDED_PLACES = 4          # decimals of a number printed rounded by a program (PyTorch's, NumPy's)
_SCIENTIFIC = re.compile(r"[+\-−]?(\d*)\.?(\d*)[eE]([+\-−]?\d+)")


def rows_of(b: Block) -> list[Block]:
    """The rows of a block of several rows, each an operand of its own (``X[1]``: the
    query of one token)."""
    if b.shape[0] < 2 or b.parent is not None:
        return []
    p = b.printed
    return [Block(f"{b.name}[{i}]", Printed(p.name, p.line, (p.values[i],), (p.texts[i],)), b.index,
                  b.path, b.floats[i:i + 1], b.half[i:i + 1], parent=b, row=i) for i in range(b.shape[0])]


def heads_of(b: Block, width: int) -> list[Block]:
    """The column slices of ``width`` of a block of several rows twice as wide or more,
    each an operand of its own (``Q[:, 2:4]``: the queries of head 2)."""
    if b.shape[0] < 2 or b.parent is not None or width < 1 or b.shape[1] % width or b.shape[1] < 2 * width:
        return []
    p, out = b.printed, []
    for a in range(0, b.shape[1], width):
        cols = slice(a, a + width)
        out.append(Block(f"{b.name}[:, {a}:{a + width}]", Printed(p.name, p.line, tuple(r[cols] for r in p.values),
                                                                   tuple(r[cols] for r in p.texts)),
                         b.index, b.path, b.floats[:, cols], b.half[:, cols], parent=b))
    return out


def row_shown(row: Block, line: int, shown: set) -> bool:
    """Is the row ``X[i]`` printed again on its own before ``line`` or on it (``shown``:
    (matrix index, row, line) of such prints; "the scores [1, 0, 1], so exp gives [2.718, 1,
    2.718]"), so that a derivation taking it makes no choice?"""
    m = row.parent
    return m is not None and any(k == m.index and r == row.row and at <= line for k, r, at in shown)


def entry_float(v) -> float:
    """A printed value as a float (a mask's −∞: -inf)."""
    from ..tensor import NEG_INF
    return -np.inf if v is NEG_INF else float(Fraction(v))


def floats_of(values) -> np.ndarray:
    """A block's printed values (rows of exact values) as floats."""
    return np.array([[entry_float(v) for v in row] for row in values])


def printed_block(name: str, p: Printed, index: int, path: str, before: str = "", **kw) -> Block:
    """The block of printout ``p``: its floats (a mask's fill, :func:`.masks.mask_fill`, as
    −∞) and the half unit of each entry's print."""
    from .masks import mask_fill
    floats, half = floats_of(p.values), half_units(p.texts)
    fill = mask_fill(p.values, floats)
    if fill is not None:                    # as a printed −∞: exactly the mask's
        hidden = floats == float(fill)
        floats, half = np.where(hidden, -np.inf, floats), np.where(hidden, 0.0, half)
    return Block(name, p, index, path, floats, half, before, fill=fill, **kw)


def half_units(texts) -> np.ndarray:
    def half(t: str) -> float:            # a whole number or a fraction: taken as exact
        m = _SCIENTIFIC.fullmatch(t.strip())
        if m:                             # 6.3379e-2: four decimals, then the exponent
            return 0.5 * 10.0 ** (-len(m.group(2)) + int(m.group(3).replace("−", "-")))
        if t.strip().endswith("%"):               # 58.7%: 0.587, to the half of 0.001
            p = parse_number(t)
            return 0.5 * float(last_place(p)) / 100 if p.decimals else 0.0
        d = _decimals(t.replace("−", "-").lstrip("+"))
        return 0.0 if not d else 0.5 * 10.0 ** -d
    return np.array([[half(t) for t in row] for row in texts])


def spec_name(label: str) -> str:
    """An article's label as a name of the spec language (``Q_{love}`` → ``Q_love``), or ''."""
    s = re.sub(r"\W+", "_", label or "").strip("_")
    return s if s and NAME.fullmatch(s) and s not in RESERVED else ""


def _repeated(p: Printed, earlier: list[Printed]) -> Printed | None:
    """The earlier block whose numbers (or one of whose rows) ``p`` prints again, or them
    rounded to fewer digits (``[0.501, 0.249, 0.249] ≈ [0.50, 0.25, 0.25]``: within half a
    unit of each entry's last digit); None when it repeats none."""
    for q in earlier:
        if _indexed(p.name) and _indexed(q.name) and p.name != q.name:
            continue                     # k2 = [1, 1, 0] after k1: another token's, the same numbers
        if q.values == p.values or (p.shape[0] == 1 and p.values[0] in q.values) or _rounds(p, q):
            return q
    return None


def _indexed(name: str) -> bool:
    """A per-token name, letters and the token's number (``q1``, ``k_2``, ``x3``)."""
    return bool(re.fullmatch(r"[A-Za-z]{1,8}_?\d{1,2}", name or ""))


def _rounds(p: Printed, q: Printed) -> bool:
    if p.shape != q.shape or p.values == q.values:
        return False
    half = half_units(p.texts)
    if not np.all(half > 0):
        return False
    with np.errstate(invalid="ignore"):         # −∞ − −∞: no rounding of it
        off = np.abs(floats_of(p.values) - floats_of(q.values))
    return bool(np.all(off <= half * 1.0001)) and bool(np.all(half >= half_units(q.texts)))


def blocks(parts: list[tuple[str, list]]) -> list[Block]:
    """The blocks of an article given as (path, lines) parts, in reading order."""
    from .masks import is_unmasked, unmasked
    out: list[Block] = []
    seen: list[Printed] = []
    of: dict = {}                                # id(printed) -> its block
    for path, lines in parts:
        texts = {ln.number: ln.text for ln in lines if ln.kind != "code"}
        code = {ln.number: ln.text for ln in lines if ln.kind == "code"}
        output = {ln.number for ln in lines if ln.kind == "output"}
        last = 0
        for p in _with_vectors(lines):
            if sum(b.printed.form != "prose" for b in out) >= MAX_BLOCKS:
                return out
            if p.form == "prose" and sum(b.printed.form == "prose" for b in out) >= MAX_BLOCKS:
                continue                         # vectors of the prose: as many again, apart
            again = -1 if p.form == "prose" else next(
                (b.index for b in out if b.printed.values == p.values and not is_unmasked(b)), -1)
            if p.shape == (1, 1):
                continue
            q = _repeated(p, seen) if again < 0 else None
            if q is not None:
                of[id(q)].echoes += ((path, p),)
                continue
            seen.append(p)
            before = out[-1].before if out and p.line == last else \
                "\n".join(t for n, t in texts.items() if last <= n <= p.line)   # one line's blocks: one context
            program = "\n".join(t for n, t in code.items() if last <= n <= p.line)
            if out and (p.line == last or not program and {last, p.line} <= output):
                program = out[-1].program            # one cell's outputs: the code that prints them all
            b = printed_block(spec_name(p.name), p, len(out), path, before, label=p.name, again=again,
                              program=program)
            scores = unmasked(b, len(out), out,  # scores masked with −∞: their input first
                              tuple(k for k in roots(b.stating) if k.isdigit() and int(k) > 1))
            if scores is not None:
                out.append(scores)
                b.index = len(out)
            out.append(b)
            of[id(p)] = b
            last = p.line
    return _named(out)


def _with_vectors(lines) -> list[Printed]:
    """The article reading's blocks, and the per-token vectors and space-aligned tables it
    leaves out (:mod:`.vectors`), in line order (the reading's first on a line)."""
    from .reprinted import reprinted
    from .vectors import extra
    found = find(lines)
    more, covered = extra(lines, found)
    more += reprinted(lines, found)
    found = [p for p in found if not (p.line in covered and p.shape[0] == 1)]   # a table's cells
    return sorted(found + more, key=lambda p: p.line)


def _named(found: list[Block]) -> list[Block]:
    """Every block a unique name: its label (a row's with a free index, ``P_i``: the
    tensor's, :func:`.positions.base_names`), else ``X`` for the first unnamed table of
    labelled rows (the tokens, when no block is named X), else ``M`` and its line (``M52``)."""
    from .positions import base_names
    for k, base in base_names([b.label for b in found]).items():
        base = spec_name(base)
        if base and not any(b.name == base for b in found):
            found[k].name = base              # X_i: the rows of X (the last block labelled so)
    used: set = set()
    x = next((b for b in found if not b.name and b.printed.rows), None)
    if x is not None and not any(b.name == "X" for b in found):
        x.name = "X"
    from .masks import is_unmasked, name_unmasked
    for b in found:
        if is_unmasked(b):
            continue                          # named after its masked print, below
        base = b.name or f"M{b.line}"
        name, k = base, 2
        while name in used:
            name, k = f"{base}_{k}", k + 1
        used.add(name)
        b.name = name
    name_unmasked(found, used)
    return found


_SCALE = re.compile(r"√|\\sqrt|sqrt\s*\(", re.I)


_ROOT = re.compile(r"\\sqrt\s*\{\s*(\d+)\s*\}|√\s*\(?\s*(\d+)|sqrt\s*\(\s*(\d+)\s*\)")


def roots(text: str) -> list[str]:
    """The whole numbers the text takes a square root of (``\\sqrt{2}``, ``√2``), latest first."""
    return [next(g for g in m.groups() if g) for m in reversed(list(_ROOT.finditer(text)))]


def states_scale(text: str) -> bool:
    """Does the text state a division by a square root (``√d_k``, ``\\sqrt{2}``,
    ``sqrt(d_k)``)? (The word "scaled" alone names the method, not this step.)"""
    return bool(_SCALE.search(text))


_VALUE = (r"\s*(?:=|:|is|of)\s*\$?\s*([+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
          r"(?:\s*(?:\\times|\\cdot|×|·|x|\*)\s*10\s*\^\s*\{?\s*([+\-−]?\d+)\s*\}?)?(?!\d|\.\d|\s*\^)")     # a sentence's full stop may follow


def stated(text: str, words: tuple) -> list[str]:
    """The values the text states for a parameter written as one of ``words``
    (``ε = 1e-5``, ``T = 0.5``, ``\\epsilon=10^{-5}``): spec-language decimal texts, latest
    first."""
    out = []
    for w in words:
        pat = (r"(?<![A-Za-z\\])" if w[0].isalpha() else "") + re.escape(w) + r"(?![A-Za-z])" + _VALUE
        for m in re.finditer(pat, text):
            value = _decimal(m.group(1), m.group(2))
            if value is not None:
                out.append((m.start(), value))
        for m in re.finditer((r"(?<![A-Za-z\\])" if w[0].isalpha() else "") + re.escape(w)
                             + r"\s*=\s*10\s*\^\s*\{?\s*([+\-−]\d+)\s*\}?", text):
            out.append((m.start(), _decimal("1", m.group(1))))
    return list(dict.fromkeys(v for _, v in sorted(out, reverse=True) if v is not None))


_IN_ROOT = re.compile(r"(?:\\sqrt\s*\{|√\s*\(|sqrt\s*\()[^{}()]*?(?:\([^{}()]*\)[^{}()]*?)*\+\s*(\d*\.?\d+)(?:[eE]([+\-−]?\d+))?\s*[})]")
SMALLEST = 0.01             # an ε added under a root is smaller than this


def epsilons(text: str, words: tuple) -> list[str]:
    """The ε the text states: as a parameter written as one of ``words`` (``ε = 1e-5``,
    :func:`stated`), else added under a root (``\\sqrt{2+0.00001}``, ``√(var + 1e-5)``), latest
    first."""
    out = stated(text, words)
    for m in reversed(list(_IN_ROOT.finditer(text))):
        value = _decimal(m.group(1), m.group(2))
        if value is not None and 0 < float(value) < SMALLEST:
            out.append(value)
    return list(dict.fromkeys(out))


def _decimal(mantissa: str, power: str | None) -> str | None:
    from decimal import Decimal, InvalidOperation
    try:
        m, _, e = mantissa.lower().partition("e")
        exp = int(e) if e else 0
        if power is not None:
            exp += int(power.replace("−", "-"))
        if abs(exp) > 30:
            return None
        value = Decimal(m).scaleb(exp)
    except (InvalidOperation, ValueError):
        return None
    text = format(value.normalize(), "f")
    return text if value >= 0 else None


def telling(b, skip=()) -> int:
    """The entries of ``b`` printed with three significant digits or more and not whole
    (``58.7%`` too), nor a simple fraction (``0.500``, ``0.250``: a ratio of small whole
    numbers, which other small numbers give by chance; ``0.330`` and ``0.540`` tell);
    the entries ``(i, j)`` in ``skip`` left out."""
    n = 0
    for i, row in enumerate(b.printed.texts):
        for j, t in enumerate(row):
            if (i, j) in skip:
                continue
            digits = t.strip().rstrip("%").lstrip("+-−").replace(".", "").lstrip("0")
            if "." not in t or len(digits) < 3 or not digits.isdigit():
                continue
            n += len(digits.rstrip("0")) >= 3 or _fraction(t).denominator > MAX_SIMPLE
    return n


MAX_SIMPLE = 10             # the largest denominator of a simple fraction (1/2, 3/4, 7/10)


def _fraction(text: str) -> Fraction:
    return Fraction(text.strip().rstrip("%").replace("−", "-"))
