"""What an article's program says of a printout: the name a print prints, and its words.

One reader for the article check (a printout is named as the program line just above
it names it, or as the ``print(f"…")`` whose words label it) and the inference
(:mod:`symattn.infer.program`, reading the whole program). ``print(out.std())`` prints
``out_std``, as the article check and a spec name it.

>>> import ast
>>> words, node = print_parts(ast.parse('print(f"Mean: {m:.3f}")').body[0].value)
>>> words, printed_name(node)
('Mean: ', 'm')
>>> printed_name(ast.parse("out.std(dim=-1)").body[0].value)
'out_std'
"""

from __future__ import annotations

import ast
import re

FENCE = re.compile(r"^\s*(?:```+|~~~+)[\w+-]*\s*$")
_ASSIGN = re.compile(r"^\s*(?:print\(\s*(?P<p>[A-Za-z_][\w.]*)\s*\)|"
                     r"print\(\s*(?P<of>[A-Za-z_]\w*)\.(?P<m>[A-Za-z_]\w*)\([^()]*\)\s*\)|"
                     r"(?P<a>[A-Za-z_][\w.]*)\s*=(?!=))")
_LABEL_ENDS = ":：="


def method_name(of: str, method: str) -> str:
    """How a method's value is named: ``out.std()`` is ``out_std``."""
    return f"{of}_{method}"


def printed_name(node) -> str:
    """The name of what a print prints: a name (``variance``) or a method of one
    (``out.std()``: ``out_std``); else ``""``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name):
        return method_name(node.func.value.id, node.func.attr)
    return ""


def print_parts(call: ast.Call) -> tuple[str, object]:
    """(the words printed before the value, the value's node or None): ``print(f"Mean:
    {m:.3f}")``, ``print("Mean:", m)``, ``print(m)``; ``print("heading")`` has no value."""
    args = call.args
    if len(args) == 1 and isinstance(args[0], ast.JoinedStr):
        words, values = _first_value(args[0])
        return (words, values[0].value) if len(values) == 1 else (words if not values else "", None)
    if len(args) == 1 and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
        return args[0].value, None
    if len(args) == 2 and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
        return args[0].value, args[1]
    if len(args) == 1:
        return "", args[0]
    return "", None


def _first_value(s: ast.JoinedStr) -> tuple[str, list]:
    """(the f-string's words before its first value, or all its words; its values)."""
    values = [p for p in s.values if isinstance(p, ast.FormattedValue)]
    end = s.values.index(values[0]) if values else len(s.values)
    return "".join(p.value for p in s.values[:end] if isinstance(p, ast.Constant)), values


def assignment_above(lines: dict, line: int, back: int = 3) -> str | None:
    """For a printout that opens its line: the name a program line just above assigns or
    prints (``attn_scores = …``, ``print(keys)``; ``print(out.std())`` prints ``out_std``)."""
    for ln in above(lines, line, back):
        m = _ASSIGN.match(ln.text)
        if m:
            if m.group("of"):
                return method_name(m.group("of"), m.group("m"))
            return (m.group("p") or m.group("a")).removesuffix(".T")
        return None
    return None


def prints_above(lines: dict, line: int, back: int = 40) -> tuple[int, list[str]]:
    """(the last line of the program just above an output at ``line``, the names its
    ``print(…)`` calls print in order, ``""`` for one that prints no name): a cell that
    prints Q, K and V prints three blocks, the k-th print's the k-th. (0, []) when the
    line above is no program."""
    code = []
    for ln in above(lines, line, back):
        if ln.kind == "output" and not code:
            continue                          # the printouts before this one, of the same program
        if ln.kind != "code":
            break
        code.append(ln)
    if not code:
        return 0, []
    try:
        tree = ast.parse("\n".join(ln.text for ln in reversed(code)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return code[0].number, []
    calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                    and n.func.id == "print" and len(n.args) == 1 and not n.keywords),
                   key=lambda n: (n.lineno, n.col_offset))
    return code[0].number, [printed_name(n.args[0]) for n in calls]


def printed_as(lines: dict, label: str) -> str | None:
    """The program name a ``print(f"…")`` of the example prints after ``label`` (an output
    line ``Variance: 0.132`` under ``print(f"Variance: {variance:.3f}")`` prints
    ``variance``; ``{out.std():.4f}`` prints ``out_std``), when one print says so."""
    if not label or len(label) > 80:
        return None
    got = set()
    for ln in lines.values():
        if ln.kind == "code" and "print" in ln.text:
            for s in _fstring_prints(ln.text):
                words, values = _first_value(s)
                words = words.strip()
                if values and words[-1:] in _LABEL_ENDS and words[:-1].strip() == label.strip():
                    got.add(printed_name(values[0].value))
    got.discard("")
    return got.pop() if len(got) == 1 else None


def _fstring_prints(text: str):
    """The f-strings a line of code prints whole (``print(f"…")``)."""
    try:
        tree = ast.parse(text.strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print" \
                and node.args and isinstance(node.args[0], ast.JoinedStr):
            yield node.args[0]


def above(lines: dict, line: int, count: int):
    """The ``count`` non-blank lines above ``line``, nearest first (a notebook's output
    follows its cell's code across a gap in the line numbers; a Markdown output block
    follows its code block across the fences)."""
    k, seen = line - 1, 0
    while seen < count and k > line - 1000:
        ln = lines.get(k)
        k -= 1
        if ln is not None and ln.text.strip() and not FENCE.match(ln.text):
            seen += 1
            yield ln
