"""Arithmetic the text writes out: a function of one number (``-\\log(0.659) = 0.417``,
``e^{2.0} = 7.389``, ``\\sqrt{64} = 8``, ``ln(0.25) ≈ -1.386``, ``\\cos(1) = 0.5403``) and expressions of several
numbers (``0×1 + 1×0.5 = 0.5``: a dot product worked by hand; ``1 / 1.732 = 0.577``,
``\\frac{12.182}{16.721} = 0.7285``: :mod:`.arithmetic` reads them; a list's sum written
beside it, ``exp: [3.145, 2.489]  sum=5.634``, over that row's entries), also entry by entry in
a vector equation (``[exp(-0.00707), exp(0.0)] ≈ [0.9929, 1.0]``, ``0.4×[0.3, 0.2] = [0.12,
0.08]``, ``[1.0, 1.5] + [0.9, 0.6] = [1.9, 2.1]``).

Each becomes a step of one entry (:mod:`.written_steps`), the function (a declared primitive: its maths is the
primitive's) of the number: of its entry in the nearest block before it that prints it
(``-log(p[0, 2])``: the exact value that print rounds, so a result worked from the rounded
print is carried, as the keys count it), else of an earlier written result it prints
(``1.732`` of ``sqrt(3) ≈ 1.732``), or of the number as written. The step's line is the
result's, and the result as printed its claim: the check judges that number, right or
wrong, as for a hand-written spec (beside another result on its line too). Only a function
that starts its expression and a result that ends it are read (``e^{2.0} + e^{1.0} =
10.107`` is no ``e^{1.0}``); a logarithm without a base whose result fits base 2 or 10 and
not e is left alone, as the text does not say which it means. An expression is read only
where each of its decimals is a print of an earlier block's entry or written result (its
exact value then): a decimal of unknown origin is a rounded number (``2.034 + 1 + 2.034 ≈
5.068`` of exps worked from rounded scores), and the arithmetic as written would call right
a number the example gets wrong. Arithmetic on no block's numbers is an example of its own.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from ..article.tokens import fold
from ..errors import SymattnError
from .blocks import spec_name
from .arithmetic import expression
from .written_sums import ELIDED, column_sum, elided_sum, row_sums
from .written_lists import ENTRIES as _ENTRIES, GOES_ON as _GOES_ON, NUM as _NUM, NUMS as _NUMS, \
    across as _across, elementwise as _elementwise

_END = r"(?!\d|\.\d|,\d{3}(?!\d)|\{,\}\d|[A-Za-zα-ωΑ-Ω]|\\?%)"   # a number's end: not 22 of 22,026 or
                                              # 39{,}000 (nor a sentence's), nor 2 of 2π, nor 43 of 43%
EQUALS = r"(?:=|≈|\\approx|\\simeq|≃)"     # what a result is written after


def _arg(k: str) -> str:
    """``(x)`` or ``{x}``, the number in group ``<k>p`` or ``<k>b``."""
    return rf"\(\s*(?P<{k}p>{_NUM})\s*\)|\{{\s*(?P<{k}b>{_NUM})\s*\}}"


_WORD = r"(?:\\|(?<![A-Za-z\\]))"           # \log, or log as a word of its own
_FUNCTION = re.compile(
    rf"(?P<neg>-\s*)?(?:"
    rf"{_WORD}(?P<log>log|ln)(?:_\{{?(?P<base>2|10|e)\}}?)?(?:{_arg('l')}|\s+(?P<ls>{_NUM}))"
    rf"|{_WORD}exp(?:{_arg('x')})"
    rf"|{_WORD}(?P<trig>sin|cos)(?:{_arg('t')})"
    rf"|(?<![A-Za-z\\])e\^(?:{_arg('e')}|(?P<es>\d+(?:\.\d+)?))"
    rf"|(?:{_WORD}sqrt|√)(?:{_arg('s')}|(?<=√)\s*(?P<ss>\d+(?:\.\d+)?))"
    rf"|(?:\((?P<qp>{_NUM})\)|(?<![\w.])(?P<qs>\d+(?:\.\d+)?))\s*(?:²|\^\{{?2\}}?(?![\d.])))"
    rf"\s*{EQUALS}\s*(?P<result>{_NUM}(?:[eE][-+]?\d+)?){_END}")
_OPEN = re.compile(r"(?:[-+*/×·^_{}()\[\]\d]|\\cdot|\\times|\\frac)\s*$")   # an operand before it
_ENDED = re.compile(rf"(?:=|≈|\\approx)\s*{_NUM}(?:\s{{2,}}|\s*[,;]\s*)$")   # ``e^2.0 = 7.39    e^1.0 = …``:
                                                 # the equation before it ended: no operand
_BINARY = re.compile(r"[\w)\]}]\s*$")             # ``x - log(…)``: a minus between two operands
_LABEL = re.compile(r"(?<![\w\\])(?:\\(?:mathcal|mathrm|text)\{(\w+)\}|\\?([A-Za-z]\w*))(_\{?\w+\}?)?\s*=\s*$")
_OF = re.compile(r"(?:\\?(?:log|ln|exp|sqrt)|[-+*/^_(√·×]|\\cdot|\\times)\s*$")
_RESULT = re.compile(rf"{EQUALS}\s*(?P<result>{_NUM}(?:[eE][-+]?\d+)?){_END}")
_INSIDE = set("_^.'])}\\")            # an expression cut out of a name, an index or a call
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_BULLET = re.compile(r"^\s*[-*+]\s+(?=\S)")
_STAR_BULLET = re.compile(r"^\s*\*\s+(?=\S)")
ARITHMETIC = "arithmetic"                 # the key of a written expression of several numbers
NO_END = 10 ** 9                           # a chain of written steps alone: its block's part is not cut
_TEX = ((r"\left(", "("), (r"\right)", ")"), (r"\mathrm{e}", "e"), (r"\operatorname{log}", r"\log"),
        (r"\,", " "), (r"\!", ""), ("\\ ", " "), (r"\;", " "), (r"\:", " "))


@dataclass(frozen=True)
class Written:
    """``f(argument) = result`` on ``line``: the function's ``key`` (``log``, ``log2``,
    ``log10``, ``exp``, ``sqrt``, ``square``, ``sin``, ``cos``; ``arithmetic`` for an expression of several
    numbers, its argument the expression as written), negated or not, the argument and the result as printed; ``form``:
    the spec language's expression over ``{0}``, ``{1}``… for its ``numbers``."""
    key: str
    negated: bool
    argument: str
    result: str
    line: int
    printed: str = ""        # the result as printed (signs and digits folded to ASCII)
    label: str = ""          # the name the text gives it (``L = -\log(0.659) = 0.417``)
    form: str = ""
    numbers: tuple = ()
    earlier: tuple = ()      # (form, numbers) of the expressions it equals before it, first first
                             # (``(0.3 × 0.4) + (0.6 × 0.7) = 0.12 + 0.42 = 0.54``)
    strict: bool = False     # each decimal a print of a block's entry or a written result, none
                             # a given of the arithmetic (an entry of lists worked together)
    place: int = -1          # which entry of a vector equation it is (-1: none)
    across: tuple = ()       # for each of its forms (earlier first): each number's row, the
                             # numbers in its place in every entry of the vector equation
    row: bool = False        # its numbers may be one printed row, in order (a sum beside its
                             # list, a softmax of a list): that row's entries, where one is
    results: tuple = ()      # the whole result of a vector equation it is an entry of
    substituted: bool = False   # its decimals are givens: the symbols' values where it is written
                                # after its form in symbols (``W_Q * x1 = 0.1 * 0.2``), the list
                                # a statistic is called on (``std(6.5, 2.1, 8.3)``)


