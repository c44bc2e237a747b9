"""How large an evaluation would be, estimated from the graph before it is done.

- :func:`closed_form_size`: the exact value of an entry is a SymPy tree; a shared
  subexpression is printed once per use. The estimate counts, per node, the largest
  entry's tree size, so a softmax over many keys or a LayerNorm over nested exponentials
  is refused before it is built or printed.
- :func:`estimate` / :func:`check_resources`: the memory and time of certified digits
  (balls), from the shapes and the precision; only what would not fit on this machine
  (:data:`MEMORY_BYTES`, :data:`SECONDS`) is refused.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from ..errors import LimitError
from ..tensor import Tensor, walk
from ..primitives import PRIMITIVES


def closed_form_size(root: Tensor) -> int:
    """An estimate of the largest entry's expression-tree size (rational values fold to
    one number, as SymPy folds them); each primitive's size rule is declared with it."""
    size: dict[int, int] = {}
    rational: dict[int, bool] = {}
    for node in walk(root):
        p = PRIMITIVES[node.op]
        r = rational[id(node)] = p.keeps_rational(node) and all(rational[id(x)]
                                                              for x in node.args)
        size[id(node)] = 1 if r else p.size(node, [size[id(x)] for x in node.args])
    return size[id(root)]


# -- resources: memory and time of a certified evaluation -----------------------------------

def machine_memory() -> int:
    """Physical memory in bytes (8 GiB when the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


MEMORY_BYTES = int(0.75 * machine_memory())   # what one evaluation may use; raise on purpose
SECONDS = 3600.0                               # what one evaluation may take; raise on purpose
COPIES = 4      # a matrix's balls held at once: its value and one operation's intermediates


def _limbs(prec: int) -> float:
    return prec / 64


def entry_bytes(prec: int) -> int:
    """One ball in a list: the Python object (64 bytes), its mantissa beyond two inline
    limbs, the list's pointer."""
    limbs = -(-prec // 64)
    return 72 + (8 * limbs + 16 if limbs > 2 else 0)


def _madd_s(prec: int) -> float:
    """One multiply-add of an ``arb_mat`` product (measured: 20 ns at 139 bits, 55 ns at
    600, 1.2 µs at 3,400 on the reference machine)."""
    return (18 + 0.42 * _limbs(prec) ** 2) * 1e-9


def _function_s(prec: int) -> float:
    """One exp/log/sqrt/sin/cos of a ball, with the Python call (0.9 µs at 139 bits)."""
    return (0.8 + 0.07 * _limbs(prec) ** 2) * 1e-6


def _entry_s(prec: int) -> float:
    """One elementwise step in Python (an add, a conversion, a list slot)."""
    return (0.4 + 0.0016 * _limbs(prec) ** 2) * 1e-6


ROUND_S = 15e-6                                # rounding one entry to decimal digits


class Estimate(NamedTuple):
    """Peak memory (bytes) and time (seconds) of evaluating a graph to certified digits."""
    bytes: int
    seconds: float
    prec: int

    def __str__(self) -> str:
        return f"about {format_bytes(self.bytes)} and {format_seconds(self.seconds)}"


def format_bytes(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError


def format_seconds(s: float) -> str:
    if s < 60:
        return f"{s:.2g} s"
    if s < 3600:
        return f"{s / 60:.0f} min"
    if s < 86400 * 2:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.0f} days" if s < 86400 * 3650 else "more than ten years"


def estimate(root: Tensor, prec: int | None = None, digits: int | None = 30) -> Estimate:
    """The memory and time of evaluating ``root`` in balls at ``prec`` bits (or the
    precision ``digits`` certified digits start at), from the shapes alone.

    Every node's value is held (the evaluator memoises them) except the T_q×T_k nodes of
    an attention that goes row by row (:mod:`symattn.evaluation.rowwise`), which hold one
    block. Time counts matrix products by their multiply-adds and every other entry by
    what it costs in Python; certified digits beyond the first precision are not counted.
    """
    from .certified import start_precision
    from .rowwise import attention_pattern, streamed_nodes, ROWWISE_MIN, BLOCK_ENTRIES
    from .products import scaled_operand, block_rows
    prec = prec or start_precision(digits=digits)
    per = entry_bytes(prec)
    nodes, streamed, fused = list(walk(root)), set(), []
    for t in nodes:
        p = attention_pattern(t)
        if p is not None and p.weights.shape[0] * p.weights.shape[1] >= ROWWISE_MIN:
            fused.append(p)
            streamed.update(id(x) for x in streamed_nodes(p))
    held = seconds = block = 0.0
    for t in nodes:                       # a large constant operand: compact, block by block
        if scaled_operand(t) and id(t.args[1]) not in streamed:
            streamed.add(id(t.args[1]))
            w = t.args[1].params["entries"]
            held += w.nbytes
            block = max(block, block_rows(w.shape[1]) * w.shape[1] * (per + 8))
    held += block                         # one product's block at a time
    madd, fn, entry = _madd_s(prec), _function_s(prec), _entry_s(prec)
    for t in nodes:
        if id(t) in streamed:
            continue
        m, n = t.shape
        held += m * n * per
        cost = PRIMITIVES[t.op].cost
        if cost == "product":
            k = t.args[0].shape[1]
            seconds += m * n * k * madd + (m * k + k * n + m * n) * entry
        elif cost == "function":
            seconds += m * n * fn
        else:
            seconds += m * n * entry
    for p in fused:
        (tq, tk), d = p.weights.shape, p.V.shape[1]
        held += min(BLOCK_ENTRIES, tq * tk) * per * 3 + tk * d * per
        seconds += tq * tk * (p.Q.shape[1] + d) * madd + tq * tk * (fn + 3 * entry)
    held += root.shape[0] * root.shape[1] * per          # the balls handed out
    seconds += root.shape[0] * root.shape[1] * ROUND_S
    return Estimate(int(held), seconds, prec)


def check_resources(root: Tensor, prec: int | None = None, digits: int | None = 30) -> Estimate:
    """Refuse (one line, with the estimate) an evaluation that would need more memory than
    :data:`MEMORY_BYTES` or more time than :data:`SECONDS`."""
    e = estimate(root, prec, digits)
    if e.bytes > MEMORY_BYTES or e.seconds > SECONDS:
        m, n = root.shape
        raise LimitError(f"a {m}×{n} result at {e.prec} bits would need {e} "
                         f"(this machine: {format_bytes(MEMORY_BYTES)} and "
                         f"{format_seconds(SECONDS)} per evaluation)",
                         hint="evaluate a part of it (fewer rows or tokens), ask for fewer "
                              "digits, or raise symattn.evaluation.size.MEMORY_BYTES / "
                              "SECONDS on purpose")
    return e


def max_entries(prec: int = 139) -> int:
    """The most entries one matrix may have: its balls at ``prec`` bits (30 digits),
    held :data:`COPIES` times, fit in :data:`MEMORY_BYTES`."""
    return MEMORY_BYTES // (COPIES * entry_bytes(prec))
