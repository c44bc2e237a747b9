"""Which printed matrices are results of the proposed steps, not inputs (``new --from``).

A notebook prints ``Q`` after computing it; an article shows ``Q_love = [0.92, 1.24]``. A
printed matrix whose every entry is a step's certified value rounded half-up at the
entry's printed decimals (the whole step, or one row of it) is that step's result: the
starting spec leaves it as a comment, so ``check --article`` checks it instead of taking it
as given. Nothing is decided from floats: the values are certified decimals.
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import SymattnError

MAX_ENTRIES = 400          # larger steps are not compared (a starting spec stays quick)
MAX_DECIMALS = 20


def _decimals(text: str) -> int | None:
    """Places after the point of a plain decimal TOML text (``1.0500`` → 4), else None."""
    body = text.lstrip("-")
    if not body.replace(".", "", 1).isdigit():
        return None
    return len(body.partition(".")[2])


def _rounded(spec, name: str, decimals: int, cache: dict):
    key = (name, decimals)
    if key not in cache:
        from .. import evaluate
        try:
            cache[key] = [[Fraction(v) for v in row]
                          for row in evaluate(spec.tensors[name], decimals=decimals)]
        except (SymattnError, ValueError, ZeroDivisionError):
            cache[key] = None
    return cache[key]


def _prints(p, spec, name: str, row: int | None, cache: dict) -> bool:
    for i, (vrow, trow) in enumerate(zip(p.values, p.texts)):
        for j, (v, t) in enumerate(zip(vrow, trow)):
            d = _decimals(t)
            if d is None or d > MAX_DECIMALS:
                return False
            rounded = _rounded(spec, name, d, cache)
            if rounded is None or rounded[i if row is None else row][j] != v:
                return False
    return True


def printed_results(spec_text: str, candidates: list, steps: list[str]) -> dict[str, str]:
    """{input name: "the step Q" or "row 2 of the step Q"} for the candidates (Printed
    matrices no step uses) that print a step's value; ``spec_text`` is the starting spec."""
    from ..spec.load import load
    try:
        spec = load("<new --from>", text=spec_text)
    except SymattnError:
        return {}
    out: dict[str, str] = {}
    cache: dict = {}
    for p in candidates[:100]:
        for name in steps:
            t = spec.tensors.get(name)
            if t is None or t.shape[0] * t.shape[1] > MAX_ENTRIES:
                continue
            if t.shape == p.shape and _prints(p, spec, name, None, cache):
                out[p.name] = f"the step {name}"
                break
            if p.shape[0] == 1 and t.shape[0] > 1 and t.shape[1] == p.shape[1]:
                row = next((r for r in range(t.shape[0]) if _prints(p, spec, name, r, cache)), None)
                if row is not None:
                    out[p.name] = f"row {row + 1} of the step {name}"
                    break
    return out
