"""The SymPy derivations in proofs/ (symattn.proofs) and `symattn prove`.

Every identity is derived once (cached) and must hold; the runner is tested on those
cached derivations. Every proof checks the engine's own operations (evaluated exactly on
SymPy symbols), so a proof fails when the shipped operation changes: a broken operation
makes its proofs fail below, and the engine's operations are compared here with textbook
definitions written independently of both the engine and the proofs.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("symattn") is None:  # a source checkout that is not installed
    sys.path.insert(0, str(ROOT))

import sympy  # noqa: E402
from sympy import E, Matrix, Rational, exp, limit, log, oo, simplify, sqrt  # noqa: E402

import symattn as sa  # noqa: E402
from symattn.cli import prove as prove_cli  # noqa: E402

REGISTRY = prove_cli.discover()
NAMES = sorted(REGISTRY)
PROOFS = prove_cli.proofs_package().__name__
REQUIRED = {
    "mask-limit", "mask-zero", "mask-finite", "softmax-shift", "temperature-limits",
    "softmax-jacobian", "cross-entropy-gradient", "label-smoothing", "attention-gradient",
    "causality", "residual-jacobian", "layernorm-stats", "layernorm-gradient", "layernorm-two",
    "attention-scaling", "permutation-equivariance", "linear-collapse", "identical-heads",
    "positional-encoding-shift",
}
JSON_FIELDS = {"name", "statement", "holds", "general", "scope"}


def proof_module(stem: str):
    return importlib.import_module(f"{PROOFS}.{stem}")


ENGINE_VALUES: dict[str, int] = {}   # proof name -> exact values of engine graphs it took


ORIGINAL = {name: module.derive for name, module in REGISTRY.items()}   # before any fixture patches them


@functools.lru_cache(maxsize=None)
def derived(name: str):
    """The derivation (once per session, whichever test asks first), counting the engine's
    exact evaluations in it."""
    original, taken = sa.Tensor.exact, []

    def counted(self, *args, **kw):
        taken.append(self.op)
        return original(self, *args, **kw)

    sa.Tensor.exact = counted
    try:
        return ORIGINAL[name]()
    finally:
        sa.Tensor.exact = original
        ENGINE_VALUES[name] = len(taken)


def args(name=None, latex=False, as_json=False):
    return argparse.Namespace(name=name, latex=latex, json=as_json)


@pytest.fixture
def cached(monkeypatch):
    """Make run() use the cached derivations (each identity is derived once per session)."""
    for name, module in REGISTRY.items():
        monkeypatch.setattr(module, "derive", functools.partial(derived, name))
    return REGISTRY


# -- every identity holds ------------------------------------------------------------------

def test_every_listed_identity_has_a_proof():
    assert REQUIRED <= set(REGISTRY), sorted(REQUIRED - set(REGISTRY))


@pytest.mark.parametrize("name", NAMES)
def test_identity_holds(name):
    module = REGISTRY[name]
    assert isinstance(module.STATEMENT, str) and module.STATEMENT
    assert isinstance(module.GENERAL, bool)
    assert isinstance(module.SCOPE, str) and module.SCOPE
    derivation = derived(name)
    assert derivation.holds is True
    assert derivation.name == name and derivation.general is module.GENERAL
    assert derivation.checks >= 1
    assert sum(step.checked for step in derivation.steps) == derivation.checks
    plain, tex = derivation.plain_text(), derivation.latex_text()
    assert plain.startswith(f"== {name}: ") and "holds: True" in plain
    assert "\\begin{enumerate}" in tex and "\\end{enumerate}" in tex
    for step in derivation.steps:  # every recorded expression renders both ways
        if step.expr is not None:
            assert step.plain and step.latex


def test_no_string_is_parsed_into_an_expression():
    sources = sorted((ROOT / "proofs").glob("*.py")) + [ROOT / "symattn" / "cli" / "prove.py"]
    banned = re.compile(r"\b(eval|exec|sympify|parse_expr|parse_latex)\s*\(|\bS\s*\(\s*['\"]")
    for path in sources:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not banned.search(line), f"{path.name}:{number}: {line.strip()}"


@pytest.mark.parametrize("name", NAMES)
def test_every_identity_is_checked_on_the_engine(name):
    """Each proof evaluates the engine's graphs (Tensor.exact) and checks steps about them."""
    derivation = derived(name)
    assert ENGINE_VALUES[name] >= 1, name
    assert any(step.checked and "engine" in step.text for step in derivation.steps), name
    assert "engine" in REGISTRY[name].SCOPE and "symattn." in REGISTRY[name].SCOPE


