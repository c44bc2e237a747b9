"""Every step of a spec as the chain of equations the articles print.

A step is rendered by the top-level operation of its expression tree: the formula in
symbols, the operands' numbers substituted, one row written out as arithmetic on those
numbers, and the result. Softmax shows each exponential, their sum and the quotients;
LayerNorm its mean, deviations, variance and √(σ² + ε); FFN its ReLU; attention its
scores, scaling, mask, weights and weighted sum; concatenation which columns came from
which head; a step with labelled columns (logits, probabilities, weights) gets a table.
A masked entry is −∞ and its weight 0. Anything else is ``name = value``.

Every number is certified (see :mod:`symattn.render.latex_values`), printed at the
precision and in the rounding mode of the claims on its step, or at ``digits`` decimals
where the article prints none of it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..errors import LimitError, SymattnError
from ..ops import primitives as P
from ..spec import expr as E
from ..tensor import Tensor, NEG_INF
from .latex_config import LatexConfig
from .latex_display import Display, rel, printed_tex, row_lines
from .step_view import StepView
from ..ops import OPERATIONS
from .latex_formula import (Formula, Tex, paren, cell_tex, join_sum, ADD, NEG, MUL, FRAC, POW,
                            REDUCTIONS, _op)
from .latex_values import (Numbers, Precision, Cell, Sym, symbol, _small_closed_form, row_key,
                           label_text, layout, table, texts, MAX_EXACT_PLACES)

SOFTMAX_CALLS = ("softmax", "probabilities")
ATTENTION_CALLS = ("attention", "weights", "scores")
MAX_EXACT_NODES = 20_000    # estimated expression-tree size of one closed form before building it


# -- the output of one step -------------------------------------------------------------

@dataclass
class StepBlock:
    """The LaTeX of one step (or of the inputs): displays, and notes in plain text."""
    name: str
    title: str
    symbol: str
    displays: list = field(default_factory=list)     # LaTeX math, no delimiters
    notes: list = field(default_factory=list)        # plain-text lines (corrections)
    remarks: list = field(default_factory=list)      # plain-text lines shown first (--exact fallback)
    wrong: list = field(default_factory=list)        # the check Records marked wrong


# -- the renderer -----------------------------------------------------------------------

class SpecRenderer:
    """Renders the inputs and steps of one loaded spec; one Evaluator for all of it."""

    def __init__(self, spec, config: LatexConfig | None = None):
        from ..claims.check import Checker, resolve
        self.spec = spec
        self.cfg = config or LatexConfig()
        self.records: list = []
        self.marks: dict = {}
        if self.cfg.corrections:
            checker = Checker(spec)
            self.records = checker.run()
            entries = [e for es in checker.entries for e in es]
            for e, r in zip(entries, self.records):
                if r.verdict == "wrong":
                    self.marks.setdefault(e.claim.step, {}).setdefault((e.i, e.j), []).append(r)
            evaluator = checker.ev
        else:
            entries = [e for c in spec.claims for e in resolve(spec, c)]
            evaluator = None
        self.num = Numbers(evaluator)
        self.num_exact = Numbers(self.num.ev, exact=True) if self.cfg.exact else None
        self._entries = entries
        self.precisions = self._precisions(entries)
        self.claimed_rows = self._claimed_rows(entries)
        self.formula = Formula(self)
        self.cur = Precision(self.cfg.digits, spec.rounding)
        self._values: dict = {}
        self._cells: dict = {}
        self._keep: list = []

    # -- precision --------------------------------------------------------------------
    def _precisions(self, entries) -> dict:
        decs: dict = {}
        modes: dict = {}
        for e in entries:
            if e.number.value is NEG_INF:
                continue
            d = e.decimals + (2 if e.number.percent else 0)
            decs.setdefault(e.claim.step, []).append(d)
            modes.setdefault(e.claim.step, Counter())[e.mode] += 1
        out = {}
        for s in self.spec.steps:
            if s.name in decs:
                out[s.name] = Precision(max(decs[s.name]), modes[s.name].most_common(1)[0][0])
            elif s.decimals is not None:
                out[s.name] = Precision(s.decimals, self.spec.rounding)
            else:
                out[s.name] = Precision(self.cfg.digits, self.spec.rounding)
        return out

    def _claimed_rows(self, entries) -> dict:
        order = sorted(entries, key=lambda e: (e.claim.line, e.claim.index))
        out: dict = {}
        for e in order:
            rows = out.setdefault(e.claim.step, [])
            if e.i not in rows:
                rows.append(e.i)
        return out

    def input_precision(self) -> Precision:
        return Precision(self.cfg.digits, self.spec.rounding, MAX_EXACT_PLACES)

    def name_precision(self, name: str) -> Precision:
        if name in self.precisions:
            return self.precisions[name]
        if name in self.spec.inputs:
            return self.input_precision()
        return Precision(self.cfg.digits, self.spec.rounding)

    # -- the Scope of latex_formula ----------------------------------------------------
    def value(self, node) -> Tensor:
        key = id(node)
        if key in self._values:
            return self._values[key][1]
        if isinstance(node, E.Name) and node.id in self.spec.tensors:
            t = self.spec.tensors[node.id]
        else:
            from ..spec.build import build, as_tensor
            t = as_tensor(build(node, self.spec.tensors))
        self._values[key] = (node, t)
        return t

    def precision(self, node) -> Precision:
        while isinstance(node, (E.Index, E.Transpose)):
            node = node.target if isinstance(node, E.Index) else node.operand
        if isinstance(node, E.Name):
            return self.name_precision(node.id)
        if isinstance(node, (E.Num, E.ListLit)):
            return self.input_precision()
        return self.cur

    def leaf_cells(self, t: Tensor, prec: Precision) -> list[list[Cell]]:
        key = (id(t), prec)
        if key not in self._cells:
            self._cells[key] = self.num.cells(t, prec)
            self._keep.append(t)
        return self._cells[key]

    # -- rows -------------------------------------------------------------------------
    def rows_for(self, name: str, t: Tensor) -> list[int]:
        m = t.shape[0]
        if m == 1:
            return [0]
        if self.cfg.rows == "first":
            rows = [0]
        elif self.cfg.rows == "all":
            rows = list(range(m))
        else:
            rows = self.claimed_rows.get(name) or list(range(m))
        return rows[: self.cfg.max_rows]

    # -- results with corrections -------------------------------------------------------
    def result(self, t: Tensor, prec: Precision | None = None, rows=None, name=None,
               as_table: bool = False) -> tuple[str, bool]:
        """The value of ``t`` (or some rows) and whether any number in it is rounded."""
        prec = prec or self.cur
        cells = self.leaf_cells(t, prec)
        idx = list(range(t.shape[0])) if rows is None else list(rows)
        marks = self.marks.get(name, {}) if name else {}
        out, approx = [], False
        for i in idx:
            r = []
            for j, c in enumerate(cells[i]):
                approx = approx or c.rounded
                text = c.text
                if (i, j) in marks:
                    struck = r"\ ".join(rf"\textcolor{{red}}{{\cancel{{{printed_tex(rec.printed)}}}}}"
                                        for rec in _unique_printed(marks[(i, j)]))
                    text = rf"{struck}\ \mathbf{{{text}}}"
                r.append(text)
            out.append(r)
        if as_table:
            return table(out, [t.rows[i] for i in idx] if t.rows else None, t.cols), approx
        return layout(out), approx

    def row_cells(self, t: Tensor, i: int, prec: Precision | None = None) -> list[Cell]:
        cells = self.leaf_cells(t, prec or self.cur)
        return cells[i if t.shape[0] > 1 else 0]

    # -- blocks -------------------------------------------------------------------------
    def inputs_block(self) -> StepBlock:
        block = StepBlock("inputs", "Inputs", "")
        d = Display()
        prec = self.input_precision()
        for name, t in self.spec.inputs.items():
            labelled = bool(t.cols) or (bool(t.rows) and t.shape[0] > 1)
            if self.num_exact is None:
                text, _ = self.result(t, prec, as_table=labelled)
            else:
                text = layout(texts(self.num_exact.cells(t, prec)))
            d.add(symbol(name).latex(), "=", text)
        if d:
            block.displays.append(d.latex())
        return block

    def step_block(self, step) -> StepBlock:
        name = step.name
        t = self.spec.tensors[name]
        self.cur = self.precisions.get(name, Precision(self.cfg.digits, self.spec.rounding))
        title = name + (f" (article line {step.article_line})" if step.article_line else "")
        block = StepBlock(name, title, symbol(name).latex())
        lhs = symbol(name).latex()
        tree = step.tree
        try:
            exact = self.cfg.exact
            if exact:
                try:
                    block.displays += self._exact(name, t, tree, lhs)
                except LimitError as e:            # too large to read: this step in decimals
                    exact = False
                    block.remarks.append(f"Shown in certified decimals: {e.message}.")
            if not exact:
                block.displays += self._declared(name, t, tree, lhs)
                if self._wants_table(step, t):
                    res, approx = self.result(t, name=name, as_table=True)
                    block.displays.append(Display().add(lhs, rel(approx), res).latex())
        except SymattnError as e:
            if e.where is None:
                e.message = f"step '{name}': {e.message}"
            raise e.located(self.spec.where(step.line)) from None
        for (i, j), recs in sorted(self.marks.get(name, {}).items()):
            for r in recs:
                block.wrong.append(r)
                text = (f"line {r.line}: {name}[{r.at[0]}, {r.at[1]}] printed {r.printed}, "
                        f"correct {r.expected}")
                if r.diagnosis:
                    text += " (" + "; ".join(r.diagnosis) + ")"
                block.notes.append(text)
        return block

    def _declared(self, name, t, tree, lhs) -> list[str]:
        """The step as its operation's declaration shows it, else the generic display."""
        op = OPERATIONS.get(tree.name) if isinstance(tree, E.Call) else None
        shown = None
        if op is not None and op.latex is not None and op.latex.show is not None:
            view = StepView(self, name, t, tree, lhs)
            shown = op.latex.show(view, op.bind(tree.args, dict(tree.kwargs)))
        elif isinstance(tree, E.Call) and not _by_columns(tree):
            handler = {**{n: self._softmax for n in SOFTMAX_CALLS},
                       **{n: self._attention for n in ATTENTION_CALLS},
                       "ffn": self._ffn, "concat": self._concat}.get(tree.name)
            shown = handler(name, t, tree, lhs) if handler else None
        return self._generic(name, t, tree, lhs) if shown is None else shown

    def _wants_table(self, step, t: Tensor) -> bool:
        """A labelled table for logits and probabilities over a vocabulary (columns labelled
        as an input's columns), and for many-row matrices with labelled columns (weights)."""
        if not t.cols or t.shape == (1, 1):
            return False
        if t.shape[0] > 1:
            return True
        return any(v.cols == t.cols for v in self.spec.inputs.values())

    # -- generic: formula, substituted, written out, result ------------------------------
    def _generic(self, name, t, tree, lhs) -> list[str]:
        F = self.formula
        one = 0 if t.shape[0] == 1 and t.rows else None       # one labelled row: Q_{私は}
        if one is not None:
            lhs = symbol(name).sub(row_key(t, 0)).latex()
        d = Display().add(lhs, "=", F.show(tree, False, one).text)
        reduction = isinstance(tree, E.Call) and tree.name in REDUCTIONS
        if not reduction:
            d.cont("=", F.show(tree, True, one).text)
        out = [d]
        if t.shape[0] == 1:
            self._written_row(d, name, t, tree, 0)
        else:
            res, approx = self.result(t, name=name)
            d.cont(rel(approx), res)
            if F.has_arithmetic(tree):
                for i in self.rows_for(name, t):
                    di = Display().add(symbol(name).sub(row_key(t, i)).latex(), "=",
                                       F.show(tree, False, i).text)
                    if not reduction:
                        di.cont("=", F.show(tree, True, i).text)
                    self._written_row(di, name, t, tree, i)
                    out.append(di)
        return [x.latex() for x in out]

    def _written_row(self, d: Display, name, t, tree, i):
        F = self.formula
        if isinstance(tree, E.BinOp) and tree.op == "@" and self._is_weights(tree.left):
            d.lines("=", self._weighted_sum(tree, i))
        elif F.has_arithmetic(tree):
            entries = [F.entry(tree, i, j) for j in range(t.shape[1])]
            if all(e is not None for e in entries) and \
                    sum(e.leaves for e in entries) <= self.cfg.max_terms:
                d.lines("=", row_lines(entries))
        res, approx = self.result(t, rows=[i], name=name)
        d.cont(rel(approx), res)

    def _is_weights(self, node) -> bool:
        """Attention weights (a softmax), whose product with V is a weighted sum of rows."""
        while isinstance(node, E.Index):
            node = node.target
        if isinstance(node, E.Call):
            return node.name in SOFTMAX_CALLS + ("weights",)
        if not isinstance(node, E.Name):
            return False
        step = self.spec.step(node.id)
        if step is None:
            return False
        tree = step.tree
        if isinstance(tree, E.Call) and tree.name in SOFTMAX_CALLS + ("weights",):
            return True
        if isinstance(tree, E.BinOp) and tree.op == "/" and isinstance(tree.left, E.Name):
            num = self.spec.step(tree.left.id)
            if num is not None and isinstance(num.tree, E.Call) and num.tree.name == "exp":
                return True
        return False

    def _weighted_sum(self, tree: E.BinOp, i: int) -> list[str]:
        a_t, v_t = self.value(tree.left), self.value(tree.right)
        a = self.leaf_cells(a_t, self.precision(tree.left))
        v = self.leaf_cells(v_t, self.precision(tree.right))
        ai = i if a_t.shape[0] > 1 else 0
        lines = []
        for k in range(a_t.shape[1]):
            term = f"{paren(cell_tex(a[ai][k]), NEG)} \\cdot {layout([[c.text for c in v[k]]])}"
            lines.append(term if k == 0 else "+ " + term)
        return lines

    # -- softmax ----------------------------------------------------------------------
    def _softmax(self, name, t, tree, lhs) -> list[str]:
        F = self.formula
        z_node = tree.args[0]
        kw = dict(tree.kwargs)
        T = kw.get("T", tree.args[1] if len(tree.args) > 1 else None)
        d = Display().add(lhs, "=", F.show(tree, False).text).cont("=", F.show(tree, True).text)
        many = t.shape[0] > 1
        if many:
            res, approx = self.result(t, name=name)
            d.cont(rel(approx), res)
        out = [d] if many else []
        z_t = self.value(z_node)
        z_prec = self.precision(z_node)
        z_formula = F.show(z_node, False)
        scaled = T is not None and not (isinstance(T, E.Num) and T.value == 1)
        if scaled:
            z_t = P.div(z_t, self.value(T))
            z_prec = self.cur
            z_formula = Tex(rf"\frac{{{z_formula.text}}}{{{F.show(T, False).text}}}", FRAC)
            self._keep.append(z_t)
        named = _name_of(z_node) if not scaled else None
        for i in self.rows_for(name, t):
            di = Display() if many else d
            key = row_key(t, i) if many else None
            if named is not None:
                zsym = symbol(named)
                zt = self.value(z_node)
                if zt.shape[0] > 1:
                    zsym = zsym.sub(row_key(zt, i))
            else:
                zsym = Sym("z", (key,) if key else ())
                res, approx = self.result(z_t, z_prec, rows=[i if z_t.shape[0] > 1 else 0])
                zf = z_formula.text if not key else rf"\left({z_formula.text}\right)_{{{key}}}"
                di.add(zsym.latex(), "=", zf).cont(rel(approx), res)
            self._softmax_rows(di, name, t, symbol(name).sub(key).latex() if key else lhs,
                               z_t, z_prec, zsym, i)
            if many:
                out.append(di)
        if not many:
            out.insert(0, d)
        return [x.latex() for x in out]

    def _softmax_rows(self, d: Display, name, w_t, w_lhs, z_t, z_prec, zsym: Sym, i: int):
        """e^{z_j}, their sum, and the quotients for row i of softmax(z)."""
        from ..ops.elementwise import exp
        e_t = exp(z_t)
        s_t = P.row_sum(e_t)
        self._keep += [e_t, s_t]
        zi = i if z_t.shape[0] > 1 else 0
        zc = self.row_cells(z_t, zi, z_prec)
        ec = self.row_cells(e_t, zi)
        sc = self.row_cells(s_t, zi)[0]
        exps = [Tex(f"e^{{{c.text}}}", POW) for c in zc]
        d.add_lines(rf"\exp\left({zsym.latex()}\right)", "=", row_lines(exps))
        d.cont(rel(any(c.rounded for c in ec)), layout([[c.text for c in ec]]))
        d.add_lines(rf"\sum_{{j}} e^{{{zsym.sub('j').latex()}}}", "=",
                    row_lines([join_sum([cell_tex(c) for c in ec])]))
        d.cont(rel(sc.rounded), sc.text)
        quotients = [Tex(rf"\frac{{{c.text}}}{{{sc.text}}}", FRAC, 2) for c in ec]
        d.add_lines(w_lhs, "=", row_lines(quotients))
        res, approx = self.result(w_t, rows=[i if w_t.shape[0] > 1 else 0], name=name)
        d.cont(rel(approx), res)

    # -- attention ----------------------------------------------------------------------
    def _attention(self, name, t, tree, lhs) -> list[str]:
        from ..ops.attention import default_scale
        from ..ops.softmax import softmax
        F = self.formula
        order = {"attention": ["Q", "K", "V", "mask", "scale"], "weights": ["Q", "K", "mask", "scale"],
                 "scores": ["Q", "K", "scale"]}[tree.name]
        given = dict(zip(order, tree.args))
        given.update(dict(tree.kwargs))
        q_n, k_n, v_n = given.get("Q"), given.get("K"), given.get("V")
        mask_n, scale_n = given.get("mask"), given.get("scale")
        Q, K = self.value(q_n), self.value(k_n)
        d_k = Q.shape[1]
        raw = P.matmul(Q, P.transpose(K))
        if scale_n is None:
            scale_t, scale_tex = default_scale(d_k), rf"\sqrt{{{d_k}}}"
        else:
            scale_t, scale_tex = self.value(scale_n), None
        unscaled = scale_tex is None and _is_one(scale_t)
        scaled = raw if unscaled else raw * scale_t
        z = scaled + self.value(mask_n) if mask_n is not None else scaled
        self._keep += [raw, scaled, z]
        kt = rf"{paren(F.show(k_n, False), POW)}^{{\top}}"
        raw_sym = rf"{F.show(q_n, False).text} {kt}"
        if scale_tex is not None:
            scaled_sym = rf"\frac{{{raw_sym}}}{{\sqrt{{d_k}}}}"
        elif unscaled:
            scaled_sym = raw_sym
        else:
            scaled_sym = rf"{raw_sym} \cdot {paren(F.show(scale_n, False), NEG)}"
        z_sym = scaled_sym + (f" + {F.show(mask_n, False).text}" if mask_n is not None else "")
        if tree.name == "scores":
            formula = scaled_sym
        else:
            formula = rf"{_op('softmax')}\left({z_sym}\right)"
            if tree.name == "attention":
                formula += " " + F.show(v_n, False).text
        head = Display().add(lhs, "=", formula)
        if scale_tex is not None:
            head.add("d_k", "=", str(d_k))
        if t.shape[0] > 1:
            res, approx = self.result(t, name=name)
            head.add(lhs, rel(approx), res)
        out = [head.latex()]
        Qc = self.leaf_cells(Q, self.precision(q_n))
        Kc = self.leaf_cells(K, self.precision(k_n))
        for i in self.rows_for(name, t):
            qi = i if Q.shape[0] > 1 else 0
            key = row_key(t, i) if t.shape[0] > 1 else (row_key(Q, 0) if Q.rows else None)
            sub = (lambda s: Sym(s, (key,))) if key else (lambda s: Sym(s))
            d = Display()
            row_q = F.show(q_n, False, qi).text
            raw_row = rf"{row_q} {kt}"
            entries = [join_sum([Tex(f"{paren(cell_tex(Qc[qi][k]), NEG)} \\cdot "
                                     f"{paren(cell_tex(Kc[j][k]), NEG)}", MUL, 2)
                                 for k in range(d_k)]) for j in range(K.shape[0])]
            d.add(raw_row, "=", layout([[Qc[qi][k].text for k in range(d_k)]]) + " " +
                  layout(texts([[Kc[j][k] for j in range(K.shape[0])] for k in range(d_k)])))
            d.lines("=", row_lines(entries))
            res, approx = self.result(raw, rows=[qi])
            d.cont(rel(approx), res)
            zsym = None
            if not unscaled:
                rc = self.row_cells(raw, qi)
                if scale_tex is not None:
                    ents = [Tex(rf"\frac{{{c.text}}}{{{scale_tex}}}", FRAC) for c in rc]
                    rhs = rf"\frac{{{raw_row}}}{{\sqrt{{d_k}}}}"
                else:
                    sv = self.row_cells(scale_t, 0, self.precision(scale_n))[0]
                    ents = [Tex(f"{paren(cell_tex(c), NEG)} \\cdot {paren(cell_tex(sv), NEG)}", MUL)
                            for c in rc]
                    rhs = rf"{raw_row} \cdot {paren(F.show(scale_n, False), NEG)}"
                zsym = sub("s")
                d.add(zsym.latex(), "=", rhs)
                d.lines("=", row_lines(ents))
                res, approx = self.result(scaled, rows=[qi])
                d.cont(rel(approx), res)
            if mask_n is not None:
                sc = self.row_cells(scaled, qi)
                mt = self.value(mask_n)
                mc = self.row_cells(mt, qi, self.precision(mask_n))
                mc = mc if len(mc) == len(sc) else mc * len(sc)
                ents = [Tex(f"{a.text} + {paren(cell_tex(b), NEG)}", ADD, 2) for a, b in zip(sc, mc)]
                prev = zsym.latex() if zsym else raw_row
                mrow = F.show(mask_n, False, qi if mt.shape[0] > 1 else None).text
                zsym = sub("z")
                d.add(zsym.latex(), "=", f"{prev} + {mrow}")
                d.lines("=", row_lines(ents))
                res, approx = self.result(z, rows=[qi])
                d.cont(rel(approx), res)
            if zsym is None:
                zsym = sub("s")
                d.add(zsym.latex(), "=", raw_row)
            if tree.name == "scores":
                out.append(d.latex())
                continue
            w = softmax(z)
            self._keep.append(w)
            w_lhs = sub("A").latex() if tree.name == "attention" else (
                symbol(name).sub(key).latex() if t.shape[0] > 1 else lhs)
            self._softmax_rows(d, name if tree.name == "weights" else None,
                               w if tree.name == "attention" else t, w_lhs, z, self.cur, zsym, qi)
            if tree.name == "attention":
                V = self.value(v_n)
                Vc = self.leaf_cells(V, self.precision(v_n))
                wc = self.row_cells(w, qi)
                terms = []
                for k in range(V.shape[0]):
                    term = f"{paren(cell_tex(wc[k]), NEG)} \\cdot {layout([[c.text for c in Vc[k]]])}"
                    terms.append(term if k == 0 else "+ " + term)
                d.add(symbol(name).sub(key).latex() if t.shape[0] > 1 else lhs,
                      "=", w_lhs + " " + F.show(v_n, False).text)
                d.lines("=", terms)
                res, approx = self.result(t, rows=[i], name=name)
                d.cont(rel(approx), res)
            out.append(d.latex())
        return out

    # -- FFN ----------------------------------------------------------------------------
    def _ffn(self, name, t, tree, lhs) -> list[str]:
        from ..ops.ffn import ffn_steps
        F = self.formula
        if len(tree.args) != 5 or tree.kwargs:
            return self._generic(name, t, tree, lhs)
        x_n, w1_n, b1_n, w2_n, b2_n = tree.args
        st = ffn_steps(*(self.value(n) for n in tree.args))
        self._keep.append(st)
        s = [F.show(n, False).text for n in tree.args]
        d = Display().add(lhs, "=", rf"{_op('relu')}\left({s[0]} {s[1]} + {s[2]}\right) {s[3]} + {s[4]}")
        res, approx = self.result(t, name=name)
        d.cont(rel(approx), res)
        out = [d.latex()]
        for i in self.rows_for(name, t):
            key = row_key(t, i) if t.shape[0] > 1 else None
            hsym = r"h" + (f"_{{{key}}}" if key else "")
            rsym = r"r" + (f"_{{{key}}}" if key else "")
            di = Display()
            xr = F.show(x_n, False, i).text
            di.add(hsym, "=", f"{xr} {s[1]} + {s[2]}")
            di.lines("=", row_lines(self._linear_entries(self.value(x_n), self.precision(x_n),
                                                         w1_n, b1_n, i)))
            res, approx = self.result(st["hidden"], rows=[i if t.shape[0] > 1 else 0])
            di.cont(rel(approx), res)
            hc = self.row_cells(st["hidden"], i)
            di.add(rsym, "=", rf"{_op('relu')}\left({hsym}\right)")
            di.lines("=", row_lines([Tex(rf"\max\left(0,\ {c.text}\right)") for c in hc]))
            res, approx = self.result(st["activated"], rows=[i if t.shape[0] > 1 else 0])
            di.cont(rel(approx), res)
            di.add(symbol(name).sub(key).latex() if key else lhs, "=", f"{rsym} {s[3]} + {s[4]}")
            di.lines("=", row_lines(self._linear_entries(st["activated"], self.cur, w2_n, b2_n, i)))
            res, approx = self.result(t, rows=[i], name=name)
            di.cont(rel(approx), res)
            out.append(di.latex())
        return out

    def _linear_entries(self, x_t, x_prec, w_n, b_n, i) -> list[Tex]:
        W = self.value(w_n)
        Wc = self.leaf_cells(W, self.precision(w_n))
        xc = self.row_cells(x_t, i, x_prec)
        b = self.value(b_n)
        bc = self.row_cells(b, i, self.precision(b_n))
        out = []
        for j in range(W.shape[1]):
            terms = [Tex(f"{paren(cell_tex(xc[k]), NEG)} \\cdot {paren(cell_tex(Wc[k][j]), NEG)}",
                         MUL, 2) for k in range(W.shape[0])]
            terms.append(cell_tex(bc[j if len(bc) > 1 else 0]))
            out.append(join_sum(terms))
        return out

    # -- concatenation ----------------------------------------------------------------
    def _concat(self, name, t, tree, lhs) -> list[str]:
        F = self.formula
        d = Display().add(lhs, "=", F.show(tree, False).text)
        blocks, where, col = [], [], 1
        for a in tree.args:
            v = self.value(a)
            cells = texts(self.leaf_cells(v, self.precision(a)))
            sym = F.show(a, False).text
            body = r"\begin{matrix} " + r" \\ ".join(" & ".join(r) for r in cells) + r" \end{matrix}"
            blocks.append(rf"\underbrace{{{body}}}_{{{sym}}}")
            last = col + v.shape[1] - 1
            span = str(col) if last == col else rf"{col}\text{{ to }}{last}"
            where.append(rf"{sym}\colon\ \text{{columns }}{span}")
            col = last + 1
        d.cont("=", r"\left[" + r" \;\middle|\; ".join(blocks) + r"\right]")
        res, approx = self.result(t, name=name)
        d.cont(rel(approx), res)
        d.add("", "", r"\quad\left(" + r",\ ".join(where) + r"\right)")
        return [d.latex()]

    # -- exact closed forms ------------------------------------------------------------
    def _exact(self, name, t, tree, lhs) -> list[str]:
        F = self.formula
        d = Display().add(lhs, "=", F.show(tree, False).text)
        if not _small_closed_form(t, MAX_EXACT_NODES):
            raise LimitError("its closed form would be too large to print",
                             hint="print decimals instead (--digits N, without --exact), or "
                                  "choose smaller steps with --step")
        cells = self.num_exact.cells(t, self.cur)
        closed = layout(texts(cells))
        size = sum(len(c.text) for row in cells for c in row)
        if size > self.cfg.max_exact_chars:
            raise LimitError(f"its closed form has {size} characters of LaTeX, "
                             f"more than {self.cfg.max_exact_chars}",
                             hint="print decimals instead (--digits N, without --exact), or "
                                  "choose smaller steps with --step")
        d.cont("=", closed)
        res, approx = self.result(t, name=name)
        d.cont(rel(approx), res)
        return [d.latex()]


def _by_columns(tree: E.Call) -> bool:
    """softmax(x, axis=0): normalised down the columns (written as the generic step)."""
    from fractions import Fraction
    axis = dict(tree.kwargs).get("axis", tree.args[2] if len(tree.args) > 2 else None)
    if tree.name not in SOFTMAX_CALLS or axis is None:
        return False
    row_axes = (E.Num(Fraction(1)), E.Neg(E.Num(Fraction(1))))
    return axis not in row_axes


def _is_one(t: Tensor) -> bool:
    from fractions import Fraction
    return t.op == "const" and t.shape == (1, 1) and t.params["entries"][0][0] == Fraction(1)


def _unique_printed(recs) -> list:
    seen, out = set(), []
    for r in recs:
        if r.printed not in seen:
            seen.add(r.printed)
            out.append(r)
    return out


def _name_of(node) -> str | None:
    """The spec name a subtree stands for (a name, or an index of one), else None."""
    return node.id if isinstance(node, E.Name) else None
