"""The numbers an article prints, as it prints them, each at its line and column.

Reads decimals and integers, a Unicode or full-width minus, full-width digits, ``%``/``％``/
``\\%``, scientific notation (``6.3379e-02``, ``1.2 \\times 10^{-3}``, ``2.56·10⁻⁴``,
``2.56 x 10^-4``, ``10^{-5}`` alone), fractions of whole numbers (``\\frac{1}{3}``,
``\\tfrac12``, ``1/3``: printed ``1/3``, exactly that rational), thousands separators
(``357,911``, LaTeX's ``39{,}000``), the torch/NumPy print forms (``1.``, ``-0.``,
``1.0000e+00``) and a number in the exponent of ``e`` (``e^{0.8188}``). Not numbers of the computation, and skipped:
digits inside a word or an identifier (``W_1``, ``x2``, ``#245b97``), subscripts and
other superscripts (``d_{k}``, ``x^2``), list and heading numbers (``1.`` at the start
of a line, ``Step 4``, ``第5章``).

>>> line = Line(7, "softmax = [0.1688, 0.2472] ≈ −1.2e-3 and e^{0.8188}")
>>> [(n.printed, n.column, n.exponent) for n in numbers_in(line)]
[('0.1688', 12, False), ('0.2472', 20, False), ('-1.2e-3', 30, False), ('0.8188', 45, True)]
>>> [(n.printed, n.value) for n in numbers_in(Line(1, "w = \\\\tfrac{1}{3}, lr = 2.56·10⁻⁴, ≈ [1, 0]"))]
[('1/3', Fraction(1, 3)), ('2.56e-4', Fraction(4, 15625)), ('≈1', Fraction(1, 1)), ('≈0', Fraction(0, 1))]
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from fractions import Fraction

from .nesting import APPROX as _APPROX, depth_at, indices, opened
from .source import Line
from ..errors import LimitError, SymattnError
from ..numbers import parse_exact

# One character for one: columns survive the normalisation.
_FOLD = str.maketrans({**{chr(0xFF10 + k): str(k) for k in range(10)},
                       "−": "-", "－": "-", "＋": "+", "＝": "=", "．": ".", "，": ",", "％": "%",
                       "\u2009": " ", "\u00a0": " ", "\u3000": " ", "\u202f": " "})
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_SUP = "[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+"

_NUMBER = re.compile(r"""
    (?<![A-Za-z_\d.\#])                    # not inside a word, an identifier or a colour
    (?P<sign>[-+])?
    (?P<digits>\d{1,3}(?:(?:,|\{,\})\d{3})+(?:\.\d+)?(?![\d,]) | \d+\.\d+(?!\.\d) | \d+\.(?![\d.]) | \.\d+(?!\.\d) | \d+)
    (?: (?P<e>[eE][-+]?\d+)
      | \s*(?:\\times|\\cdot|×|·|⋅|[xX*])\s*10
        (?: \s*(?:\^|\*\*)\s*(?:[{(]\s*(?P<e2>[-+]?\d+)\s*[})]|(?P<e3>[-+]?\d+)) | (?P<sup>[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+) ) )?
    (?P<pct>\s*(?:\\%|%))?
    (?![A-Za-z_\d])
""", re.X)

_BARE = re.compile(_NUMBER.pattern.split("\n", 2)[2], re.X)     # no look-behind: glued values
_NEG_INF = re.compile(r"(?<![\w.])-\s*(?:∞|\\infty(?![A-Za-z]))")
NEG_INF_PRINTED = re.compile(r"(?<![\w.])-\s*(?:∞|\\infty|inf)(?![A-Za-z])")   # torch's -inf
_GLUED_FIRST = re.compile(r"([^\W\d_]{1,12})1(?=-?\d)")
_GLUED_VALUE = re.compile(r"-?\d+(?:\.\d+)?(?![\d.])")
_COMMAND_GLUED = re.compile(r"\\(?:approx|times|cdot|div|to|quad|qquad|leq|geq|le|ge|simeq|"
                            r"fallingdotseq|mp|pm)(?=[-+]?\.?\d)")
_WORD_PERCENT = re.compile(r"(?<=[A-Za-z.])(\d+\.\d+\s*%)")
_POWER = re.compile(r"\s*(?:\^|\*\*)\s*(?:[{(]\s*([-+]?\d+)\s*[})]|([-+]?\d+))|(" + _SUP + ")")
# \frac{1}{3}, \tfrac12, 1/3: one exact rational, not a numerator and a denominator
_FRACTION = re.compile(r"(?P<sign>[-+]\s*)?(?:\\[dtc]?frac\s*(?:\{\s*(?P<n>\d+)\s*\}\s*\{\s*(?P<d>\d+)\s*\}"
                       r"|(?P<n1>\d)(?P<d1>\d))|(?<![\w./\\])(?P<n2>\d+)/(?P<d2>\d+)(?![\w/])(?!\.\d))")
_WINDOW = 80                     # how far back the words that mark a number are looked for
_BEFORE = 400                    # how far back a number's sub- or superscript brace is looked for
_SPACES = re.compile(r"\s*")
_LEAD = re.compile(r"\s*(?:#{1,6}\s+)?(?:\*\*|__|\*|_)?\s*")   # a line's start: a heading's, a bold item's (``**3. Normalize``)
_ENV_OPEN = re.compile(r"\\begin\{[A-Za-z*]+\}(\{[^}]*\})?$")
_SIGN_AFTER = set("([{,=&|:;<>~≈≒\\ \t/*×·÷+") | {"", "\n"}
_LIST_MARK = re.compile(r"\s*(?:[-*+]\s+)?\d+[.)]\s")
_HEADING = re.compile(r"(?:step|chapter|section|fig(?:ure)?|table|eq|ex(?:ample)?|exercise|"
                      r"part|lesson|ch|no|#|§|第|図|表|式|例|問|章|節)\.?\s*\(?$", re.I)
# ... and a whole number that counts what it follows: token 3, head 2, position 1, Input 1
_INDEX_WORD = re.compile(r"(?<![\w-])(?:tokens?|heads?|layers?|positions?|pos|rows?|columns?|cols?|"
                         r"words?|query|queries|keys?|inputs?|outputs?|batch|sample|sentence|"
                         r"トークン|ヘッド|位置|単語)\s*#?\s*$", re.I)


@dataclass
class Number:
    """One printed number. ``printed`` is its text in the form claims are written in
    (``-1.2e-3``, ``58.7%``); ``start``/``end`` index the reader's line text."""
    text: str
    printed: str
    value: Fraction
    line: int
    column: int
    start: int
    end: int
    kind: str
    exponent: bool = False          # the exponent of e: prints an operand
    integer: bool = False           # no decimals (a whole number or a fraction): its value, exactly
    neg_inf: bool = False           # −∞: a masked score
    role: str = "text"              # what the words around it make it (groups._role)
    cell: bool = False              # a cell of a table flattened into one line of text
    approximate: bool = False       # written after ≈, 約, about (or in a block after one)
    fraction: bool = False          # \\frac{1}{3}, 1/3: exactly this rational (``integer`` too)
    line_text: str = ""             # the reader's line it stands in (start/end index it)
    index: tuple = ()               # its place in a bracket list: (block, row, column) in 3-D
    whole_block: bool = False       # in a printout of whole floats only (``[[2., 4.], [4., 16.]]``)
    approx: float | None = None     # the matcher's float of the value (memo)
    half: float | None = None       # the matcher's half unit of the last place (memo)

    @property
    def significant(self) -> int:
        """Its significant digits as printed (``0.0900``: 3)."""
        return significant_digits(self.printed)


def significant_digits(printed: str) -> int:
    """The significant digits of a number as printed: ``0.0900`` 3, ``-0.1`` 1, ``0`` 0."""
    return len(printed.split("e")[0].strip("-+−%").replace(".", "").lstrip("0"))


def fold(text: str) -> str:
    """Full-width digits and signs, minus signs and odd spaces as ASCII, same length."""
    return text.translate(_FOLD)


def numbers_in(line: Line) -> list[Number]:
    """The numbers printed on one line, left to right."""
    s = fold(line.text)
    glued = _glued(s)
    quiet = _merged(line.quiet)
    fractions, taken = _fractions(line, s)
    skip = _merged(list(glued or ()) + taken + list(line.quiet))
    out = [n for n in fractions if not _inside(n.start, quiet)]
    end = 0
    for m in _NUMBER.finditer(s):
        if m.start() < end or _inside(m.start(), skip):
            continue                               # the -5 of 10^-5, read with its 10
        n = _number(line, s, m)
        if n is not None:
            out.append(n)
            end = n.end
    for a, b in glued or ():
        m = _BARE.fullmatch(s, a, b)
        n = _number(line, s, m, glued=True) if m else None
        if n is not None:
            n.cell = True
            out.append(n)
    for c in _COMMAND_GLUED.finditer(s):          # \approx0.5899: a number right after a command
        m = _BARE.match(s, c.end())
        n = _number(line, s, m, glued=True) if m else None
        if n is not None and not any(o.start <= n.start < o.end for o in out):
            out = [o for o in out if not n.start <= o.start < n.end] + [n]
    for m in _WORD_PERCENT.finditer(s):           # The19.9%: a table cell glued to its label
        n = _number(line, s, _BARE.match(s, m.start(1)), glued=True)
        if n is not None and not any(o.start <= n.start < o.end for o in out):
            out.append(n)
    for m in (NEG_INF_PRINTED if line.kind in ("output", "code") else _NEG_INF).finditer(s):
        printed = "-inf" if "inf" in m.group(0) and "infty" not in m.group(0) else "-∞"   # as printed
        out.append(Number(line.text[m.start():m.end()], printed, Fraction(0), line.line_at(m.start()),
                          line.column(m.start()), m.start(), m.end(), line.kind, neg_inf=True,
                          line_text=line.text))
    out = sorted((n for n in out if not _inside(n.start, quiet)), key=lambda n: n.start)
    _approximate_blocks(s, out, line.approx)
    if "[" in s and "," not in s:
        _numpy_padded(s, out)
    if line.nest or "[" in s:
        for n, index in zip(out, indices(s, line.nest, [n.start for n in out])[0]):
            n.index = index
    return out


_PLAIN = re.compile(r"-?\d+\.(\d*)")


def _numpy_padded(s: str, nums: list):
    """A NumPy printout row (``[0.0114 0.7952 0.2   ]``) prints each entry at the row's
    precision and drops trailing zeros, padding with spaces: ``0.2   `` is 0.2000, ``1.    ``
    is 1.0000 (0.99999 prints so), not 0.2 to one decimal or exactly 1. (One dropped zero
    changes the verdict of almost nothing: read as printed.)"""
    plain = [(n, _PLAIN.fullmatch(fold(n.text))) for n in nums]
    if len(nums) < 2 or any(m is None or n.exponent for n, m in plain) or \
            any(s[a.end:b.start].strip() for a, b in zip(nums, nums[1:])):
        return
    most = max(len(m.group(1)) for _, m in plain)
    for n, m in plain:
        short = most - len(m.group(1))
        if short >= 2 and s[n.end:n.end + short] == " " * short:     # one dropped zero: as printed
            n.printed = (n.printed if "." in n.printed else n.printed + ".") + "0" * short
            n.integer = False


def _inside(k: int, spans) -> bool:
    """Is ``k`` inside one of ``spans`` (merged by :func:`_merged`)?"""
    starts, ends = spans
    i = bisect.bisect_right(starts, k) - 1
    return i >= 0 and k < ends[i]


def _merged(spans) -> tuple[list, list]:
    """Spans as sorted disjoint (starts, ends), for :func:`_inside`."""
    starts, ends = [], []
    for a, b in sorted(spans):
        if ends and a <= ends[-1]:
            ends[-1] = max(ends[-1], b)
        else:
            starts.append(a)
            ends.append(b)
    return starts, ends


_CALLED = re.compile(r"(?<![A-Za-z])(?:sin|cos|tan|exp|log|ln|sqrt)\s*\(\s*$")


def _fractions(line: Line, s: str) -> tuple[list, list]:
    """The fractions of a line (``\\frac{1}{3}``, ``\\tfrac12``, ``2/3``; whole numbers
    over whole numbers) as Numbers printed ``1/3``, and the spans they cover (labels such
    as ``Step 1/3`` and fractions in a sub- or superscript cover theirs too)."""
    out, spans = [], []
    for m in _FRACTION.finditer(s):
        start, sign = m.start(), (m.group("sign") or "").strip()
        if sign and start > 0 and s[start - 1] not in _SIGN_AFTER and \
                not _ENV_OPEN.search(s, max(0, start - _BEFORE), start):
            start, sign = start + len(m.group("sign")), ""        # 3-1/2: a subtraction
        spans.append((start, m.end()))
        num = m.group("n") or m.group("n1") or m.group("n2")
        den = m.group("d") or m.group("d1") or m.group("d2")
        before = s[max(0, start - _WINDOW):start]
        exponent = _in_exponent(s[max(0, start - _BEFORE):start])
        if int(den) == 0 or exponent is None or (m.group("n2") and (
                _HEADING.search(before[-12:]) or _CALLED.search(before))):
            continue                                              # sin(2/9980): an argument
        printed = f"{'-' if sign == '-' else ''}{int(num)}/{int(den)}"
        out.append(Number(line.text[start:m.end()].strip(), printed, parse_exact(printed),
                          line.line_at(start), line.column(start), start, m.end(), line.kind, exponent,
                          integer=True, fraction=True, approximate=bool(_APPROX.search(before)),
                          line_text=line.text))
    return out, spans


def _approximate_blocks(s: str, nums: list, carried: int) -> None:
    """``≈ [1, 0]``: the mark before a bracket makes every number inside it approximate
    (``carried``: a block opened after a mark on a line above, :mod:`.nesting`); an
    approximate whole number is printed ``≈1`` so that its claim is read as rounded, not
    as exactly 1."""
    k, depth, pos = 0, carried, 0
    if carried < 0 and nums:                    # the mark ended the line above
        depth, pos = opened(s, 0, nums[0].start), nums[0].start
    while k < len(nums):
        if depth > 0:
            depth = depth_at(s, pos, nums[k].start, depth)
        if depth <= 0 and nums[k].approximate:
            depth = opened(s, nums[k].start - _WINDOW, nums[k].start, mark=True)
        elif depth > 0:
            nums[k].approximate = True
        pos, k = nums[k].start, k + 1
    for n in nums:
        if n.approximate and n.integer and not n.printed.startswith("≈"):
            n.printed = "≈" + n.printed


def number_at(line: Line, s: str, a: int, b: int) -> Number | None:
    """The number that ``s[a:b]`` (``s`` the folded line) prints, read whatever stands
    before it (a cell glued to its neighbour), or None."""
    m = _BARE.fullmatch(s, a, b)
    return _number(line, s, m, glued=True) if m else None


def _glued(s: str) -> list | None:
    """A table flattened into text, ``成分11成分22成分33``: a label repeated with the indices
    1, 2, 3, … each followed at once by its value. The value spans, or None."""
    for m in _GLUED_FIRST.finditer(s):
        word, spans, at, k = m.group(1), [], m.start(), 1
        while s.startswith(f"{word}{k}", at):
            v = _GLUED_VALUE.match(s, at + len(word) + len(str(k)))
            if not v:
                break
            spans.append((at, v.end(), v.start()))
            at, k = v.end(), k + 1
        if len(spans) >= 2:
            return [(vs, ve) for _, ve, vs in spans] + [(a, vs) for a, _, vs in spans]
    return None


def _number(line: Line, s: str, m: re.Match, glued: bool = False) -> Number | None:
    start = m.start()
    sign = m.group("sign") or ""
    if sign and not glued and s[start - 1:start].strip() not in _SIGN_AFTER and start > 0 \
            and s[start - 1] not in _SIGN_AFTER and not _ENV_OPEN.search(s, max(0, start - _BEFORE), start):
        start += 1                              # 3-4: a subtraction, not a sign
        sign = ""
    before = s[max(0, start - _BEFORE):start]         # a window: linear in the line's length
    exponent = _in_exponent(before)
    if exponent is None or _is_label(before, m, s, start <= _LEAD.match(s).end()):
        return None
    digits = m.group("digits")
    e = m.group("e") or ""
    e2 = m.group("e2") or m.group("e3") or (m.group("sup") or "").translate(_SUPERSCRIPT) or None
    end = m.end()
    if e2 is None and digits == "10" and not m.group("pct"):
        power = _POWER.match(s, end)            # 10^{-5}, 10⁻⁵: the power itself, 1e-5
        if power and not s[power.end():power.end() + 1].isalnum():
            digits, end = "1", power.end()
            e2 = (power.group(1) or power.group(2) or power.group(3).translate(_SUPERSCRIPT))
    if e2 is not None:
        e = f"e{e2}"
    pct = "%" if m.group("pct") else ""
    plain = digits.replace("{,}", "").replace(",", "").removesuffix(".")     # torch's "1." is the integer 1
    printed = f"{'-' if sign == '-' else ''}{plain}{e}{pct}"
    try:
        value = parse_exact(printed.rstrip("%"))
    except LimitError as e:                     # a number of a million digits: say where
        e.line = line.number
        raise
    except SymattnError:                        # an exponent past the limits: not a claim
        return None
    return Number(line.text[start:end].strip(), printed, value, line.line_at(start),
                  line.column(start), start, end, line.kind, exponent,
                  integer="." not in digits and not e and not pct,
                  approximate=bool(_APPROX.search(before[-_WINDOW:])), line_text=line.text)


def _in_exponent(before: str) -> bool | None:
    """True in the exponent of e (an operand), None in another sub- or superscript."""
    t = before.rstrip().removesuffix("{").rstrip()
    if t.endswith("_"):
        return None
    if t.endswith("^"):
        return _e_base(t[:-1])
    inner = re.search(r"([_^])\{[^{}]*$", before)
    if inner:
        return _e_base(before[:inner.start()]) if inner.group(1) == "^" else None
    return False


def _e_base(base: str) -> bool | None:
    base = base.rstrip()
    return True if base.endswith("e") or base.endswith("\\exp") else None


_ROW_NUMBER = re.compile(r"\s*[：:]\s*[^\W\d]")


def _is_label(before: str, m: re.Match, s: str, first: bool) -> bool:
    """A list marker, or the number of a step, section or figure: not a claim."""
    digits = m.group("digits")
    if m.group("e") or m.group("e2") or m.group("e3") or m.group("sup") or m.group("pct"):
        return False
    if first and (digits.endswith(".") or s[m.end():m.end() + 1] == ")") \
            and s[m.end():m.end() + 1] in (" ", ")", ""):
        return True
    if first and digits.isdigit() and _ROW_NUMBER.match(s, m.end()):
        return True                              # 2：猫, 3: sleeps: a row's numbered label
    if before.rstrip().endswith(("§", "Section", "section", "Sec.", "Eq.", "Fig.")):
        return True                              # §3.5: a section, whatever its digits
    if digits.isdigit() and _INDEX_WORD.search(before[-12:]):
        return True                              # token 3, head 2: which one, not a value
    return bool(_HEADING.search(before[-12:]))     # Step 4, Figure 3.2, 第5章