# -- the checks can fail -------------------------------------------------------------------

def test_a_false_step_raises():
    common = proof_module("_common")
    z1, z2 = sympy.symbols("z1 z2", real=True)
    p1 = exp(z1) / (exp(z1) + exp(z2))
    d = common.Derivation("wrong", "a wrong Jacobian", True, "test")
    d.equal("right", sympy.diff(p1, z1), p1 * (1 - p1))
    with pytest.raises(common.ProofError, match="wrong: step failed"):
        d.equal("sign flipped", sympy.diff(p1, z1), p1 * (p1 - 1))
    assert d.holds is False
    with pytest.raises(common.ProofError):
        d.limit("wrong limit", p1, z1, -oo, Rational(1, 2))
    with pytest.raises(common.ProofError):
        d.positive("not positive", -p1)
    with pytest.raises(common.ProofError):
        common.Derivation("empty", "s", True, "t").qed()


def test_a_failing_identity_makes_run_exit_1(cached, monkeypatch, capsys):
    common = proof_module("_common")

    def broken():
        raise common.ProofError("mask-zero: step failed: deliberately")

    monkeypatch.setattr(REGISTRY["mask-zero"], "derive", broken)
    assert prove_cli.run(args(as_json=True)) == 1
    out, err = capsys.readouterr()
    records = {r["name"]: r for r in json.loads(out)}
    assert records["mask-zero"]["holds"] is False
    assert all(r["holds"] for n, r in records.items() if n != "mask-zero")
    assert "mask-zero does not hold" in err
    assert prove_cli.run(args("mask-zero")) == 1
    out, _ = capsys.readouterr()
    assert "FAILED" in out and "0 of 1 identities hold" in out


# -- the runner ----------------------------------------------------------------------------

def test_json_lists_every_identity(cached, capsys):
    assert prove_cli.run(args(as_json=True)) == 0
    out, err = capsys.readouterr()
    records = json.loads(out)
    assert [r["name"] for r in records] == NAMES
    for record in records:
        assert set(record) == JSON_FIELDS
        module = REGISTRY[record["name"]]
        assert record["holds"] is True
        assert record["general"] is module.GENERAL
        assert record["statement"] == module.STATEMENT and record["scope"] == module.SCOPE
    assert err == ""


def test_one_name_plain_and_latex(cached, capsys):
    assert prove_cli.run(args("softmax-jacobian")) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("== softmax-jacobian: dp_i/dz_j = p_i (delta_ij - p_j)")
    assert "holds: True" in out and out.rstrip().endswith("1 of 1 identities hold")
    assert "== mask-zero" not in out
    assert prove_cli.run(args("softmax-jacobian", latex=True)) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("\\subsection*{softmax-jacobian}")
    assert "\\delta_{i j}" in out and "% 1 of 1 identities hold" in out
    assert prove_cli.run(args("layernorm-two", as_json=True)) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["name"] == "layernorm-two" and set(record) == JSON_FIELDS


def test_unknown_name(capsys):
    assert prove_cli.run(args("no-such-identity")) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("symattn prove: no identity named 'no-such-identity' (known: ")
    assert err.rstrip().endswith(")")
    assert ", ".join(NAMES) in err


def test_configure_parses_the_documented_options():
    parser = argparse.ArgumentParser(prog="symattn prove")
    prove_cli.configure(parser)
    parsed = parser.parse_args(["mask-zero", "--latex"])
    assert (parsed.name, parsed.latex, parsed.json) == ("mask-zero", True, False)
    parsed = parser.parse_args(["--json"])
    assert (parsed.name, parsed.latex, parsed.json) == (None, False, True)


