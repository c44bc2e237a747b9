"""The architecture the issue asks for, checked: a primitive is declared once (its names
listed nowhere else) and every declaration carries every rule, which every context obeys."""

import ast
import inspect
from fractions import Fraction
from pathlib import Path

import flint
import mpmath
import pytest
import sympy

import symattn as sa
from symattn.primitives import PRIMITIVES, COSTS, REFUSE, Tex
from symattn.evaluation.base import ListContext
from symattn.evaluation.ball import BallContext
from symattn.evaluation.exact import ExactContext
from symattn.evaluation.floating import FloatContext
from symattn.evaluation.formal import FormalContext
from symattn.claims.carried import Dependencies

ROOT = Path(__file__).resolve().parent.parent / "symattn"
NAMES = set(PRIMITIVES)

# Graph patterns name the nodes they match (attention's shape for the row-by-row kernel):
# that is not a table of primitives. (module, enclosing function) pairs.
PATTERNS = {("evaluation/rowwise.py", "attention_pattern"),
            ("evaluation/rowwise.py", "streamed_nodes"),
            # the spec language's spelling of the builders row_sum and row_max (sum, max):
            # names of operations that happen to be primitives, not a table of primitives
            ("spec/expr.py", "CALL_ALIASES")}


def name_tables(path: Path):
    """(line, names) of every literal tuple/list/set (or dict's keys) in ``path`` made only
    of primitive names, two or more, outside the functions of PATTERNS."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    skip = set()
    for f in ast.walk(tree):
        names = [f.name] if isinstance(f, ast.FunctionDef) else \
            [t.id for t in f.targets if isinstance(t, ast.Name)] if isinstance(f, ast.Assign) else []
        if any((rel, n) in PATTERNS for n in names):
            skip.update(id(n) for n in ast.walk(f))
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            elts = node.elts
        elif isinstance(node, ast.Dict):
            elts = [k for k in node.keys if k is not None]
        else:
            continue
        strings = [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if len(strings) == len(elts) >= 2 and set(strings) <= NAMES:
            yield node.lineno, strings


def test_primitive_names_are_listed_only_in_their_declarations():
    found = [f"{p.relative_to(ROOT)}:{line} {names}"
             for p in sorted(ROOT.rglob("*.py")) if "primitives" not in p.relative_to(ROOT).parts[:1]
             for line, names in name_tables(p)]
    assert not found, "tables of primitive names outside symattn/primitives: " + "; ".join(found)


def test_the_table_check_can_fail(tmp_path):
    bad = tmp_path / "_table_probe.py"        # not in the package: a parallel test scans it
    bad.write_text('IRRATIONAL = {"exp", "log", "sqrt"}\nOK = ("exp", "softmax")\n', encoding="utf-8")
    assert [line for line, _ in name_tables(bad)] == [1]


def test_the_primitives_package_imports_no_engine_layer_nor_heavy_library():
    heavy = {"sympy", "flint", "numpy", "scipy"}
    for path in (ROOT / "primitives").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                mod = (node.module or "").split(".")[0]
                assert mod not in ("ops", "evaluation", "render", "gradients"), (path, mod)
        for node in tree.body:                       # at import time
            if isinstance(node, ast.Import):
                assert not {a.name.split(".")[0] for a in node.names} & heavy, path
            if isinstance(node, ast.ImportFrom) and not node.level:
                assert node.module.split(".")[0] not in heavy, path


CONTEXTS = [ListContext, ExactContext, BallContext, FloatContext, FormalContext, Dependencies]


@pytest.mark.parametrize("p", PRIMITIVES.values(), ids=str)
def test_every_primitive_declares_every_rule(p):
    assert p.doc and p.neg_inf is not None
    assert callable(p.derivative) and callable(p.size) and p.cost in COSTS
    assert isinstance(p.rational, bool) or callable(p.rational)
    assert isinstance(p.latex, Tex) and (p.latex.fn or p.latex.wrap)
    if p.kind in ("function", "constant"):
        for rule in (p.exact, p.ball, p.float):
            assert isinstance(rule, str) or callable(rule), (p, rule)
        assert p.builder and callable(sa.ops.primitives.BUILDERS[p.builder])
        if p.kind == "function":
            assert p.neg_inf is REFUSE or isinstance(p.neg_inf, Fraction)
            assert len(inspect.signature(p.derivative).parameters) == 7
    else:
        for ctx in CONTEXTS:
            assert callable(getattr(ctx, p.method, None)), (ctx.__name__, p.method)
        assert len(inspect.signature(p.derivative).parameters) == 6


FUNCTIONS = [p for p in PRIMITIVES.values() if p.kind in ("function", "constant")]


@pytest.mark.parametrize("p", FUNCTIONS, ids=str)
def test_every_declared_function_agrees_across_contexts(p):
    """Exact, certified and float values of each declared function at 2/5 agree (the
    exact value enclosed by the ball, the float within 1e-14 of it), and its reverse-mode
    slope is SymPy's derivative of its exact rule."""
    x = sa.matrix([["2/5"]])
    build = sa.ops.primitives.BUILDERS[p.builder]
    y = build() if p.arity == 0 else build(x)
    exact = y.exact()[0, 0]
    mpmath.mp.dps = 40
    truth = mpmath.mpf(sympy.N(exact, 40))
    digits = y.evaluate(digits=30)[0][0]
    assert abs(mpmath.mpf(digits) - truth) <= abs(truth) * mpmath.mpf(10) ** -29 + 1e-40
    assert abs(float(y.numpy()[0, 0]) - float(truth)) <= 1e-14
    if p.arity == 1 and p.folded(flint.fmpq(2, 5)) is None:        # smooth where not rational
        s = sa.symbols("d", 1, 1)
        d = s.params["entries"][0][0]
        want = sympy.diff(build(s).exact()[0, 0], d).subs(d, sympy.Rational(2, 5))
        got = sa.grad(sa.row_sum(y), x, digits=20)[0][0]
        assert abs(mpmath.mpf(got) - mpmath.mpf(sympy.N(want, 40))) < 1e-18