def written(lines) -> list[Written]:
    """The arithmetic written on the lines of one article part (a line that opens with ``=``
    goes on with the line above, and in code one that opens with ``+``: ``+ 0.335 × [0.5,
    1.5]``; a result the next line goes on from with ``+`` is a term, not the result; a list
    a name is given in numbers goes on from the list the same name was given worked out a
    few lines above: ``P = [\\frac{e^{2}}{…}, …]``, "after calculations", ``P = [0.71, …]``)."""
    out, chain, above, worked, run = [], "", [], {}, []
    texts = [arithmetic_text(ln) for ln in lines]
    for k, (ln, text) in enumerate(zip(lines, texts)):
        total = _summed(column_sum(text, above), ln.number)
        if total is not None:
            out.append(total)
        code = getattr(ln, "kind", "text") != "text"
        if not text.strip() and chain:      # ``\[ = (0.22)(0.54) + … \]``, a blank, ``\[ = 0.1188 + … \]``
            above = []
            continue
        named = _NAMED_LIST.fullmatch(text)
        if named and named.group(1) in worked and ln.number - worked[named.group(1)][0] <= WORKED_APART \
                and _NUMBERS_ONLY.fullmatch(named.group(2)):
            chain, text = worked.pop(named.group(1))[1], text[text.index("="):]   # P = [\frac{e^2}{…}, …]
        elif named and not _NUMBERS_ONLY.fullmatch(named.group(2)) and "=" not in named.group(2):
            worked[named.group(1)] = (ln.number, text)      # … "After calculations:" P = [0.71, …]
        chain = f"{chain} {text}" if chain and continues(text, code) else text
        nxt = texts[k + 1] if k + 1 < len(texts) else ""
        ahead = " +" if code and _PLUS_LINE.match(nxt) else ""     # ``= [0.329, 0.0]`` then ``+ [0.168, …]``
        out += _functions(text + ahead, ln.number)
        out += _sums(chain + ahead, ln.number, len(chain) - len(text))
        out += [_summed(found, ln.number, row=True) for found in row_sums(text)]
        out += [w for w in (_summed(elided_sum(chain, run), ln.number),) if w is not None]
        out += _softmax_of_list(chain + ahead, ln.number, len(chain) - len(text))
        out += _statistics(text, ln.number)
        entries: list = []
        for entry, strict, place in _elementwise(chain + ahead, len(chain) - len(text)):
            if place == 0:                   # [exp(-0.00707), exp(0.0)] ≈ [0.9929, 1.0]
                out += _across(entries)
                entries = []
            entries += [replace(w, strict=strict, place=place)
                        for w in _functions(entry, ln.number) + _sums(entry, ln.number)]
        out += _across(entries)
        mine = [w for w in out if w.line == ln.number]
        above = above + [mine[-1]] if len(mine) == 1 and _ENDS.search(text) and total is None else []
        run = above if len(above) >= ELIDED else run
    return [w for w in out if _plain(w)]