def test_dispatcher_end_to_end():
    common = [sys.executable, "-m", "symattn", "prove"]
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(common + ["linear-collapse", "--json"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (record,) = json.loads(done.stdout)
    assert record["name"] == "linear-collapse" and record["holds"] is True
    done = subprocess.run(common + ["nope"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith("symattn prove: no identity named 'nope' (known: ")
    assert done.stderr.count("\n") == 1


def test_a_proof_runs_as_a_script():
    done = subprocess.run([sys.executable, str(ROOT / "proofs" / "mask_zero.py")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("== mask-zero: ")
    assert "\\subsection*{mask-zero}" in done.stdout


# -- concrete values, cross-checked against the engine -------------------------------------

def exact_zero(expr) -> bool:
    return simplify(expr) == 0


def test_zero_mask_weight_is_one_over_one_plus_e_plus_e_squared():
    mask_zero = proof_module("mask_zero")
    weight = mask_zero.zero_mask_weight([0, 1, 2], 0)
    assert exact_zero(weight - 1 / (1 + E + E**2))
    assert weight != 0 and weight.is_positive
    assert not exact_zero(weight - 1 / (E + E**2))
    engine = sa.softmax(sa.matrix([[0, 1, 2]]) + sa.matrix([[0, 0, 0]])).exact()
    assert exact_zero(engine[0, 0] - weight)
    masked = sa.softmax(sa.matrix([[0, 1, 2]]) + sa.matrix([[sa.NEG_INF, 0, 0]])).exact()
    assert masked[0, 0] == 0
    assert exact_zero(masked[0, 1] - 1 / (1 + E)) and exact_zero(masked[0, 2] - E / (1 + E))


def test_mask_limit_matches_the_engine_minus_infinity():
    t = sympy.Symbol("t", real=True)
    scores = [Rational(1, 2), -3, 2, Rational(7, 4)]
    shifted = [s + (t if k in (1, 3) else 0) for k, s in enumerate(scores)]
    total = sum(exp(v) for v in shifted)
    limits = [limit(exp(v) / total, t, -oo) for v in shifted]
    row = [sa.NEG_INF if k in (1, 3) else 0 for k in range(4)]
    engine = sa.softmax(sa.matrix([scores]) + sa.matrix([row])).exact()
    for k in range(4):
        assert exact_zero(engine[0, k] - limits[k])
    assert limits[1] == 0 and limits[3] == 0


def test_finite_mask_bound():
    M = 20
    weight = exp(Rational(1, 2) - M) / (exp(Rational(1, 2) - M) + exp(2) + exp(Rational(7, 4)))
    assert (exp(Rational(1, 2) - 2 - M) - weight).is_positive  # e^(s_m - s_j - M), s_j = 2


@pytest.mark.parametrize(
    "a, b",
    [(1, 3), (Rational(23, 25), Rational(31, 25)), (5, 5), (100, -100), (Rational(-1, 7), 0),
     (Rational(1, 1000), Rational(2, 1000))],
)
def test_two_component_layer_norm_matches_layer_norm(a, b):
    two = proof_module("layernorm_two")
    eps = Rational(1, 100000)
    formula = two.two_component(a, b, eps)
    engine = sa.layer_norm(sa.matrix([[a, b]]), eps=eps).exact()
    reference = two.layer_norm_row([a, b], eps)
    for k in range(2):
        assert exact_zero(formula[k] - engine[0, k])
        assert exact_zero(formula[k] - reference[k])
        assert (1 - formula[k] ** 2).is_positive  # strictly inside (-1, 1)
    assert exact_zero(formula[0] + formula[1])


def test_layer_norm_of_one_three_is_close_to_minus_one_one():
    two = proof_module("layernorm_two")
    eps = Rational(1, 100000)
    y = two.two_component(1, 3, eps)
    assert exact_zero(y[0] + 2 / sqrt(4 + 4 * eps))
    assert (y[0] + 1).is_positive and (1 - Rational(1, 10**5) + y[0]).is_negative


def test_label_smoothing_matches_the_engine():
    z_values, target, eps = [0, 1, 2], 1, Rational(1, 10)
    n = len(z_values)
    total = sum(exp(v) for v in z_values)
    p = [exp(v) / total for v in z_values]
    expected = (1 - eps) * -log(p[target]) + eps * sum(-log(v) for v in p) / n
    engine = sa.label_smoothing_loss(sa.matrix([z_values]), target, eps).exact()[0, 0]
    assert exact_zero(sympy.expand_log(engine - expected, force=True))
    z = sa.symbols("z", 1, 3)
    gradient = sa.grad(sa.label_smoothing_loss(z, target, eps), z)
    zs = list(z.exact())
    ps = [exp(v) / sum(exp(w) for w in zs) for v in zs]
    q = [(1 - eps) * (1 if k == target else 0) + eps / n for k in range(n)]
    for k in range(n):
        assert exact_zero(gradient[k] - (ps[k] - q[k]))


def test_cross_entropy_gradient_matches_the_engine():
    z = sa.symbols("z", 1, 4)
    zs = list(z.exact())
    ps = [exp(v) / sum(exp(w) for w in zs) for v in zs]
    for target in range(4):
        gradient = sa.grad(sa.cross_entropy(z, target), z)
        for k in range(4):
            assert exact_zero(gradient[k] - (ps[k] - (1 if k == target else 0)))


def test_temperature_limits_on_the_engine_softmax():
    T = sympy.Symbol("T", positive=True)
    row = sa.softmax(sa.matrix([[0, 1, 2]]), T=T).exact()
    assert [limit(row[0, k], T, 0, "+") for k in range(3)] == [0, 0, 1]
    assert [limit(row[0, k], T, oo) for k in range(3)] == [Rational(1, 3)] * 3


def test_positional_encoding_layout_is_the_one_proven():
    pe = sa.positional_encoding(6, 6).exact()
    base, d = 10000, 6
    for pos in range(6):
        for j in range(d):
            angle = pos * sympy.Integer(base) ** (-Rational(2 * (j // 2), d))
            expected = sympy.sin(angle) if j % 2 == 0 else sympy.cos(angle)
            assert exact_zero(pe[pos, j] - expected)


def test_attention_scaling_expectation_beyond_the_proven_sizes():
    scaling = proof_module("attention_scaling")
    qs, ks = sympy.symbols("q1:6"), sympy.symbols("k1:6")
    s = sum(a * b for a, b in zip(qs, ks))
    assert scaling.expectation(s, qs + ks) == 0
    assert scaling.expectation(s**2, qs + ks) == 5
    with pytest.raises(ValueError):
        scaling.expectation(qs[0] ** 3, qs)


def test_permutation_equivariance_with_exact_numbers():
    perm = proof_module("permutation_equivariance")
    x = Matrix([[1, Rational(1, 2)], [Rational(4, 5), Rational(6, 5)],
                [Rational(3, 2), Rational(7, 10)]])
    w = Matrix([[1, Rational(1, 5)], [Rational(1, 10), Rational(9, 10)]])
    pm = perm.permutation_matrix((2, 0, 1))
    lhs = perm.self_attention(pm * x, w, w.T, w)
    rhs = pm * perm.self_attention(x, w, w.T, w)
    assert all(exact_zero(e) for e in lhs - rhs)
    engine = sa.self_attention(sa.matrix(x.tolist()), sa.matrix(w.tolist()),
                               sa.matrix(w.T.tolist()), sa.matrix(w.tolist()))["output"].exact()
    assert all(exact_zero(e) for e in engine - perm.self_attention(x, w, w.T, w))


# -- a broken engine operation makes its proofs fail ---------------------------------------

def _broken(original, **forced):
    """``original`` with some keyword arguments forced (the operation changed)."""
    def wrong(*args, **kw):
        return original(*args, **{**kw, **forced})
    return wrong


BROKEN = [
    # (operation, how it is broken, proofs that must then fail)
    ("scores", {"scale": 1}, ("attention-scaling", "attention-gradient")),      # no 1/sqrt(d_k)
    ("layer_norm", {"eps": 0}, ("layernorm-stats", "layernorm-two", "layernorm-gradient")),
    ("layer_norm", {"variance": "unbiased"}, ("layernorm-stats",)),
    ("softmax", {"T": 2}, ("softmax-jacobian", "softmax-shift", "temperature-limits")),
    ("causal_mask", {"fill": 0}, ("mask-limit", "causality")),
    ("positional_encoding", {"pair": "i"}, ("positional-encoding-shift",)),
    ("positional_encoding", {"base": 100}, ("positional-encoding-shift",)),
    ("rope", {"base": 100}, ("rope-relative-position",)),
    ("rope", {"layout": "halves"}, ("rope-relative-position",)),
]


@pytest.mark.parametrize("operation, forced, names", BROKEN,
                         ids=[f"{op}-{'-'.join(map(str, f.values()))}" for op, f, _ in BROKEN])
def test_a_broken_engine_operation_fails_its_proofs(monkeypatch, operation, forced, names):
    common = proof_module("_common")
    monkeypatch.setattr(sa, operation, _broken(getattr(sa, operation), **forced))
    for name in names:
        with pytest.raises(common.ProofError, match="engine"):
            REGISTRY[name].derive()


def test_a_wrong_cross_entropy_fails_its_proof(monkeypatch):
    common = proof_module("_common")
    original = sa.cross_entropy
    monkeypatch.setattr(sa, "cross_entropy", lambda z, target: original(z, target) * 2)
    with pytest.raises(common.ProofError, match="engine"):
        REGISTRY["cross-entropy-gradient"].derive()


# -- the engine's operations against textbook definitions (written here, not in proofs/) ----

def _symbol_row(name, n):
    return [sympy.Symbol(f"{name}{k}", real=True) for k in range(1, n + 1)]


def _same(engine_value, definition):
    engine_value, definition = Matrix(engine_value), Matrix(definition)
    assert engine_value.shape == definition.shape
    assert all(exact_zero(a - b) for a, b in zip(engine_value, definition))


@pytest.mark.parametrize("n", range(1, 7))
def test_engine_softmax_and_causal_mask_are_the_definitions(n):
    z = _symbol_row("z", n)
    T = sympy.Symbol("T", positive=True)
    total = sum(exp(v / T) for v in z)
    _same(sa.softmax(sa.matrix([z]), T=T).exact(), [[exp(v / T) / total for v in z]])
    mask = sa.causal_mask(n).exact()
    assert [[mask[i, j] for j in range(n)] for i in range(n)] == \
        [[-oo if j > i else 0 for j in range(n)] for i in range(n)]


@pytest.mark.parametrize("n, m, d", [(1, 1, 1), (2, 3, 2), (3, 2, 4)])
def test_engine_scores_and_weights_are_the_definitions(n, m, d):
    q = Matrix(n, d, lambda i, j: sympy.Symbol(f"q{i}{j}", real=True))
    k = Matrix(m, d, lambda i, j: sympy.Symbol(f"k{i}{j}", real=True))
    raw = q * k.T
    _same(sa.scores(sa.matrix(q.tolist()), sa.matrix(k.tolist())).exact(), raw / sqrt(d))
    _same(sa.scores(sa.matrix(q.tolist()), sa.matrix(k.tolist()), scale=1).exact(), raw)
    weights = sa.weights(sa.matrix(q.tolist()), sa.matrix(k.tolist())).exact()
    for i in range(n):
        row = [exp(raw[i, j] / sqrt(d)) for j in range(m)]
        _same(weights[i, :], [[v / sum(row) for v in row]])


@pytest.mark.parametrize("n", range(2, 6))
def test_engine_layer_norm_is_the_definition(n):
    x = _symbol_row("x", n)
    eps = sympy.Symbol("epsilon", positive=True)
    mu = sum(x) / n
    var = sum((v - mu) ** 2 for v in x) / n           # biased: divided by n
    _same(sa.layer_norm(sa.matrix([x]), eps=eps).exact(), [[(v - mu) / sqrt(var + eps) for v in x]])
    _same(sa.layer_norm(sa.matrix([x])).exact(),       # the default eps is 1e-5
          [[(v - mu) / sqrt(var + Rational(1, 10**5)) for v in x]])


@pytest.mark.parametrize("n", range(2, 5))
def test_engine_losses_are_the_definitions(n):
    z = _symbol_row("z", n)
    eps = sympy.Symbol("epsilon", positive=True)
    p = [exp(v) / sum(exp(w) for w in z) for v in z]
    for target in range(n):
        loss = sa.cross_entropy(sa.matrix([z]), target).exact()[0, 0]
        assert exact_zero(sympy.expand_log(loss + log(p[target]), force=True))
        smooth = sa.label_smoothing_loss(sa.matrix([z]), target, eps).exact()[0, 0]
        q = [(1 - eps) * (1 if k == target else 0) + eps / n for k in range(n)]
        assert exact_zero(sympy.expand_log(smooth + sum(qk * log(pk) for qk, pk in zip(q, p)),
                                           force=True))
