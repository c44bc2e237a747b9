"""Every declared operation (symattn.ops.OPERATIONS): one declaration, read the same way by
Python, the spec language, the LaTeX renderer and the diagnosis."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import symattn as sa
from symattn.ops import OPERATIONS, group, register
from symattn.ops.operation import declare, Presentation, EMPTY
from symattn.render.latex import document
from symattn.spec.build import build
from symattn.spec.load import load
from symattn.errors import SpecError
from test_latex_steps import ALL_OPS

ROOT = Path(__file__).resolve().parents[1]
INPUTS = ALL_OPS[:ALL_OPS.index("[[steps]]")]    # its inputs X, W, b, W1, b1, W2, b2, V, E_tab

# name -> (the call in the spec language, the same call in Python on the inputs)
EXAMPLES = {
    "scores": ("scores(X, X)", lambda i: sa.scores(i["X"], i["X"])),
    "weights": ("weights(X, X, mask=causal_mask(3))",
                lambda i: sa.weights(i["X"], i["X"], mask=sa.causal_mask(3))),
    "attention": ("attention(X, X, V, mask=causal_mask(3))",
                  lambda i: sa.attention(i["X"], i["X"], i["V"], sa.causal_mask(3))[0]),
    "softmax": ("softmax(X @ W, T=2)", lambda i: sa.softmax(i["X"] @ i["W"], T=2)),
    "probabilities": ("probabilities(X @ W, 0.5)", lambda i: sa.probabilities(i["X"] @ i["W"], "0.5")),
    "causal_mask": ("causal_mask(3)", lambda i: sa.causal_mask(3)),
    "padding_mask": ("padding_mask([1, 0], n_queries=2)", lambda i: sa.padding_mask([1, 0], 2)),
    "layer_norm": ("layer_norm(X @ W, gamma=b)", lambda i: sa.layer_norm(i["X"] @ i["W"], gamma=i["b"])),
    "linear": ("linear(X, W, b)", lambda i: sa.linear(i["X"], i["W"], i["b"])),
    "ffn": ("ffn(X, W1, b1, W2, b2)", lambda i: sa.ffn(i["X"], i["W1"], i["b1"], i["W2"], i["b2"])),
    "residual": ("residual(X, X @ W)", lambda i: sa.residual(i["X"], i["X"] @ i["W"])),
    "concat": ("concat(X, V, X)", lambda i: sa.concat([i["X"], i["V"], i["X"]])),
    "stack": ("stack(X, V)", lambda i: sa.stack([i["X"], i["V"]])),
    "embed": ("embed(E_tab, [2, 0], scale=1)", lambda i: sa.embed(i["E_tab"], [2, 0], scale=True)),
    "positional_encoding": ("positional_encoding(3, 4, base=100)",
                            lambda i: sa.positional_encoding(3, 4, 100)),
    "logits": ("logits(X, W, b)", lambda i: sa.logits(i["X"], i["W"], i["b"])),
    "cross_entropy": ("cross_entropy(X @ W, [0, 1, 1])",
                      lambda i: sa.cross_entropy(i["X"] @ i["W"], [0, 1, 1])),
    "label_smoothing_loss": ("label_smoothing_loss(X @ W, [0, 1, 1], 0.1)",
                             lambda i: sa.label_smoothing_loss(i["X"] @ i["W"], [0, 1, 1], "0.1")),
    "var": ("var(X @ W, ddof=1)", lambda i: sa.var(i["X"] @ i["W"], 1)),
    "rms_norm": ("rms_norm(X @ W, gamma=b)", lambda i: sa.rms_norm(i["X"] @ i["W"], gamma=i["b"])),
    "gelu": ("gelu(X @ W)", lambda i: sa.gelu(i["X"] @ i["W"])),
    "silu": ("silu(X @ W)", lambda i: sa.silu(i["X"] @ i["W"])),
    "dropout": ("dropout(V, X, 0.2)", lambda i: sa.dropout(i["V"], i["X"], "0.2")),
    "swiglu": ("swiglu(X, W1, W1, W2)", lambda i: sa.swiglu(i["X"], i["W1"], i["W1"], i["W2"])),
    "rope": ("rope(concat(X, V), base=100)", lambda i: sa.rope(sa.concat([i["X"], i["V"]]), 100)),
    "rope_matrix": ('rope_matrix(4, 2, base=100, layout="halves")',
                    lambda i: sa.rope_matrix(4, 2, 100, "halves")),
    "alibi_bias": ("alibi_bias(2, 3)", lambda i: sa.alibi_bias(2, 3)),
    "multi_head": ("multi_head(X, concat(W, W), W, W, n_heads=4, n_kv_heads=2, "
                   "mask=causal_mask(3), bias=alibi_bias(4, 3))",
                   lambda i: sa.multi_head(i["X"], sa.concat([i["W"], i["W"]]), i["W"], i["W"],
                                           n_heads=4, n_kv_heads=2, mask=sa.causal_mask(3),
                                           bias=sa.alibi_bias(4, 3))["output"]),
}


def spec_of(*exprs):
    text = INPUTS + "".join(f'[[steps]]\nname = "s{k}"\nexpr = \'{e}\'\n' for k, e in enumerate(exprs))
    return load("ops.toml", text=text)


def digits(t) -> list:
    return sa.evaluate(t, digits=25)


def test_every_declared_operation_has_an_example():
    assert set(EXAMPLES) == set(OPERATIONS), "a new operation needs an example here"


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_spec_signature_is_the_python_signature(name):
    op = OPERATIONS[name]
    py = [p for p in inspect.signature(op.function).parameters.values()
          if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    spec = list(op.signature().parameters.values())
    assert [p.name for p in spec] == [p.name for p in py]
    for s, p in zip(spec, py):
        assert s.default == p.default or (s.default is s.empty and p.default is p.empty), s
        if s.kind != s.VAR_POSITIONAL:           # concat(a, b) spreads Python's one list
            assert s.kind == p.kind, s
    assert getattr(sa, name, op.function) is op.function    # exported under its name


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_spec_language_and_python_compute_the_same(name):
    expr, python = EXAMPLES[name]
    spec = spec_of(expr)
    assert digits(spec.tensors["s0"]) == digits(python(spec.tensors))


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_declared_operation_renders(name, monkeypatch):
    op = OPERATIONS[name]
    assert op.latex is not None and op.latex.operator
    used = []
    if op.latex.show is not None:                 # the display is the declaration's own
        show = op.latex.show
        monkeypatch.setattr(op.latex, "show", lambda v, a: used.append(a) or show(v, a))
    doc = document(spec_of(EXAMPLES[name][0]), steps=["s0"])
    text = "\n".join(doc.formulas())
    assert text.count("{") == text.count("}") and text.count(r"\left") == text.count(r"\right")
    assert bool(used) == (op.latex.show is not None)


def test_arguments_are_matched_by_the_declared_signature():
    spec = spec_of("layer_norm(X @ W, beta=b)", "layer_norm(X @ W, 0.00001, beta=b)")
    assert digits(spec.tensors["s0"]) == digits(spec.tensors["s1"])
    f = "\n".join(document(spec, steps=["s0"]).formulas())
    assert r"\sqrt{\sigma^{2} + \varepsilon}} + b" in f           # b as beta, not as eps
    with pytest.raises(SpecError, match="it takes"):
        spec_of("layer_norm(X, eps_insde=0)")


@pytest.mark.parametrize("name", sorted(n for n, op in OPERATIONS.items() if op.mistakes))
def test_every_mistake_changes_the_value(name):
    spec = spec_of(EXAMPLES[name][0])
    call = spec.step("s0").tree
    variants = OPERATIONS[name].mistakes(call, spec)
    assert variants
    right = digits(spec.tensors["s0"])
    for description, tree in variants:
        assert tree != call, description
        assert digits(sa.ops.primitives.as_tensor(build(tree, spec.tensors))) != right, description


def test_families_come_from_the_declarations():
    assert set(group("attention")) == {"scores", "weights", "attention"}
    assert set(group("weights")) == {"softmax", "probabilities", "weights"}
    assert set(group("mask")) == {"causal_mask", "padding_mask"}
    for path in (ROOT / "symattn").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "ATTENTION_CALLS" not in text and "SOFTMAX_CALLS" not in text, path


def test_ops_never_import_render():
    for path in (ROOT / "symattn" / "ops").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            assert not any("render" in n.split(".") for n in names), (path, ast.unparse(node))


def test_a_new_operation_is_one_declaration():
    def double(x, times=2):
        """Every entry of x times ``times``."""
        return sa.ops.primitives.as_tensor(x) * times

    def show(v, a):
        d = v.Display().add(v.lhs, "=", rf"{v.tex(a['x']).text} \cdot 2")
        return [v.finish(d, own=True).latex()]

    def mistakes(call, spec):
        from symattn.spec import calls as C
        return [("tripled", C.with_kw(call, "times", C.num(3)))]

    op = declare("double", double, convert={"times": "whole"}, mistakes=mistakes,
                 latex=Presentation("Double", show))
    register(op)
    try:
        spec = spec_of("double(X)", "double(X, times=3) + 0")
        assert digits(spec.tensors["s0"]) == digits(spec.tensors["X"] * 2)
        f = "\n".join(document(spec).formulas())
        assert r"s_{0} &= X \cdot 2" in f
        assert "\\operatorname{Double}" in f
        with pytest.raises(SpecError, match=r"it takes \(x, times=2\)"):
            spec_of("double(X, 1, 2)")
        assert op.mistakes(spec.step("s0").tree, spec)[0][0] == "tripled"
    finally:
        del OPERATIONS["double"]
    with pytest.raises(SpecError, match="unknown operation 'double'"):
        spec_of("double(X)")


def test_a_declaration_rejects_converters_of_unknown_parameters():
    with pytest.raises(TypeError, match="unknown parameters"):
        declare("nope", sa.softmax, convert={"temperature": "whole"})
    assert OPERATIONS["softmax"].params[0].default is EMPTY


@pytest.mark.parametrize("name", sorted(n for n, op in OPERATIONS.items()
                                        if any(p.variadic for p in op.params)))
def test_a_variadic_operation_of_nothing_is_a_one_line_error(name, tmp_path):
    from symattn.errors import SymattnError
    with pytest.raises(SymattnError, match="of nothing"):
        spec_of(f"{name}()")