WORKED_APART = 6            # lines between a list worked in symbols and its numbers, at most
_NAMED_LIST = re.compile(r"\s*([A-Za-z]\w{0,11})\s*=\s*\[(.*)\]\s*")
_NUMBERS_ONLY = re.compile(rf"\s*{_NUMS}\s*")
_ENDS = re.compile(rf"(?:=|≈)\s*{_NUM}\s*(?:(?:←|<-|#|//)[^=≈]*)?$")     # ``= 42.521  ← Largest!``


def _summed(found: tuple | None, line: int, row: bool = False) -> Written | None:
    """The written arithmetic ``numbers[0] + numbers[1] + … = result`` on ``line`` of a sum
    :mod:`.written_sums` found (``found``: its numbers and result), or None."""
    if found is None:
        return None
    numbers, result = found
    return Written(ARITHMETIC, False, " + ".join(numbers), result, line, result, "",
                   " + ".join(f"{{{k}}}" for k in range(len(numbers))), numbers, row=row)


_PLUS_LINE = re.compile(r"\s*\+")


_EMPHASIS = re.compile(r"\\(?:mathbf|boldsymbol|bm|textbf|mathit|textit|underline|boxed)\{([^{}]*)\}"
                       r"|(\*\*|__)(\S[^*_]*?)\2")
_DOUBLED = re.compile(r"\\\\(?=(?:frac|text|sum|sqrt|cdot|times|approx|exp|log|ln)\b)")   # ``\\frac``: a
                                                           # string's escape, not a row's end
_ALIGNED = re.compile(r"&\s*(?==|≈|\\approx)")
_TEX_MATH = re.compile(r"\\[()\[\]]")
_ASIDE = re.compile(r"\s\((?=[^()]*[A-Za-z]{2})[^()\d=+*/^\\]*\)\s*(?==|≈|\\approx)")   # e^{3.2} (for "mat") ≈


def arithmetic_text(ln) -> str:
    """A line's text as the arithmetic is read: folded, TeX spacing and delimiters plain, a
    list item's bullet blanked (``- e^{0.55} = 1.733``), emphasis unwrapped (``\\mathbf{0.49}``,
    ``**0.49**``), an aligned equation's ``&=`` an equals sign, an aside before the equals
    sign left out (``e^{3.2} (for "mat") ≈ 24.53``)."""
    text = _DOUBLED.sub(r"\\", fold(ln.text))
    for a, b in _TEX:
        text = text.replace(a, b)
    text = _EMPHASIS.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(3), text)
    text = _ASIDE.sub(" ", _TEX_MATH.sub(" ", _ALIGNED.sub("", text)))
    if getattr(ln, "kind", "text") == "text":
        text = _BULLET.sub(lambda b: " " * len(b.group()), text)
    else:                               # a list indented into a code block: ``    * e^{3.2} ≈ 24.53``
        text = _STAR_BULLET.sub(lambda b: " " * len(b.group()), text)
    return text


