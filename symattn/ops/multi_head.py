"""Multi-head attention: heads built from per-head or packed projections, grouped-query and
multi-query attention (``n_kv_heads``), an additive bias per head (ALiBi), declared once
(:data:`MULTI_HEAD`).

Packed projections are split by columns as PyTorch and LLaMA do: query head i takes
W_Q's columns i·d_head … (i+1)·d_head − 1; with g key/value heads, query head i uses
key/value head i // (n_heads/g), whose K and V are computed once.
"""

from __future__ import annotations

from typing import NamedTuple

from . import primitives as P
from . import arguments
from .attention import attention_steps
from .operation import declare, Presentation
from ..errors import ShapeError, InputError
from ..steps import Steps
from ..tensor import Tensor


class Head(NamedTuple):
    """One head's projections, each d_model×d_head (row vectors: q = x·W_Q)."""
    W_Q: object
    W_K: object
    W_V: object


def multi_head(X, W_Q, W_K, W_V=None, n_heads=None, n_kv_heads=None, W_O=None, mask=None,
               scale=None, bias=None, kv_repeat: str = "interleave", head=None, part=None):
    """Multi-head attention: per head Q, K, V, attention; the heads' outputs side by side
    (concat), then ·W_O (omitted when W_O is None). Two ways to give the heads:

    - packed, as PyTorch and LLaMA store them: ``multi_head(X, W_Q, W_K, W_V,
      n_heads=h, n_kv_heads=g)``, self-attention on the rows of X. W_Q (d×h·d_head) is split
      by columns into h heads, W_K and W_V into g key/value heads (g divides h; None: g = h);
      query head i uses key/value head i // (h/g): grouped-query attention, multi-query
      for g = 1. A key/value head is computed once, whatever number of heads share it.
      This is the form of the spec language (whose value is the output).
    - per head, the original Transformer's: ``multi_head(X_q, X_kv, heads, W_O, mask=…,
      scale=…)`` with ``heads`` a list of :class:`Head` in W_K's place (X_kv in W_Q's, W_O
      in W_V's or by name). Self-attention: ``X_kv = X_q``; cross-attention: ``X_q`` the
      decoder rows, ``X_kv`` the encoder's final output.

    ``bias``: added to each head's scaled scores with the mask: one T_q×T_k matrix for
    every head, or the heads' biases one above the other (h·T_q×T_k, as ``alibi_bias``).
    ``kv_repeat="tile"`` (query head i on key/value head i mod g, PyTorch's ``repeat``
    where ``repeat_interleave`` was meant) is the common mistake, kept for diagnosis.
    Returns every step: ``["heads"][i]`` (Q, K, V, scores, weights, output), concat, output;
    with ``head=h`` (1 … n_heads, as articles number them) and/or ``part`` only that one
    (:func:`head_part`), as a claim names it in a spec.
    """
    if _is_heads(W_K):
        if n_heads is not None or n_kv_heads is not None:
            raise InputError("multi_head: the per-head form takes mask= and scale= by name; "
                             "n_heads= and n_kv_heads= go with packed projections")
        X_kv, heads, W_O = W_Q, W_K, W_V if W_V is not None else W_O
    else:
        if W_V is None or n_heads is None:
            raise InputError("multi_head(X, W_Q, W_K, W_V, n_heads=…): packed projections need "
                             "W_V and n_heads")
        X_kv, heads = X, split_heads(W_Q, W_K, W_V, n_heads=n_heads, n_kv_heads=n_kv_heads,
                                     kv_repeat=kv_repeat)
    X_q, X_kv = P.as_tensor(X), P.as_tensor(X_kv)
    if not heads:
        raise ShapeError("multi_head needs at least one head")
    biases = _head_biases(bias, len(heads), X_q.shape[0])
    st = Steps()
    per_head, shared = [], {}
    for h, b in zip(heads, biases):
        h = h if isinstance(h, Head) else Head(*h)
        key = (id(h.W_K), id(h.W_V))
        if key not in shared:              # grouped heads: one K and V per key/value head
            shared[key] = ((X_kv @ h.W_K).named("K"), (X_kv @ h.W_V).named("V"))
        hs = Steps(Q=X_q @ h.W_Q)
        hs["K"], hs["V"] = shared[key]
        m = mask if b is None else b if mask is None else b + mask
        a = attention_steps(hs["Q"], hs["K"], hs["V"], m, scale)
        for k, v in a.items():
            hs[k] = v
        per_head.append(hs)
    st["heads"] = per_head
    st["concat"] = P.hcat([h["output"] for h in per_head])
    st["output"] = st["concat"] if W_O is None else st["concat"] @ W_O
    return st if head is None and part is None else head_part(st, head, part)


