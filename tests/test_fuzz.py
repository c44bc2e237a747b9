"""Property-based fuzzing of the three readers of untrusted text.

- the number parsers: any text gives a number or a clean error, and printed numbers
  round-trip (their value and their precision);
- the expression parser: any text gives a tree or a clean error (a SymattnError, never
  another exception), and a tree printed by ``unparse`` reads back as the same tree;
- the spec reader: any bytes, mutated specs and generated specs give a Spec or a clean
  error, and a generated spec is then checked (a verdict or a clean error, in bounded time).

The normal run tries a few hundred examples of each property; ``pytest -m slow`` tries
10,000 of each (2,000 of whole checks; fuzz/ has an atheris harness for coverage-guided
runs).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from symattn.claims.printed import parse_number, parse_printed
from symattn.errors import LimitError, SymattnError
from symattn.evaluation.rounding import Rounded
from symattn.numbers import exact, parse_exact
from symattn.spec import expr as E
from symattn.spec.load import decode, load

FAST = 300                 # examples per property in the normal run
FAST_SPECS = 150           # ... for the properties that load or check a whole spec
SLOW = 10_000              # examples per property with -m slow
SLOW_CHECKS = 2_000        # ... for checking whole generated specs (evaluation is the slow part)
CHECK_SECONDS = 5          # the --timeout a generated spec is checked with

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")   # big specs


def fast(n: int = FAST):
    return settings(max_examples=n, deadline=None, derandomize=True, suppress_health_check=_QUIET)


def slow(n: int = SLOW):
    return settings(max_examples=n, deadline=None, suppress_health_check=_QUIET)


def clean(f, *args):
    """``f(*args)``, or None when it raises a SymattnError; any other exception fails."""
    try:
        return f(*args)
    except SymattnError as e:
        text = str(e)
        assert text and "\n" not in text, repr(text)
        return None


# -- numbers ------------------------------------------------------------------------------

NUMBER_CHARS = "0123456789.eE+-−–/ ,;%％≈~[]∞infaINF_x\u00a0\t٣３"


@st.composite
def printed_numbers(draw):
    """A number as an article prints it, with its exact value and precision."""
    units = draw(st.integers(-10**15, 10**15) | st.integers(-10**60, 10**60))
    decimals = draw(st.integers(0, 25))
    value = Fraction(units, 10**decimals)
    body = _plain(abs(units), decimals)
    style = draw(st.sampled_from(["plain", "exponent", "thousands"]))
    if style == "exponent":
        k = draw(st.integers(-6, 6))
        mantissa_decimals = decimals + k
        assume(mantissa_decimals >= 0)
        body = _plain(abs(units), mantissa_decimals) + draw(st.sampled_from(["e", "E"])) + \
            draw(st.sampled_from(["", "+"]) if k >= 0 else st.just("")) + str(k)
    elif style == "thousands" and decimals == 0 and abs(units) >= 1000:
        body = f"{abs(units):,}"
    if units < 0:
        body = draw(st.sampled_from(["-", "\u2212", "\u2013", "\uff0d"])) + body
    elif draw(st.booleans()):
        body = "+" + body
    percent = draw(st.booleans()) and style != "thousands"
    text = draw(st.sampled_from(["", "≈", "≈ ", "~"])) + body + (draw(st.sampled_from(["%", " %", "％"]))
                                                                 if percent else "")
    return text, value, decimals, percent


def _plain(units: int, decimals: int) -> str:
    s = str(units).rjust(decimals + 1, "0")
    return s if decimals == 0 else f"{s[:-decimals]}.{s[-decimals:]}"


def prop_printed_round_trip(case):
    text, value, decimals, percent = case
    n = parse_number(text)
    assert (n.value, n.decimals, n.percent) == (value, decimals, percent), text
    p = parse_printed(text)
    assert p.shape == (1, 1) and p.entries[0].value == value


def prop_printed_vectors(cases, rows):
    texts = [c[0] for c in cases]
    if rows and len(texts) % rows == 0 and len(texts) // rows > 0:
        w = len(texts) // rows
        text = "[" + ", ".join("[" + ", ".join(texts[r * w:(r + 1) * w]) + "]" for r in range(rows)) + "]"
        shape = (rows, w)
    else:
        text, shape = "[" + ", ".join(texts) + "]", (1, len(texts))
    assume("," not in "".join(texts))            # thousands separators belong to a lone number
    p = parse_printed(text)
    assert p.shape == shape
    assert [(e.value, e.decimals) for e in p.entries] == [(c[1], c[2]) for c in cases]


def prop_symattn_prints_what_it_reads(units, decimals):
    """What the report prints (Rounded) reads back as the same value and precision."""
    r = Rounded(units, decimals)
    n = parse_number(str(r))
    assert (n.value, n.decimals) == (r.value, decimals)
    assert parse_exact(str(r)) == r.value


def prop_exact_round_trip(q: Fraction):
    assert parse_exact(f"{q.numerator}/{q.denominator}") == q
    assert parse_exact(f" {q.numerator} / {q.denominator} ") == q
    assert exact(str(q)) == q


def prop_number_any_text(text: str):
    v = clean(parse_exact, text)
    assert v is None or isinstance(v, Fraction)
    n = clean(parse_number, text)
    assert n is None or n.value is not None
    clean(parse_printed, text)


@given(printed_numbers())
@fast()
def test_printed_round_trip(case):
    prop_printed_round_trip(case)


@given(st.lists(printed_numbers(), min_size=1, max_size=6), st.integers(0, 3))
@fast()
def test_printed_vectors(cases, rows):
    prop_printed_vectors(cases, rows)


@given(st.integers(-10**40, 10**40), st.integers(0, 40))
@fast()
def test_symattn_prints_what_it_reads(units, decimals):
    prop_symattn_prints_what_it_reads(units, decimals)


@given(st.fractions(max_denominator=10**30))
@fast()
def test_exact_round_trip(q):
    prop_exact_round_trip(q)


@given(st.text() | st.text(alphabet=NUMBER_CHARS, max_size=40))
@fast()
def test_number_any_text(text):
    prop_number_any_text(text)


@pytest.mark.slow
@given(printed_numbers())
@slow()
def test_printed_round_trip_slow(case):
    prop_printed_round_trip(case)


@pytest.mark.slow
@given(st.lists(printed_numbers(), min_size=1, max_size=6), st.integers(0, 3))
@slow()
def test_printed_vectors_slow(cases, rows):
    prop_printed_vectors(cases, rows)


@pytest.mark.slow
@given(st.integers(-10**40, 10**40), st.integers(0, 40))
@slow()
def test_symattn_prints_what_it_reads_slow(units, decimals):
    prop_symattn_prints_what_it_reads(units, decimals)


@pytest.mark.slow
@given(st.fractions(max_denominator=10**30))
@slow()
def test_exact_round_trip_slow(q):
    prop_exact_round_trip(q)


@pytest.mark.slow
@given(st.text() | st.text(alphabet=NUMBER_CHARS, max_size=40))
@slow()
def test_number_any_text_slow(text):
    prop_number_any_text(text)


# -- expressions --------------------------------------------------------------------------

TOKENS = ["X", "W", "v", "S", "inf", "T", "exp", "softmax", "attention", "__import__", "lambda",
          "for", "in", "if", "0", "1", "0.5", "1e-3", "1e999", "+", "-", "*", "/", "**", "@", "(",
          ")", "[", "]", ",", ":", "=", ".", ".T", '"a"', "'b'", "'", '"', "−", "·", "×", ";",
          "{", "}", "\\", "#", "`", "\n", "\x00", "\u202e", "≈"]
EXPR_CHARS = "XWvTSabc_0123456789.eE+-*/@()[],:='\" \n\t−·×{}!#$%&;<>?\\^`|~\x00\u202e"
NAMES = ["X", "W", "v", "M", "t", "s0", "s1"]
CALLS = {"exp": 1, "log": 1, "sqrt": 1, "sin": 1, "cos": 1, "relu": 1, "abs": 1, "sum": 1,
         "mean": 1, "var": 1, "max": 1, "argmax": 1, "width": 1, "transpose": 1, "keep_mask": 1,
         "softmax": 1, "causal_mask": 1, "padding_mask": 1, "scores": 2, "weights": 2,
         "attention": 3, "concat": 2, "stack": 2, "linear": 2, "ffn": 5, "residual": 2,
         "layer_norm": 1, "positional_encoding": 2, "embed": 2, "logits": 2, "probabilities": 1,
         "cross_entropy": 2, "label_smoothing_loss": 3, "eval": 1, "__import__": 1}
KEYWORDS = ["T", "axis", "mask", "scale", "eps", "gamma", "beta", "fill", "ddof", "base", "pair",
            "variance", "eps_inside", "b", "n", "__class__"]
SMALL = ["0", "1", "2", "3", "0.5", "0.25", "-1", "1e-3", "1/3", '"a"', '"b"', "-inf", "inf"]


def expressions(max_leaves: int = 10):
    """Expression text from the grammar of docs/spec-format.md (and a few things outside it)."""
    leaf = st.sampled_from(NAMES + SMALL) | st.decimals(-100, 100, places=3, allow_nan=False).map(str)

    def extend(inner):
        binop = st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "@", "**"]), inner) \
            .map(lambda t: f"({t[0]} {t[1]} {t[2]})")
        kwargs = st.lists(st.tuples(st.sampled_from(KEYWORDS), inner), max_size=2, unique_by=lambda kv: kv[0])
        call = st.tuples(st.sampled_from(sorted(CALLS)), st.lists(inner, max_size=3), kwargs).map(
            lambda t: f"{t[0]}({', '.join(t[1] + [f'{k}={v}' for k, v in t[2]])})")
        key = inner | st.just(":")
        index = st.tuples(inner, st.lists(key, min_size=1, max_size=2)).map(
            lambda t: f"{t[0]}[{', '.join(t[1])}]")
        return (binop | inner.map(lambda e: f"-{e}") | inner.map(lambda e: f"({e}).T") | call | index
                | st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"))
    return st.recursive(leaf, extend, max_leaves=max_leaves)


def any_expression_text():
    return (st.text() | st.text(alphabet=EXPR_CHARS, max_size=80)
            | st.lists(st.sampled_from(TOKENS), max_size=30).map(" ".join)
            | st.lists(st.sampled_from(TOKENS), max_size=30).map("".join)
            | expressions())


def prop_expr_any_text(text: str):
    tree = clean(E.parse, text)
    if tree is not None:
        assert E.depth(tree) <= E.MAX_DEPTH
        E.names(tree)
        u = E.unparse(tree)
        if E.depth(tree) < E.MAX_DEPTH - 2 and len(u) < E.MAX_LENGTH // 2:
            assert E.unparse(E.parse(u)) == u, (text, u)


def prop_expr_grammar(text: str):
    try:
        tree = E.parse(text)
    except LimitError:
        return
    u = E.unparse(tree)
    assume(E.depth(tree) < E.MAX_DEPTH - 2)
    assert E.unparse(E.parse(u)) == u, (text, u)


@given(any_expression_text())
@fast()
def test_expr_any_text(text):
    prop_expr_any_text(text)


@given(expressions(20))
@fast()
def test_expr_grammar_parses_and_reads_back(text):
    prop_expr_grammar(text)


@pytest.mark.slow
@given(any_expression_text())
@slow()
def test_expr_any_text_slow(text):
    prop_expr_any_text(text)


@pytest.mark.slow
@given(expressions(20))
@slow()
def test_expr_grammar_parses_and_reads_back_slow(text):
    prop_expr_grammar(text)


# -- specs ----------------------------------------------------------------------------------

TEMPLATE = '''\
[example]
id = "fuzz"
tokens = ["a", "b"]

[inputs]
X = { value = [[1.0, 0.5], [0.8, 1.2]], rows = "tokens" }
W = [[1, 0], [0, 1]]
v = [1, 0]
M = [[0, "-inf"], [0, 0]]
t = { symbol = "t" }

[[steps]]
name = "s0"
expr = "softmax(X @ W.T / sqrt(2))"

[[steps]]
name = "s1"
expr = "s0 @ X"

[[claims]]
step = "s0"
at = "a"
printed = "[0.4, 0.6]"
line = 3

[[claims]]
step = "s1"
at = [0, ":"]
printed = "[0.9, 0.9]"
line = 4
decimals = 1
'''

TOML_VALUES = ["1", "-0", "0.5", "1e999999", "nan", "-inf", "inf", "true", '"x"', '"-inf"', "[]", "[[]]",
               "[[1, 2], [3]]", "{}", '{ value = 1 }', '"1/0"', "1979-05-27", '"\\u001b"', '"a\\nb"',
               "9" * 1200, '"' + "9" * 1200 + '"', "[" * 60 + "]" * 60, '"__import__(\'os\')"',
               '"softmax(X, T=0)"', '"s1"', '"zz"', '[":", ":"]', "99999999999999999999"]


@st.composite
def mutated_specs(draw) -> bytes:
    """The template with a few lines deleted, duplicated, swapped or given other values, and
    a few bytes flipped."""
    lines = TEMPLATE.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "value", "text"]))
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "value" and "=" in lines[i]:
            lines[i] = lines[i].split("=", 1)[0] + "= " + draw(st.sampled_from(TOML_VALUES) | expression_toml())
        else:
            lines[i] = lines[i][:draw(st.integers(0, len(lines[i])))] + draw(st.text(max_size=8))
        if not lines:
            lines = [""]
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    for _ in range(draw(st.integers(0, 2))):
        k = draw(st.integers(0, max(len(data) - 1, 0)))
        data = data[:k] + bytes([draw(st.integers(0, 255))]) + data[k + 1:]
    return data


def expression_toml():
    return expressions(8).map(lambda e: json.dumps(e, ensure_ascii=False))


@st.composite
def generated_specs(draw) -> str:
    """A spec built from parts: random inputs, steps over them, claims on the steps."""
    out = ['[example]', 'id = "gen"', 'tokens = ["a", "b"]',
           f'rounding = "{draw(st.sampled_from(["half-up", "half-even", "truncate"]))}"', "", "[inputs]"]
    number = st.sampled_from(["0", "1", "-1", "0.5", "2.25", "-0.125", '"1/3"', '"-inf"', "10", "1e-3"])
    for name in ["X", "W", "v"]:
        m, n = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        rows = [[draw(number) for _ in range(n)] for _ in range(m)]
        value = "[" + ", ".join("[" + ", ".join(r) + "]" for r in rows) + "]"
        labels = ', rows = "tokens"' if m == 2 and draw(st.booleans()) else ""
        out.append(f"{name} = {{ value = {value}{labels} }}")
    steps = []
    for k in range(draw(st.integers(1, 4))):
        name = f"s{k}"
        out += ["", "[[steps]]", f'name = "{name}"',
                f"expr = {json.dumps(draw(expressions(6)), ensure_ascii=False)}"]
        if draw(st.booleans()):
            out.append(f"decimals = {draw(st.integers(0, 6))}")
        steps.append(name)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.sampled_from(["", 'at = 0', 'at = "a"', 'at = [0, 0]', 'at = [":", 0]', "at = [1, 1]",
                                   'at = -1', 'at = "zz"']))
        printed = draw(st.sampled_from(["0", "1", "0.5", "-inf", "[0.5, 0.5]", "[[1, 0], [0, 1]]", "0.3333",
                                        "≈ 0.27", "58.7%", "−0.50"]) | printed_numbers().map(lambda c: c[0]))
        out += ["", "[[claims]]", f'step = "{draw(st.sampled_from(steps))}"', at,
                f"printed = {json.dumps(printed, ensure_ascii=False)}", f"line = {draw(st.integers(1, 9))}"]
    return "\n".join(out) + "\n"


def prop_read_any_bytes(data: bytes):
    text = clean(decode, data, "spec.toml")          # what read_text does with a file's bytes
    if text is not None:
        clean(load, "spec.toml", text)


def prop_check_generated(text: str):
    from symattn.claims.check import check_spec
    from symattn import deadline
    spec = clean(load, "gen.toml", text)
    if spec is None:
        return
    try:
        with deadline.limit(CHECK_SECONDS, "check"):     # what `symattn check --timeout` does
            records = clean(check_spec, spec)
    except deadline.Exceeded as e:
        assert "\n" not in str(e) and "--timeout" in str(e)
        return
    if records is not None:
        assert all(r.verdict in ("correct", "carried", "wrong") for r in records)


@given(st.binary(max_size=600) | mutated_specs() | st.text().map(lambda t: t.encode("utf-8", "surrogatepass")))
@fast(FAST_SPECS)
def test_read_any_bytes(data):
    prop_read_any_bytes(data)


@given(generated_specs())
@fast(FAST_SPECS)
def test_check_generated_specs(text):
    prop_check_generated(text)


@pytest.mark.slow
@given(st.binary(max_size=600) | mutated_specs() | st.text().map(lambda t: t.encode("utf-8", "surrogatepass")))
@slow()
def test_read_any_bytes_slow(data):
    prop_read_any_bytes(data)


@pytest.mark.slow
@given(generated_specs())
@slow(SLOW_CHECKS)
def test_check_generated_specs_slow(text):
    prop_check_generated(text)