def continues(text: str, code: bool = False) -> bool:
    """Whether a line (folded) goes on with the equation of the line above: it opens with
    ``=`` (in code with ``+`` too)."""
    return re.match(r"\s*(?:=|≈|\+)" if code else r"\s*(?:=|≈)", text) is not None


def _functions(text: str, line: int) -> list[Written]:
    """The functions of one number written on a line (folded) with their results."""
    out = []
    for m in _FUNCTION.finditer(text):
        before = text[:m.start()]
        if (_OPEN.search(before) and not _ENDED.search(before)) or _GOES_ON.match(text, m.end()) or (
                m.group("neg") and m.group("neg") != "-" and _BINARY.search(before)):
            continue
        group = next(k for k in _ARGUMENTS if m.group(k))
        key = _key(m) if group[0] == "l" else m.group("trig") if group[0] == "t" else _KINDS[group[0]]
        form = TEMPLATE[key].format("{0}")
        if m.group("neg"):
            form = f"-({form})" if " / " in form else f"-{form}"
        out.append(Written(key, bool(m.group("neg")), m.group(group), m.group("result"),
                           line, m.group("result"), _label(before), form, (m.group(group),),
                           earlier=_worked_argument(before, key) if not m.group("neg") else ()))
    return out


_CALL_BEFORE = re.compile(r"(?<![A-Za-z])\\?(?P<f>sin|cos|exp|sqrt)\s*\((?P<arg>[^()=]*(?:\([^()=]*\)[^()=]*)*)\)"
                          rf"\s*{EQUALS}\s*$")


def _worked_argument(before: str, key: str) -> tuple:
    """((form, numbers),) of the same function of arithmetic written just before it
    (``sin(1/10000^(2/4)) = sin(0.1) ≈ 0.100``: the result is that of the first side, the
    argument worked out between them a step of the chain), or ()."""
    m = _CALL_BEFORE.search(before)
    if m is None or m.group("f") != key:
        return ()
    got = expression(m.group("arg"))
    if got is None or m.group("arg")[:got[2]].strip() or not any(op in got[0] for op in "+-*/"):
        return ()
    return ((TEMPLATE[key].format(got[0]), got[1]),)


def _sums(text: str, line: int, since: int = 0) -> list[Written]:
    """The arithmetic of two numbers or more written on one line (folded) and its result:
    ``0×1 + 1×0.5 = 0.5``, ``1 / 1.732 = 0.577``, ``\\frac{12.182}{16.721} = 0.7285``
    (:func:`.arithmetic.expression`), whole numbers too (``512 / 8 = 64``); not an expression
    that a name, an index or a bracket opens (``x_1 + 0.5``, ``[0.99/1.99``: a vector's entry)."""
    out = []
    for m in _RESULT.finditer(text, since):
        if _GOES_ON.match(text, m.end()):
            continue
        found = expression(text[:m.start()])
        if found is None:
            continue
        form, numbers, start = found
        before, prev = text[:start].rstrip(), text[start - 1:start]
        if len(numbers) < 2 or _NAME_PART.match(prev) or prev in _INSIDE or before[-1:] in ("[", ","):
            continue
        earlier, at = _earlier(text, start)
        run_on = _RUN_ON.match(text, m.end()) is not None      # ``L=2×1=2=2×0.01=0.02``: equations
        out.append(Written(ARITHMETIC, False, text[start:m.start()].strip(), m.group("result"), line,   # run
                           m.group("result"), "" if run_on else _label(text[:at].rstrip() + " "),     # together
                           form, numbers, earlier, substituted=_SYMBOLS.search(text[:at]) is not None))
    return out


_RUN_ON = re.compile(r"\s*=\s*-?\d")
_NAME_PART = re.compile(r"[A-Za-z_\d]")       # a name's character before it (``x1 + 0.5``); a word of
                                              # a script without spaces is none (``第1成分は0×0 + 1×0 = 0``)