def split_heads(W_Q, W_K, W_V, *, n_heads, n_kv_heads=None, kv_repeat="interleave") -> list[Head]:
    """The heads of packed projections, split by columns as PyTorch does: query head i
    takes W_Q's columns i·d_head … (i+1)·d_head − 1 and shares key/value head
    :func:`kv_head` (the same W_K and W_V objects)."""
    W_Q, W_K, W_V = P.as_tensor(W_Q), P.as_tensor(W_K), P.as_tensor(W_V)
    h = _heads_count(n_heads, "n_heads")
    g = h if n_kv_heads is None else _heads_count(n_kv_heads, "n_kv_heads")
    if h % g:
        raise ShapeError(f"multi_head: n_heads = {h} is not a multiple of n_kv_heads = {g}")
    q, k, v = (_column_blocks(W, n, name) for W, n, name in
               ((W_Q, h, "W_Q"), (W_K, g, "W_K"), (W_V, g, "W_V")))
    if q[0].shape[1] != k[0].shape[1]:
        raise ShapeError(f"multi_head: query heads are {q[0].shape[1]} wide and key heads "
                         f"{k[0].shape[1]}: they need the same width d_head")
    return [Head(q[i], k[kv_head(i, h, g, kv_repeat)], v[kv_head(i, h, g, kv_repeat)])
            for i in range(h)]


def kv_head(i: int, n_heads: int, n_kv_heads: int, kv_repeat: str = "interleave") -> int:
    """The key/value head of query head i (0-based): i // (n_heads/n_kv_heads), as
    ``repeat_interleave`` and ``enable_gqa`` group them; ``"tile"``: i mod n_kv_heads."""
    if kv_repeat not in ("interleave", "tile"):
        raise InputError(f"multi_head: kv_repeat={kv_repeat!r}: use 'interleave' or 'tile'")
    return i // (n_heads // n_kv_heads) if kv_repeat == "interleave" else i % n_kv_heads


def _column_blocks(W: Tensor, n: int, name: str) -> list[Tensor]:
    width = W.shape[1]
    if width % n:
        raise ShapeError(f"multi_head: {name} has {width} columns, not a multiple of {n} heads")
    w = width // n
    return [P.take(W, None, range(i * w, (i + 1) * w)) for i in range(n)]


def _heads_count(n, what: str) -> int:
    k = arguments.whole(n, f"multi_head: {what}")
    if k < 1:
        raise InputError(f"multi_head: {what} = {k} must be at least 1")
    return k


def _head_biases(bias, n: int, T_q: int) -> list:
    """Each head's additive bias: None, the one matrix given, or its rows for that head."""
    if bias is None:
        return [None] * n
    bias = P.as_tensor(bias)
    if bias.shape[0] == n * T_q and n > 1:
        return [P.take(bias, range(i * T_q, (i + 1) * T_q)) for i in range(n)]
    if bias.shape[0] in (T_q, 1):
        return [bias] * n
    raise ShapeError(f"multi_head: bias has {bias.shape[0]} rows: give {T_q} (every head) "
                     f"or {n}·{T_q} (the heads' biases one above the other)")


def self_attention(X, W_Q, W_K, W_V, mask=None, scale=None) -> Steps:
    """One head of self-attention: Q, K, V from the same rows X."""
    return multi_head(X, X, [Head(W_Q, W_K, W_V)], mask=mask, scale=scale)["heads"][0]


def cross_attention(X_dec, H_enc, W_Q, W_K, W_V, mask=None, scale=None) -> Steps:
    """One head of cross-attention: Q from the decoder rows, K and V from the encoder output."""
    return multi_head(X_dec, H_enc, [Head(W_Q, W_K, W_V)], mask=mask, scale=scale)["heads"][0]


def _is_heads(v) -> bool:
    """A list of heads (the per-head form): Heads or triples of matrices, not the rows of
    a matrix nor a Tensor."""
    return isinstance(v, (list, tuple)) and bool(v) and all(
        isinstance(h, Head) or (isinstance(h, (list, tuple)) and len(h) == 3
                                and all(isinstance(w, (Tensor, list, tuple)) for w in h))
        for h in v)


HEAD_PARTS = ("Q", "K", "V", "raw_scores", "scores", "masked_scores", "weights", "output")


def head_part(st: Steps, head=None, part=None) -> Tensor:
    """One intermediate of multi-head attention's steps ``st``: the output (T×d); with
    ``head=h`` (1 … n_heads) that head's ``part``: Q, K, V, raw_scores (Q·Kᵀ), scores
    (scaled), masked_scores (mask and bias added), weights, or output (Z_h, the default);
    ``part="concat"`` (no head): the heads' outputs side by side, before W_O."""
    if head is None:
        if part in (None, "output", "concat"):
            return st[part or "output"]
        raise InputError(f"multi_head: part={part!r} belongs to one head: give head= (1 … "
                         f"{len(st['heads'])})")
    head = arguments.whole(head, "multi_head: head")
    if not 1 <= head <= len(st["heads"]):
        raise InputError(f"multi_head: head={head}: the heads are 1 … {len(st['heads'])}")
    part = part or "output"
    hs = st["heads"][head - 1]
    if part not in HEAD_PARTS or part not in hs:
        have = [p for p in HEAD_PARTS if p in hs]
        raise InputError(f"multi_head: part={part!r}: a head has {', '.join(have)}")
    return hs[part]


