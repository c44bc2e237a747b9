"""The passes of one inference, in order: the search over the declared operations
(:mod:`.search`), with per-token vectors stacked before it (:mod:`.stacks`), and after it
the blocks computed from the right values behind a print with a slip (:mod:`.mended`), the
blocks printed side by side (:mod:`.concats`), the rows a computed matrix prints
(:mod:`.order`), the attention heads through their chain (:mod:`.heads`), the weights
applied to the values (:mod:`.weighted`), what the article's program states it prints
(:mod:`.program`), the products written with their matrices (:mod:`.juxtaposed`), the blocks a
formula labels (:mod:`.formulas`), the blocks too small for
the search's margin (:mod:`.small`) and last a row worked as the two before it (:mod:`.alike`).
Each pass reads and extends the one :class:`~.search.Search`."""

from __future__ import annotations

from .alike import alike
from .blocks import Block
from .concats import concat_runs
from .heads import attention_heads
from .juxtaposed import written_functions, written_products
from .masks import filled
from .mended import mended
from .order import inputs_as_rows, rows_again
from .formulas import labelled
from .program import program_derivations
from .search import Search
from .small import small_blocks
from .stacks import stack_computed, stack_inputs, stack_rows
from .weighted import weighted_values


def infer_derivations(found: list[Block], text: str, parts: list = ()) -> tuple[dict, dict]:
    """(block index -> its derivation, for the blocks some derivation reproduces; block
    index -> the computed block it prints again)."""
    search = Search(found, text)
    printed = list(found)            # the search drops blocks printed again from ``found``
    stack_inputs(search)             # x_1, x_2, …: the rows of one input matrix, added to ``found``
    stack_rows(search)               # per-token vectors stacked into a matrix: added to ``found``
    search.run()
    mended(search)                   # and from the right values behind a print with a slip
    concat_runs(search)              # blocks printed one after another, then side by side
    stack_computed(search)           # and those a computed block's product prints (appended)
    rows_again(search)               # a vector that a computed matrix's row prints: that row
    inputs_as_rows(search)           # and an input vector that is one: the row is the operand
    attention_heads(search)
    weighted_values(search, parts)
    program_derivations(search, parts, printed)   # what the article's program prints: as it states
    written_products(search, parts)  # a product written with its matrices ([X][W] = …): as it writes
    written_functions(search, parts)  # and a function of one (softmax([…]) ≈ …)
    labelled(search, parts)          # a block labelled with a formula (QK^T = …): as it writes
    small_blocks(search)             # 1×2 blocks, weights shown after their product
    alike(search)                    # a row worked as the two before it, with a slip
    filled(search)                   # a mask printed with -1e9 for −∞: its fill
    return search.derived, search.reprints


