"""The blocks of a 3-D printout placed on a family of steps its label names, one block to
one member (``weighted_values`` over ``weighted_values_key1`` … ``_key3``)."""

from __future__ import annotations

from .by_label import label_targets, mapped, prints_right
from .match import Matcher

def families(m: Matcher, groups: list, lines: dict) -> dict:
    """The blocks of each 3-D printout whose label names a family of steps of their shape
    (``weighted_values`` over ``weighted_values_key1`` … ``_key3``): each block goes to one
    member, one to one, as the values agree best (``scipy.optimize.linear_sum_assignment``).
    ``{id(block): (cells, right)}``; ``right`` holds the numbers that print their entry
    right, the others are claims only if the checker finds them carried (or a mistake
    reproduces them), as a near row is."""
    out = {}
    for blocks in _printouts(groups):
        targets, _, _ = label_targets(m, blocks[0], lines)
        shape = (len(blocks[0].rows), len(blocks[0].rows[0]))
        members = [t.tensor for t in targets if m.spec.tensors[t.tensor].shape == shape and
                   t.tensor not in m.spec.inputs and t.row is None and m.approx.get(t.tensor)]
        if len(members) < len(blocks):
            continue
        out.update(_one_to_one(m, blocks, members))
    return out


def _printouts(groups: list) -> list:
    """Runs of blocks of one 3-D printout: blocks 0, 1, 2, … of one bracket list, each of
    the same shape (Number.index is (block, row, column))."""
    runs, run = [], []
    for g in groups:
        idx = g.numbers[0].index if g.numbers else ()
        same = len(g.rows) > 1 and len(idx) == 3 and idx[1:] == (0, 0) and None not in g.rows[0]
        if same and run and idx[0] == len(run) and len(g.rows) == len(run[0].rows):
            run.append(g)
            continue
        if len(run) > 1:
            runs.append(run)
        run = [g] if same and idx[0] == 0 else []
    if len(run) > 1:
        runs.append(run)
    return runs


def _one_to_one(m: Matcher, blocks: list, members: list) -> dict:
    import numpy as np
    from scipy.optimize import linear_sum_assignment
    score = np.zeros((len(blocks), len(members)))
    placed = {}
    for b, g in enumerate(blocks):
        for k, name in enumerate(members):
            cells = mapped(name, g.rows, lambda i, j: (i, j))
            right = {id(n) for c, n in cells.values() if prints_right(m, n, c)}
            near = sum(m.near_print(n, c) for c, n in cells.values())
            score[b, k] = len(right) + 0.5 * near
            placed[b, k] = (cells, right)
    rows, cols = linear_sum_assignment(-score)
    if score[rows, cols].sum() * 3 < sum(len(g.numbers) for g in blocks):
        return {}                                   # the family prints too little of them
    return {id(blocks[b]): placed[b, k] for b, k in zip(rows, cols) if score[b, k] > 0}