# -- LaTeX: each head's Q, its key/value head's K and V, weights and output; concat ------

def _show(v, a) -> list[str]:
    order = a["kv_repeat"].value if "kv_repeat" in a else "interleave"      # a label
    given = {k: v.value(node) for k, node in a.items() if k not in ("kv_repeat", "head", "part")}
    for k in ("n_heads", "n_kv_heads"):
        if k in given:
            given[k] = arguments.whole(given[k], k)
    st = v.steps(multi_head, **given, kv_repeat=order)
    x = v.tex(a["X"]).text
    h = given["n_heads"]
    g_all = given.get("n_kv_heads") or h
    chosen = arguments.whole(v.value(a["head"]), "head") if "head" in a else None
    part = a["part"].value if "part" in a else ("output" if chosen else None)     # a label
    d = v.Display().add(v.lhs, "=", rf"{v.operator('multi_head')}\left({x}\right)")
    if chosen is not None:                         # one head's intermediate, as printed
        g = kv_head(chosen - 1, h, g_all, order) + 1
        d.cont("=", rf"{_part_symbol(part, chosen, g, a, v)} \text{{ (head {chosen})}}")
    else:
        concat = rf"\operatorname{{Concat}}\left(Z^{{(1)}}, \ldots, Z^{{({h})}}\right)"
        d.cont("=", concat + (f" {v.tex(a['W_O']).text}" if "W_O" in a and part != "concat" else ""))
    out = [v.finish(d, own=True).latex()]
    for i, hs in enumerate(st["heads"]):
        if chosen is not None and i != chosen - 1:
            continue
        g = kv_head(i, h, g_all, order) + 1
        di = v.Display().add(f"Q^{{({i + 1})}}", "=", rf"{x} W_{{Q}}^{{({i + 1})}}")
        v.finish(di, hs["Q"])
        if chosen is not None or g - 1 not in (kv_head(j, h, g_all, order) for j in range(i)):
            for name in ("K", "V"):                # first used here (or the head shown alone)
                di.add(f"{name}^{{({g})}}", "=", rf"{x} W_{{{name}}}^{{({g})}}")
                v.finish(di, hs[name])
        di.add(f"A^{{({i + 1})}}", "=",
               rf"{v.operator('softmax')}\left({_part_symbol('masked_scores', i + 1, g, a, v)}\right)")
        v.finish(di, hs["weights"])
        di.add(f"Z^{{({i + 1})}}", "=", f"A^{{({i + 1})}} V^{{({g})}}")
        out.append(v.finish(di, hs["output"]).latex())
    return out


def _part_symbol(part: str, i: int, g: int, a, v) -> str:
    """A head's intermediate in symbols: Q^{(i)}, Q^{(i)} K^{(g)⊤}/√d_k + M + B^{(i)}, A^{(i)} …"""
    qk = rf"Q^{{({i})}} K^{{({g})\top}}"
    scaled = (rf"\frac{{{qk}}}{{\sqrt{{d_{{k}}}}}}" if "scale" not in a
              else rf"{qk} \cdot {v.tex(a['scale']).text}")
    added = (" + M" if "mask" in a else "") + (f" + B^{{({i})}}" if "bias" in a else "")
    return {"Q": f"Q^{{({i})}}", "K": f"K^{{({g})}}", "V": f"V^{{({g})}}", "raw_scores": qk,
            "scores": scaled, "masked_scores": scaled + added, "weights": f"A^{{({i})}}",
            "output": f"Z^{{({i})}}"}[part]


# -- the common mistake: key/value heads tiled where they are grouped (or the reverse) -----

def _mistakes(call, spec) -> list:
    from ..spec import calls as C
    if C.get(call, "n_kv_heads") is None:
        return []
    mine = "tile" if C.get(call, "kv_repeat") == C.text("tile") else "interleave"
    theirs = "interleave" if mine == "tile" else "tile"
    said = {"interleave": "grouped (head i on key/value head i // (n_heads/n_kv_heads))",
            "tile": "tiled (head i on key/value head i mod n_kv_heads)"}
    return [(f"key/value heads {said[theirs]} instead of {said[mine]}",
             C.with_kw(call, "kv_repeat", C.text(theirs)))]


def _value(*args, **kwargs) -> Tensor:
    """What ``multi_head(...)`` is in the spec language: the output, or the part named."""
    out = multi_head(*args, **kwargs)
    return out["output"] if isinstance(out, Steps) else out


MULTI_HEAD = declare("multi_head", multi_head,
                     convert={"n_heads": "whole", "n_kv_heads": "whole", "head": "whole"},
                     steps=multi_head, value=_value, latex=Presentation("MultiHead", _show),
                     mistakes=_mistakes)
