"""What a step or a node of a spec is for, read from its expression: a row of weights or
probabilities, a LayerNorm's division by the standard deviation, attention's scaling.

Mistakes are named by the role of the operation they change, and some printed forms mean
something only in a role (a weight printed ``0`` claims exactly 0). The same roles are
found for the engine's operations (``weights``, ``layer_norm`` …) and for the same math
written out by hand (``exp(S) / sum(exp(S))``, ``(x - mean(x)) / sqrt(var(x) + eps)``).
"""

from __future__ import annotations

from ..ops import group
from ..spec import expr as E

STATISTICS_CALLS = ("var", "mean", "sum")
MAX_LOOKUP = 16                  # steps followed through names when reading a role


def _calls(node, spec, depth: int = 0) -> set[str]:
    """Names of the operations in ``node``, following step names a few levels."""
    out: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, E.Call):
            out.add(n.name)
        if isinstance(n, E.Name) and depth < MAX_LOOKUP:
            step = spec.step(n.id)
            if step is not None:
                out |= _calls(step.tree, spec, depth + 1)
        if isinstance(n, E.BinOp) and n.op == "@" and _has_transpose(n.right):
            out.add("@T")
        stack.extend(E._children(n))
    return out


def _has_transpose(node) -> bool:
    return isinstance(node, E.Transpose) or (isinstance(node, E.Call) and node.name == "transpose")


def is_probability(spec, name: str, depth: int = 0) -> bool:
    """Is step ``name`` a matrix of weights or probabilities (rows of a softmax)?"""
    step = spec.step(name)
    if step is None or depth > MAX_LOOKUP:
        return False
    t = step.tree
    if isinstance(t, E.Name):
        return is_probability(spec, t.id, depth + 1)
    if isinstance(t, E.Call) and t.name in group("weights"):     # rows summing to 1
        return not any(k == "axis" for k, _ in t.kwargs)
    if isinstance(t, E.BinOp) and t.op == "/":
        right = _resolve(t.right, spec)
        if isinstance(right, E.Call) and right.name == "sum" and "exp" in _calls(t.left, spec):
            return True                               # exp(S) / sum(exp(S)), by hand
    return False


def _resolve(node, spec):
    """A step's name replaced by its expression (a few levels)."""
    for _ in range(MAX_LOOKUP):
        if not isinstance(node, E.Name) or spec.step(node.id) is None:
            return node
        node = spec.step(node.id).tree
    return node


def is_statistic(node, spec) -> bool:
    """Does ``node`` compute a row statistic (var, mean, sum), directly or through steps?"""
    return bool(_calls(node, spec) & set(STATISTICS_CALLS))


def _walk(node, spec, depth: int = 0):
    """Every node of ``node``, step names followed a few levels."""
    stack = [(node, 0)]
    while stack:
        n, d = stack.pop()
        yield n
        if isinstance(n, E.Name) and d < MAX_LOOKUP and spec.step(n.id) is not None:
            stack.append((spec.step(n.id).tree, d + 1))
        stack.extend((c, d) for c in E._children(n))


def statistic_kind(node, spec) -> str | None:
    """What the statistic ``node`` computes, read from its expression: "variance" (``var``,
    or the mean of squared deviations from a mean: LayerNorm's), "mean square" (the mean of
    squares of values not centred, ``mean(x ** 2)``: RMSNorm's, not a variance), "statistic"
    (another var/mean/sum), None (none)."""
    calls = _calls(node, spec)
    if not calls & set(STATISTICS_CALLS):
        return None
    if "var" in calls:
        return "variance"
    nodes = list(_walk(node, spec))
    centred = any(isinstance(n, E.BinOp) and n.op == "-" and "mean" in _calls(n.right, spec)
                  for n in nodes)
    if centred:
        return "variance"
    squares = any(isinstance(n, E.BinOp) and n.op == "**" and n.right == E.Num(2) for n in nodes)
    return "mean square" if squares else "statistic"


def norm_name(node, spec) -> str:
    """The normalisation whose root ``sqrt(node)`` is: "RMSNorm" or "LayerNorm"."""
    return "RMSNorm" if statistic_kind(node, spec) == "mean square" else "LayerNorm"


def divided_by_sqrt(node, spec):
    """``(left, arg)`` when ``node`` is ``left / sqrt(arg)``, the root written there or as a
    step of its own (``std = sqrt(var(x) + eps)``); else None."""
    if not (isinstance(node, E.BinOp) and node.op == "/"):
        return None
    right = _resolve(node.right, spec)
    if isinstance(right, E.Call) and right.name == "sqrt" and len(right.args) == 1:
        return node.left, right.args[0]
    return None


def sqrt_role(left, arg, spec) -> str:
    """The role of ``left / sqrt(arg)``: "norm" (a standard deviation), "scaling" (attention's
    1/√d_k) or "other"."""
    if is_statistic(arg, spec):
        return "norm"
    if "@T" in _calls(left, spec) or "scores" in _calls(left, spec):
        return "scaling"
    return "other"


def sqrt_mistakes(node: E.BinOp, spec) -> list[tuple[str, object]]:
    """The mistakes of a division by a square root, named by its role."""
    left, arg = divided_by_sqrt(node, spec)
    node = E.BinOp("/", left, E.Call("sqrt", (arg,), ()))
    role = sqrt_role(left, arg, spec)
    if role == "norm" and statistic_kind(arg, spec) == "mean square":
        return [("division by the RMS missing (the normalisation)", node.left),
                ("divided by the mean square instead of the root mean square (RMS)",
                 E.BinOp("/", node.left, arg))]
    if role == "norm":
        return [("division by the standard deviation missing (the normalisation)", node.left),
                ("divided by the variance instead of the standard deviation",
                 E.BinOp("/", node.left, arg))]
    if role == "scaling":
        return [("scaling 1/√d_k missing", node.left),
                ("scaled by 1/d_k instead of 1/√d_k (1/√d_k applied twice)",
                 E.BinOp("/", node.left, arg))]
    text = E.unparse(arg)
    return [(f"division by sqrt({text}) missing", node.left),
            (f"divided by {text} instead of sqrt({text})", E.BinOp("/", node.left, arg))]