# -- no import circle: every import statement counts, a lazy one inside a function too -----

def _imports(path: Path, module: str, known: set) -> set:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    typing_only = {id(n) for node in ast.walk(tree)
                   if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                   for stmt in node.body for n in ast.walk(stmt)}
    out = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module and not name.startswith(module + "."):
                out.add(name)
    return out


def import_graph(root: Path) -> dict:
    files = {}
    for p in root.rglob("*.py"):
        parts = list(p.relative_to(root.parent).with_suffix("").parts)
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    known = set(files)
    return {m: _imports(p, m, known) for m, p in files.items()}


def cycles(graph: dict) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_no_module_imports_itself_through_others():
    graph = import_graph(ROOT)
    assert len(graph) > 100 and "symattn.ops.softmax" in graph["symattn.ops.attention"]
    found = cycles(graph)
    assert found == [], found


def test_the_cycle_check_can_fail(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "ops").mkdir(parents=True)
    (pkg / "render").mkdir()
    for f in ("__init__.py", "ops/__init__.py", "render/__init__.py"):
        (pkg / f).write_text("")
    (pkg / "ops" / "steps.py").write_text("def show():\n    from ..render import latex\n")
    (pkg / "render" / "latex.py").write_text("from ..ops.steps import show\n")
    assert cycles(import_graph(pkg)) == [["pkg.ops.steps", "pkg.render.latex"]]


def test_ops_and_render_do_not_import_each_other_both_ways():
    graph = import_graph(ROOT)
    assert any(b.startswith("symattn.ops") for b in graph["symattn.render.latex_steps"])
    ops_to_render = {(a, b) for a, bs in graph.items() for b in bs
                     if a.startswith("symattn.ops") and b.startswith("symattn.render")}
    assert ops_to_render == set()