_SYMBOLS = re.compile(r"(?:^|=|≈)(?=[^=≈]*[^\W\d])(?=[^=≈]*(?:[*×·+/]|\\cdot|\\times|\\frac))"
                      r"(?![^=≈]*\d\.\d)[^=≈]*=\s*$")     # ``W_Q * x1 * W_K * x1 =`` (no decimal in it)


_SOFTMAX_OF = re.compile(rf"(?<![\w.])[Ss]oftmax\}}?\s*(?:\\left)?\s*\(\s*(?:(?:\\left)?\s*\[)?\s*({_ENTRIES})"
                         rf"\s*(?:(?:\\right)?\s*\])?\s*(?:\\right)?\s*\)")   # \text{softmax}\left([…]\right), softmax(a, b)
_LAST_LIST = re.compile(rf"(?:=|≈|\\approx)\s*(?:\\left)?\s*([\[(])\s*({_NUMS})\s*(?:\\right)?\s*[\])]"
                        rf"(?=[^\[\]=≈]*$)")                           # the result, [a, b] or (a, b)


def _softmax_of_list(text: str, line: int, since: int = 0) -> list[Written]:
    """``softmax([0.9, 0.2, 0.1]) ≈ [0.72, 0.15, 0.13]``, ``softmax(0.71, 0, 0.71) ≈ (0.39,
    0.22, 0.39)`` (the result the last list the
    equation ends with, at ``since`` or after; lines worked between them aside): each entry
    the arithmetic ``exp({k}) / (exp({0}) + exp({1}) + …)`` of the list, in its place."""
    m = _SOFTMAX_OF.search(text)
    end = _LAST_LIST.search(text, since)
    if m is None or end is None or end.start() < m.end() or _GOES_ON.match(text, end.end()):
        return []
    numbers = tuple(x.strip() for x in m.group(1).split(","))
    results = [x.strip() for x in end.group(2).split(",")]
    if len(results) != len(numbers) or not any("." in x for x in numbers + tuple(results)):
        return []
    total = " + ".join(f"exp({{{k}}})" for k in range(len(numbers)))
    return [Written(ARITHMETIC, False, m.group(0), r, line, r, "", f"exp({{{k}}}) / ({total})", numbers,
                    place=k, row=True, results=tuple(results)) for k, r in enumerate(results)]


_STATISTIC = re.compile(rf"(?<![\w])(?:(?:np|numpy|torch|statistics)\.)?(?P<f>mean|average|avg|std|stdev|var|"
                        rf"variance|sum)\s*\(\s*(?P<open>\[)?\s*(?P<xs>{_NUMS})\s*(?(open)\])\s*\)"
                        rf"\s*{EQUALS}\s*(?P<result>{_NUM}){_END}")
_STATISTICS = {"mean": "mean", "average": "mean", "avg": "mean", "sum": "sum",
               "std": "std", "stdev": "std", "var": "var", "variance": "var"}


def _statistics(text: str, line: int) -> list[Written]:
    """``mean([7, 5, 4]) = 5.33``, ``std(7,5,4) = 1.25``, ``np.var([…]) ≈ …``, ``sum(…) = …``:
    the spec language's statistic of the list (``mean(concat({0}, {1}, {2}))``); a standard
    deviation or variance by the convention its result fits, population or sample (texts
    write both), else the nearer."""
    out = []
    for m in _STATISTIC.finditer(text):
        if _GOES_ON.match(text, m.end()):
            continue
        numbers = tuple(x.strip() for x in m.group("xs").split(","))
        row = f"concat({', '.join(f'{{{k}}}' for k in range(len(numbers)))})"
        kind = _STATISTICS[m.group("f")]
        forms = [f"{kind}({row})"] if kind in ("mean", "sum") else \
            [f"{'sqrt(' if kind == 'std' else '('}var({row}, ddof={d}))" for d in (0, 1)]
        form = min(forms, key=lambda f: _off(f, numbers, m.group("result")))
        out.append(Written(ARITHMETIC, False, m.group(0), m.group("result"), line, m.group("result"),
                           _label(text[:m.start()]), form, numbers, row=True, substituted=True))
    return out


def _off(form: str, numbers: tuple, result: str) -> float:
    """How far the value of ``form`` over ``numbers`` is from ``result``, in units of its last
    printed digit (0 within rounding; infinite where undefined)."""
    v = form_value(form, numbers)
    half = 0.5 * 10.0 ** -len(result.partition(".")[2])
    return math.inf if v is None else max(0.0, abs(v - float(result)) - half * (1 + 1e-9)) / half


