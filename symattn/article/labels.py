"""What the text says a printed block is: the label written before it, resolved to a step.

A careful reader assigns a printed block by what the article writes beside it before
looking at its values: the left-hand side of the equation or assignment it ends
(``Q_{love} = […]``, ``A_{love,ML} = 0.37``, ``K_love = […]``, ``X_\\text{cat} = […] = […]``,
``attn_scores = querys @ keys.T`` above a printout, ``print(keys)``), a table column's
header with the table row it stands in (``| cat | [0.52, …] |`` under ``$X_i$``), and
transposes (``^\\top``, ``^T``, ``.T``). A label names a tensor of the spec by its name,
its ``latex`` symbol or a step's ``aliases``; its subscript or index names a row (a row
label, or an index) and a column.

>>> label_text("X_\\\\text{cat} = [0.5+0.841, 0.4+0.540] = ", 40)
'X_\\\\text{cat}'
>>> parse(r"A_{love,ML}")
Name(name='A', sub=('love', 'ML'), transposed=False)
>>> parse("S^\\\\top")
Name(name='S', sub=(), transposed=True)
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

from .prints import above
from .tokens import fold

# The left-hand side of an equation or assignment that a block ends.
_ENDS_VALUE = re.compile(r"(?:=|≈|≒|\\approx|:)\s*~?\s*(?:\\left\s*)?(?:[\[(]|\\begin\{[bpvBV]?matrix\}|"
                         r"tensor\(|array\(|\\bigl?|\\Bigl?)*\s*$")
_LEAD = re.compile(r"^(?:[\s$&#*>|`\[]|\\(?![A-Za-z]))*(?:\\\[|\\begin\{(?:aligned|align\*?|equation\*?|split)\})?[\s&$]*")
TRANSPOSE = r"\^\{?\s*(?:T|\\top|\\intercal|⊤|\\mathsf\s*\{?T\}?|\\mathrm\s*\{?T\}?)\s*\}?|\.T\b|ᵀ"   # a transpose mark
_NAME = re.compile(r"""
    (?P<name>\\?[^\W\d_][\w]*?|\\[A-Za-z]+)
    (?P<sub>_\{(?:[^{}]|\{[^{}]*\})*\}|_[^\W_]+|_\\?[A-Za-z]+)?
    (?P<idx>\[[^\[\]]*\]|\([^()]*\))?
    (?P<t>""" + TRANSPOSE + r""")?
    \s*$""", re.X)
WRAP = re.compile(r"\\(?:text|mathrm|mathbf|boldsymbol|mathit|operatorname|bm)\s*\{([^{}]*)\}")
_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "sigma": "σ", "mu": "μ", "theta": "θ",
          "epsilon": "ε", "varepsilon": "ε", "lambda": "λ", "tau": "τ"}
_FREE = {"i", "j", "k", "t", "n", "m", "pos", "p"}
_ROW_WORD = r"(?:token|word|position|pos|input|query|row)"
_ROW_NAMED = re.compile(r"^" + _ROW_WORD + r"\s+(?=\w)", re.I)     # (token 3): the row 3


class Name(NamedTuple):
    """A label as written: its name, its subscript or index parts, a transpose mark."""
    name: str
    sub: tuple
    transposed: bool


class Target(NamedTuple):
    """A tensor a label names, with the row and column it names (None: not named; -1 for a
    free index such as ``i`` in ``X_i``: the row is the table row's)."""
    tensor: str
    row: int | None
    col: int | None
    transposed: bool
    exact: bool                   # named by its own name (not a prefix of a longer one)


# how articles write the operations' parameters (``T = 0.5``, ``ε = 10^{-5}``)
_PARAMETER_WORDS = {"τ": "T", "temperature": "T", "temp": "T", "ε": "eps", "epsilon": "eps",
                    "θ": "theta", "m": "slope", "p": "p", "dropout": "p", "lr": "lr", "η": "lr"}


_PARAMETER_PHRASE = re.compile(r"(?:dropout|temperature|learning\s+rate|smoothing|epsilon|rate)"
                               r"\s*(?:\(?\s*\\?[A-Za-zα-ω]{1,7}\s*\)?)?\s*$", re.I)


def parameter(name: Name | None, spec, lhs: str = "") -> bool:
    """Does the label name a parameter of the operations (a temperature, ε, a base, a
    slope, a dropout rate) rather than a tensor of ``spec``? Its number prints no entry.
    ``lhs``: the label as written (``dropout p``: the word says, whatever ``p`` names)."""
    if _PARAMETER_PHRASE.search(fold(lhs)):
        return True
    if name is None or name.sub and name.name not in ("d",):
        return False
    word = _PARAMETER_WORDS.get(name.name, _PARAMETER_WORDS.get(name.name.lower(), name.name))
    return word in _parameters() and not _resolve(name, spec)


def _operations() -> dict:
    from ..ops import OPERATIONS
    return OPERATIONS


def _parameters() -> frozenset:
    """The scalar parameters of the declared operations (a number by default, or a whole
    number by its converter), and the two that no operation takes (dropout, learning rate)."""
    global _PARAMS
    if _PARAMS is None:
        from ..ops import OPERATIONS
        from fractions import Fraction
        _PARAMS = frozenset({p.name for op in OPERATIONS.values() for p in op.params
                             if p.convert == "whole" or (isinstance(p.default, (int, Fraction))
                                                         and not isinstance(p.default, bool))}
                            | {"eps", "scale", "slope", "theta", "p", "lr"})
    return _PARAMS


_PARAMS = None


def label_text(text: str, start: int) -> str | None:
    """The left-hand side of the equation whose value starts at ``start`` in ``text``, or
    None when the block does not follow ``=``, ``≈`` or ``:`` (then a caption may say)."""
    before = fold(text[:start])
    if not _ENDS_VALUE.search(before):
        return None
    before = before[_chain_start(before):]
    first = re.search(r"(?<![=<>!])(?:=|≈|≒|\\approx|:)(?!=)", before)
    if first is None:
        return None
    lhs = _LEAD.sub("", before[:first.start()]).rstrip(" &\t")
    return lhs or None


def _delimiter(text: str, k: int) -> bool:
    """Is ``text[k]`` the bracket of a maths delimiter (``\\[``, ``\\(``), not ``\\\\[2pt]``?"""
    slashes = len(text[:k]) - len(text[:k].rstrip("\\"))
    return slashes % 2 == 1


_SEPARATOR = re.compile(r"\\q?quad|[,;。、#]|\\text\{\s*(?:and|for)\s*\}|\s(?:and|where)\s")


def _chain_start(text: str) -> int:
    """Where the equation that ends ``text`` begins: after the last separator (``,\\quad``,
    ``;``, ``。``) outside brackets."""
    depth, start = 0, 0
    for k, c in enumerate(text):
        if c in "()[]" and _delimiter(text, k):
            continue                           # \[ … \]: display maths, no bracket
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0:
            m = _SEPARATOR.match(text, k)
            if m:
                start = m.end()
    return start


# "Q for token 2", "K of the word love": the name and the row its words say
_FOR_ROW = re.compile(r"^(?P<name>[^\W\d_]\w*)\s+(?:for|of)\s+(?:the\s+)?" + _ROW_WORD +
                      r"\s*(?P<row>\w+)$", re.I)


def parse(lhs: str) -> Name | None:
    """The name a left-hand side writes last (``we get Q`` → ``Q``), its subscript parts
    and transpose, or None."""
    s = WRAP.sub(r"\1", lhs.strip().rstrip(":").strip())
    s = s.replace("\\,", " ").replace("{}", "")
    m = _FOR_ROW.match(s)
    if m:
        s = f"{m.group('name')}_{{{m.group('row')}}}"
    m = _NAME.search(s)
    if m is None:
        return None
    name = unicodedata.normalize("NFKC", m.group("name").lstrip("\\"))     # Ｑ is Q
    name = _GREEK.get(name, name)
    sub = m.group("sub") or ""
    idx = m.group("idx") or ""
    parts = []
    for piece in (sub[1:].strip("{}"), idx[1:-1]):
        parts += [_ROW_NAMED.sub("", p.strip().strip("'\"").strip("{}")) for p in piece.split(",")
                  if p.strip()]
    return Name(name, tuple(parts), bool(m.group("t")))


_NUMBERED = re.compile(r"([^\W\d_]+?)_?(\d+)")


def resolve(name: Name, spec) -> list[Target]:
    """The tensors of ``spec`` the label may name, its own name first; a name that names
    none but ends in a number (``Q4``: the fourth query? head 4's?) names its stem's,
    the row left for the values to say."""
    out = _resolve(name, spec)
    m = _NUMBERED.fullmatch(name.name)
    if out or m is None:
        return out
    return _resolve(Name(m.group(1), name.sub, name.transposed), spec)


def _resolve(name: Name, spec) -> list[Target]:
    labels = {str(x) for t in spec.tensors.values() for x in (t.rows or ()) + (t.cols or ())}
    if "_".join((name.name,) + name.sub) not in spec.tensors and \
            any(p in spec.tensors and p not in labels for p in name.sub):      # LN(x), softmax(S)
        name = name._replace(sub=tuple(p for p in name.sub if p not in spec.tensors or p in labels))
    out = []
    joined = "_".join((name.name,) + name.sub) if name.sub else None
    for t_name, symbols in _symbols(spec).items():
        if joined and joined in symbols:
            out.append(Target(t_name, None, None, name.transposed, True))
        elif name.name in symbols:
            row, col = _indices(spec.tensors[t_name], name.sub)
            if row is not False:
                out += [Target(t_name, r, c, name.transposed, True) for r, c in _bases(row, col)]
    if not out and not name.sub:                  # Range: for the step ranges, Mean for mean
        out = [Target(t, None, None, name.transposed, True) for t in spec.tensors
               if t.lower() in _forms(name.name)]
    named = {t.tensor for t in out}
    for t_name, symbols in _op_symbols(spec).items():   # A, α, P: what computes it
        if t_name not in named and (name.name in symbols or joined in symbols):
            row, col = _indices(spec.tensors[t_name], () if joined in symbols else name.sub)
            if row is not False:
                out.append(Target(t_name, row, col, name.transposed, False))
    for t_name in spec.tensors:                     # X for the steps X_toy, X_pe: weaker
        if joined and t_name.startswith(joined + "_"):      # weighted_values: _key1, _key2
            out.append(Target(t_name, None, None, name.transposed, False))
        elif t_name.startswith(name.name + "_") and t_name != joined:
            row, col = _indices(spec.tensors[t_name], name.sub)
            if row is False and _word_sub(name.sub):
                row, col = None, None           # std_dev, new_mean: a program's name, not a subscript
            if row is not False:
                out.append(Target(t_name, row, col, name.transposed, False))
    return out


def _forms(word: str) -> set:
    """A word as a step's name may write it: lower case, singular or plural."""
    w = word.lower()
    return {w, w + "s", w.removesuffix("s")} - {""}


def _word_sub(parts: tuple) -> bool:
    """Is the subscript a word of a program's variable name (``dev`` of ``std_dev``)?"""
    return len(parts) == 1 and len(parts[0]) >= 2 and parts[0].isascii() and parts[0].isalpha()


def _symbols(spec) -> dict:
    got = getattr(spec, "_label_symbols", None)
    if got is None:
        got = {}
        aliases = getattr(spec, "aliases", {}) or {}
        for t_name in spec.tensors:
            sym = {t_name}
            latex = (getattr(spec, "latex", {}) or {}).get(t_name)
            if latex:
                p = parse(latex)
                if p is not None:
                    sym.add("_".join((p.name,) + p.sub) if p.sub else p.name)
            sym.update(aliases.get(t_name, ()))
            got[t_name] = sym
        spec._label_symbols = got
    return got


def _op_symbols(spec) -> dict:
    """Step -> the names articles write for what its operation computes (the operation's
    declared ``symbols``: attention weights are also A, α, P)."""
    got = getattr(spec, "_op_label_symbols", None)
    if got is None:
        from ..ops import OPERATIONS
        got = {}
        for step in spec.steps:
            op = OPERATIONS.get(getattr(step.tree, "name", None) or "")
            if op is not None and op.symbols:
                got[step.name] = set(op.symbols)
        spec._op_label_symbols = got
    return got


def _indices(t, parts: tuple):
    """(row, col) that subscript ``parts`` name in tensor ``t``: a row or column label, an
    index (1-based when no index is 0 and the largest is the size), a free index (-1);
    False when they name nothing of ``t``."""
    if not parts:
        return None, None
    rows, cols = t.shape
    if len(parts) > 2:
        return False, False
    row = _one(parts[0], t.rows, rows)
    col = _one(parts[1], t.cols, cols) if len(parts) == 2 else None
    if row is False or col is False:
        if len(parts) == 1 and rows == 1:            # x_3 of a row vector: its column
            c = _one(parts[0], t.cols, cols)
            return (False, False) if c in (False, -1) else (0, c)
        return False, False
    return row, col


def _bases(row, col) -> list:
    """(row, col) as written, and with each number read 1-based too (``K_3`` of four
    rows: row 3 or row 2; the values say which)."""
    rows = [row] + ([Index(row - 1)] if isinstance(row, Index) and row > 0 else [])
    cols = [col] + ([Index(col - 1)] if isinstance(col, Index) and col > 0 else [])
    return [(r, c) for r in rows for c in cols]


class Index(int):
    """A row or column written as a number (``P_{0,0}``, ``x_2``): 0- or 1-based is not
    said, so it is only as good as the values that agree with it."""
    ambiguous = True


def _one(part: str, labels, size: int):
    if labels and part in labels and list(labels).count(part) == 1:
        return list(labels).index(part)
    if part in _FREE:
        return -1
    if part.isdigit():
        k = int(part)
        if k == 0 or k < size:
            return Index(k)
        return Index(k - 1) if k == size else False
    return False


_WORD = re.compile(r"[a-z0-9]+")


def caption_above(lines: dict, line: int) -> str | None:
    """The caption a block's line follows: the line just above when it ends with ``:``
    (``After manual layer norm:``)."""
    for ln in above(lines, line, 4):
        text = ln.text.strip().strip("*#> `")
        if _DELIMITER.fullmatch(ln.text.strip()):
            continue                             # $$, \[, ```python: the caption is above it
        return text[:-1] if text.endswith((":", "：")) else None
    return None


# display math opened on its own line; a code fence is not one (a caption over a fence
# speaks of the code's result, not of each operand matrix in it)
_DELIMITER = re.compile(r"\$\$|\\\[|\\begin\{(?:equation|align|gather)\*?\}")


_BEFORE = re.compile(r"\s*(?:before|prior to|input to|pre-)", re.I)
_FOR = re.compile(r"\s+for\s+", re.I)        # what a caption is for (a token, a query) names no step


def by_caption(caption: str, spec, after: int | None = None) -> list[Target]:
    """The steps a caption names in words (``Original stds per token`` → ``code_stds``;
    ``After RMSNorm`` → the step computed by ``rms_norm``): those whose name's words, or
    the words of the operation that computes them, the caption uses most (its words
    themselves, or a name's abbreviation of them: ``var`` for ``Variance``). Of these, the
    step that comes next in order after the step of position ``after`` (the one whose
    result the article printed last), those naming the words themselves first; else, of
    the steps naming the words themselves (failing those, by abbreviation), the ones with
    the fewest words the caption does not use. Words after "for" say whose it is, not what.
    """
    if _BEFORE.match(caption):
        return []                                   # ``Before softmax``: softmax's input, no step it names
    rows = {str(r).lower() for t in spec.tensors.values() for r in (t.rows or ())}
    caption = _FOR.split(caption)[0] or caption     # ``Attention weights for q₁``: the weights
    words = set(_WORD.findall(caption.lower().replace("_", " "))) - rows   # 'Hello' is a row
    order = {n: k for k, n in enumerate(spec.tensors)}
    first = None
    for says in (_forms, _abbreviates):
        scored = []
        for step in spec.steps:
            best = max((_caption_score(words, w, says) for w in _phrases(step)), default=(0, 0))
            if best[0]:
                scored.append((best, step.name))
        if not scored:
            continue
        first = first or scored
        hit = max(s[0] for s, _ in scored)
        ahead = sorted((order[n] - after, n) for s, n in scored if s[0] == hit and after is not None
                       and order[n] >= after)
        if ahead and (len(ahead) == 1 or ahead[0][0] < ahead[1][0]):
            return [Target(ahead[0][1], None, None, False, False)]
    if not first:
        return []
    top = max(s for s, _ in first)
    return [Target(name, None, None, False, False) for s, name in first if s == top]


def named_in(text: str, spec) -> list[str]:
    """Every step that ``text``'s words name at all (a name's words or an abbreviation of
    them, or its operation's words), in the spec's order."""
    rows = {str(r).lower() for t in spec.tensors.values() for r in (t.rows or ())}
    words = set(_WORD.findall(text.lower().replace("_", " "))) - rows
    return [step.name for step in spec.steps
            if any(_caption_score(words, w, says)[0] for says in (_forms, _abbreviates) for w in _phrases(step))]


def name_words(name: str) -> list[str]:
    """A name's words, lower case (``attention_scores``, ``MaskedScores``: two each)."""
    return [w.lower() for w in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", name) if w]


def _phrases(step) -> list:
    out = [name_words(step.name)]
    call = getattr(step.tree, "name", None)
    if isinstance(call, str) and "_" in call:       # layer_norm: "layer norm", "layernorm"
        out += [tuple(call.split("_")), [call.replace("_", "")]]   # its last word heads it
    elif isinstance(call, str) and call.isalpha() and call in _operations():   # softmax, gelu
        out.append([call.lower()])
    return out


def _caption_score(words: set, phrase: list, says) -> tuple:
    """(the words of a name's ``phrase`` the caption says, less the words it leaves out);
    (0, 0) when it says none but numbers: a number in a name (``exp_3``) names nothing
    alone (``Row 3:`` is no caption of ``exp_3``); nor when an operation's words (a tuple)
    miss their last, the head (``Layer 1 output`` is no caption of a layer norm)."""
    hits = [p for p in phrase if (any(w in says(p) for w in words) if says is _forms else
                                  any(says(w, p) for w in words))]
    if all(p.isdigit() for p in hits) or isinstance(phrase, tuple) and phrase[-1] not in hits:
        return (0, 0)
    return (len(hits), len(hits) - len(phrase))


# A name written after the block it labels: ``[2.0, 7.0, 1.5] (dark green) is Output 1``.
_NAMED_AFTER = re.compile(r"^\s*(?:\([^()]{0,60}\)\s*)?(?:is|are|gives|makes|equals|=|→)\s+"
                          r"(?:the\s+|our\s+)?(?P<name>[^\W\d][\w ]{0,30}?)\s*(?:[,.;:()]|$)", re.I)


def label_after(text: str, end: int) -> str | None:
    """The name a sentence gives the block that ends at ``end`` after it (``… is Output
    1``, ``… are the weights``), or None."""
    hit = _NAMED_AFTER.match(text[end:].lstrip("])"))
    return hit.group("name").strip() if hit else None


def by_name(words: str, spec) -> list[Target]:
    """The tensor a name written in words is (``Output 1`` for the step ``output1``,
    ``attn scores`` for ``attn_scores``: case, spaces and underscores aside), or none."""
    key = re.sub(r"[\s_-]+", "", words.lower())
    return [Target(t, None, None, False, True) for t in spec.tensors
            if re.sub(r"[\s_-]+", "", t.lower()) == key]


_OWN_TERMS = {"logit", "logits"}      # a quantity of its own: no long form of ``log``


def _abbreviates(word: str, part: str) -> bool:
    """Is a name's part an abbreviation of a caption's word (``var``: variance, ``norm``:
    normalized, ``std``: standard)? Three letters or more, in the word's order, its first
    letter first; ``logits`` is a quantity of its own, not the logarithm."""
    if len(part) < 3 or len(word) <= len(part) or word[0] != part[0] or word in _OWN_TERMS:
        return False
    it = iter(word)
    return all(c in it for c in part)
