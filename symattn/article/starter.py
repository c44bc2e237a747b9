"""A starting spec from an article (``symattn new --from FILE``).

``[inputs]`` are the matrices and vectors the article prints (:mod:`.matrices`), each with
its ``line``; a matrix that repeats the numbers of an earlier one is a comment. ``[[steps]]``
propose the usual attention pipeline when the shapes fit: ``Q = X @ W_Q``, ``K``, ``V``,
``scores = Q @ K.T``, ``scaled = scores / sqrt(d_k)``, ``weights = softmax(scaled)``,
``output = weights @ V`` (without ``W_Q``/``W_K``/``W_V``: attention over ``X`` itself).
A step whose operands are a guess, a mask, LayerNorm and the FFN (proposed only when the
article's words name them) are written as comments for the user to edit. An input whose
name a proposed step takes (a printed ``Q``) is a comment too: the step computes it.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..numbers import shown
from ..spec.latex_import import _unique
from ..spec.toml_lines import toml_key, toml_string
from .cells import Printed
from .matrices import find
from .read import read_article
from .results import printed_results

_LAYER_NORM = re.compile(r"layer\s*-?\s*norm|レイヤー?正規化|層正規化", re.I)
_FFN = re.compile(r"\bffn\b|feed[\s-]*forward|フィードフォワード|順伝播|全結合", re.I)
_MASK = re.compile(r"\bmask|causal|マスク|因果", re.I)
_ROLE = {"wq": "W_Q", "wk": "W_K", "wv": "W_V", "wo": "W_O", "w1": "W_1", "w2": "W_2",
         "b1": "b_1", "b2": "b_2"}


def _role(name: str) -> str | None:
    key = re.sub(r"[_^{}\s]", "", name).lower()
    return _ROLE.get(key) or ("X" if key in ("x", "h", "e", "emb", "embeddings") else None)


def _inputs(found: list[Printed]) -> tuple[list[Printed], list[str]]:
    """Named, unique inputs; comments for the matrices that repeat an earlier one."""
    out: list[Printed] = []
    names: dict = {}
    suffixes: dict = {}
    notes: list[str] = []
    for p in found:
        same = next((q for q in out if q.values == p.values or
                     (p.shape[0] == 1 and p.values[0] in q.values)), None)
        if same is not None and (not p.name or p.name == same.name or p.name == f"{same.name}_2"):
            what = "the numbers" if same.values == p.values else "a row"
            notes.append(f"# line {p.line}: {what} of {same.name} again")
            continue
        name = _unique(p.name or None, names, len(out) + 1, suffixes)
        names[name] = p
        out.append(Printed(name, p.line, p.values, p.texts, p.rows, p.form))
    if len(notes) > 20:
        notes = notes[:20] + [f"# … and {len(notes) - 20} more repeats"]
    return out, notes


def _pick(inputs: list[Printed]) -> dict:
    roles: dict = {}
    for p in inputs:
        role = _role(p.name)
        if role and role not in roles:
            roles[role] = p
    return roles


def _guess_x(inputs, roles, width):
    """The matrix the projections take: X by name, else the first labelled (or any)
    matrix of ``width`` columns and several rows that is not a weight. (matrix, sure)"""
    x = roles.get("X")
    if x is not None and (width is None or x.shape[1] == width):
        return x, True
    weights = {id(p) for p in roles.values()}
    fits = [p for p in inputs if id(p) not in weights and p.shape[0] > 1
            and (width is None or p.shape[1] == width)]
    labelled = [p for p in fits if p.rows]
    if labelled:
        first = min((p.line for p in roles.values()), default=labelled[0].line + 1)
        return labelled[0], labelled[0].line < first
    return (fits[0], False) if fits else (None, False)


def _dims(p: Printed) -> str:
    return f"{p.shape[0]}×{p.shape[1]}"


def propose(inputs: list[Printed], words: str) -> tuple[list[tuple[str, str, bool, str]], Printed | None]:
    """Steps as (name, expr, active, why) and the matrix used as X."""
    roles = _pick(inputs)
    wq, wk, wv = roles.get("W_Q"), roles.get("W_K"), roles.get("W_V")
    x, sure = _guess_x(inputs, roles, wq.shape[0] if wq else None)
    if x is None:
        return [], None
    X, steps = x.name, []
    if wq and wk:
        fits = wk.shape[0] == x.shape[1] and wq.shape[1] == wk.shape[1]
        steps += [("Q", f"{X} @ {wq.name}", sure, ""),
                  ("K", f"{X} @ {wk.name}", sure and wk.shape[0] == x.shape[1], "")]
        if wv:
            steps.append(("V", f"{X} @ {wv.name}", sure and wv.shape[0] == x.shape[1], ""))
        q, k, v, d = "Q", "K", "V" if wv else X, wq.shape[1]
        why = (f"{X} (line {x.line}) is a guess: a matrix as wide as {wq.name} is tall; "
               "check it, then remove the # of these steps") if not sure else (
            "" if fits and (not wv or wv.shape[0] == x.shape[1]) else
            f"the shapes do not fit ({X} {_dims(x)}, {wq.name} {_dims(wq)}, {wk.name} {_dims(wk)}"
            + (f", {wv.name} {_dims(wv)})" if wv else ")") + ": edit the steps")
    else:
        q = k = v = X
        d = x.shape[1]
        why = "no W_Q, W_K found: attention over the vectors themselves"
        sure = True
    steps = [(n, e, a, why if not a else "") for n, e, a, _ in steps]
    ok = sure and all(a for _, _, a, _ in steps) and (not (wq and wk) or fits)
    steps += [("S", f"{q} @ {k}.T", ok, why if not ok or not (wq and wk) else ""),
              ("S_scaled", f"S / sqrt({d})", ok, "the scores scaled by sqrt(d_k): drop if the article does not scale"),
              ("A", "softmax(S_scaled)", ok, "the attention weights"),
              ("Z", f"A @ {v}", ok, "the output: the weighted sum of the values" +
               ("" if v != X else f" (no W_V was found: the values are {X} itself)"))]
    if _MASK.search(words):
        steps.insert(-2, ("S_masked", "S_scaled + causal_mask(width(S_scaled))", False,
                          "the article speaks of a mask: use S_masked in A if this example masks"))
    if _LAYER_NORM.search(words):
        fit = ok and (wv.shape[1] if wq and wk and wv else x.shape[1]) == x.shape[1]
        steps += [("added", f"{X} + Z", False, "the article speaks of LayerNorm: residual first?"),
                  ("norm", "layer_norm(added)", False, "" if fit else "shapes to check")]
    if _FFN.search(words):
        w1, w2, b1, b2 = (roles.get(r) for r in ("W_1", "W_2", "b_1", "b_2"))
        args = ", ".join(p.name if p else n for p, n in ((w1, "W_1"), (b1, "b_1"), (w2, "W_2"), (b2, "b_2")))
        steps.append(("ffn_out", f"ffn(norm, {args})", False, "the article speaks of a feed-forward network"))
    return steps, x


def _value(p: Printed) -> str:
    return "[" + ", ".join("[" + ", ".join(r) + "]" for r in p.texts) + "]"


def _input_line(p: Printed, x: Printed | None) -> str:
    rows = ""
    if p.rows:
        rows = ', rows = "tokens"' if x is not None and p.rows == x.rows else \
            f", rows = {_strings(p.rows)}"
    return f"{toml_key(p.name)} = {{ value = {_value(p)}{rows}, line = {p.line} }}"


def _strings(texts) -> str:
    return "[" + ", ".join(toml_string(t) for t in texts) + "]"


def starter_spec(path: str) -> str:
    """The TOML text of a starting spec for the article at ``path``."""
    lines = read_article(path)
    inputs, notes = _inputs(find(lines))
    words = " ".join(l.text for l in lines if l.kind != "code")
    steps, x = propose(inputs, words)
    if x is not None and re.fullmatch(r"M\d+", x.name) and not any(p.name == "X" for p in inputs):
        old, x = x.name, Printed("X", x.line, x.values, x.texts, x.rows, x.form)
        inputs = [x if p.name == old else p for p in inputs]
        steps = [(n, re.sub(rf"\b{old}\b", "X", e), a, re.sub(rf"\b{old}\b", "X", w))
                 for n, e, a, w in steps]
    text = _render(path, inputs, notes, steps, x, {})
    active = [n for n, _, a, _ in steps if a]
    used = set(re.findall(r"\w+", " ".join(e for _, e, a, _ in steps if a)))
    candidates = [p for p in inputs if p.name not in used and p.name not in active]
    results = printed_results(text, candidates, active) if active and candidates else {}
    return _render(path, inputs, notes, steps, x, results) if results else text


def _render(path, inputs, notes, steps, x, results: dict) -> str:
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(path).stem).strip("-") or "article"
    out = ["# A starting spec read from the article; edit it, then: symattn check THIS.toml",
           "# Format: docs/spec-format.md. Inputs are what the article prints, with their line.",
           "[example]", f"id = {toml_string(stem)}",
           f"title = {toml_string('Worked example of ' + shown(Path(path).name))}",
           f"source = {toml_string(shown(Path(path).name))}", 'rounding = "half-up"']
    if x is not None and x.rows:
        out.append(f"tokens = {_strings(x.rows)}")
    out += ["", f"[inputs]                          # {len(inputs)} found"] + notes
    active = {n for n, _, a, _ in steps if a}
    for p in inputs:
        text = _input_line(p, x)
        if p.name in active:
            text = f"# {text}   # printed; the step {p.name} computes it"
        elif p.name in results:
            text = f"# {text}   # printed: {results[p.name]}, rounded"
        out.append(text)
    if not steps:
        out += ["", "# no matrix to start from was found: write the steps (see docs/spec-format.md)"]
    said = ""
    for name, expr, on, why in steps:
        block = ["[[steps]]", f"name = {toml_string(name)}", f"expr = {toml_string(expr)}"]
        out.append("")
        if why and why != said:
            out.append(f"# {why}")
        said = why
        out += block if on else ["# " + s for s in block]
    return "\n".join(out) + "\n"