def _earlier(text: str, start: int) -> tuple[tuple, int]:
    """The expressions an expression at ``start`` is written equal to before it (``A = B =
    …``), the first first, and where the first starts."""
    out = []
    while True:
        left = text[:start].rstrip()
        if not left.endswith(("=", "≈")):
            return tuple(reversed(out)), start
        found = expression(left[:-1])
        if found is None:
            return tuple(reversed(out)), start
        form, numbers, start = found
        out.append((form, numbers))


def _label(before: str) -> str:
    """The spec name of what the text calls the result (``L =``, ``\\mathcal{L} =``), or ''."""
    m = _LABEL.search(before)
    if m and _OF.search(before[:m.start()]):
        return ""                            # -\\log p_{cat} = -\\log(0.659): its operand's name
    return spec_name((m.group(1) or m.group(2)) + (m.group(3) or "")) if m else ""


_ARGUMENTS = ("lp", "lb", "ls", "xp", "xb", "tp", "tb", "ep", "eb", "es", "sp", "sb", "ss", "qp", "qs")
_KINDS = {"x": "exp", "e": "exp", "s": "sqrt", "q": "square"}     # by the argument's group


def _key(m: re.Match) -> str:
    """``log`` (natural: ``\\ln``, ``\\log`` with no base or base e), ``log2`` or ``log10``."""
    base = m.group("base")
    return "log" if base in (None, "e") or m.group("log") == "ln" else "log" + base


def _value(key: str, x: str) -> float | None:
    """The float value of the function ``key`` at the number ``x`` (the spec language's
    own), or None where it is undefined."""
    return _float(TEMPLATE[key].format(f"({x})"))


def form_value(form: str, numbers: tuple) -> float | None:
    """The float value of a written form (``{0} / {1}``) over its numbers as written."""
    return _float(form.format(*(f"({x})" for x in numbers)))


def _float(text: str) -> float | None:
    """The float value of an expression of numbers in the spec language, or None where it
    is undefined."""
    from ..evaluation import float_value
    from ..spec import expr as E
    from ..spec.build import build
    try:
        with np.errstate(all="ignore"):
            v = build(E.parse(text), {})
            v = float(v) if isinstance(v, Fraction) else float(np.asarray(float_value(v), dtype=float).flat[0])
    except (SymattnError, ValueError, TypeError, ZeroDivisionError, ArithmeticError):
        return None
    return v if math.isfinite(v) else None


def _plain(w: Written) -> bool:
    """Defined there, not misread (:func:`_misread`), and not a logarithm whose base the
    text leaves open while its result fits another."""
    if w.key == ARITHMETIC:
        return not _misread(w)
    if w.key != "log":
        return _value(w.key, w.argument) is not None
    r = float(w.result)
    half = 0.5 * 10.0 ** -len(w.result.partition(".")[2]) if "e" not in w.result.lower() else 0.0

    def fits(key):
        v = _value(key, w.argument)
        return v is not None and abs((-v if w.negated else v) - r) <= half * (1 + 1e-9)
    return _value("log", w.argument) is not None and (fits("log") or not (fits("log2") or fits("log10")))


MISREAD = 10 ** 4          # sides this many times apart: the text misread, not miscomputed
MISREAD_WHOLE = 2          # so for whole numbers (``θ0=100000/21=1`` of a flattened power): a slip
                           # of whole-number arithmetic is off by a term or a digit, not twice over


def _misread(w: Written) -> bool:
    """Does a side of ``w`` (any expression it is written equal to) differ from its result
    by :data:`MISREAD` times or more? Exponents flattened to digits in a page's text
    (``θ1=100001/21=0.01`` of ``10000^{-2·1/4}``, ``2×1=2=2×0.01=0.02``: equations run
    together) read so; no slip of an author's is that far off, and judging it would call
    a misreading of ours wrong."""
    r = float(w.result)
    for form, numbers in w.earlier + ((w.form, w.numbers),):
        v = form_value(form, numbers)
        far = MISREAD_WHOLE if all("." not in x for x in numbers + (w.result,)) else MISREAD
        if v is not None and v != 0 and r != 0 and not 1 / far < abs(r / v) < far:
            return True
    return False


TEMPLATE = {"log": "log({})", "log2": "log({}) / log(2)", "log10": "log({}) / log(10)",
             "exp": "exp({})", "sqrt": "sqrt({})", "sin": "sin({})", "cos": "cos({})",
             "square": "{} ** 2"}
