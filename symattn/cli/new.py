"""`symattn new [-o FILE]`: a spec template to start from (a complete small example);
`symattn new --from ARTICLE`: the spec inferred from the article (as `check ARTICLE` infers
it), or, when nothing printed is computed from the rest, a starting spec with the matrices
the article prints as inputs and the usual attention steps proposed for them
(:mod:`symattn.article.starter`)."""

from __future__ import annotations

import sys

TEMPLATE = '''\
# A symattn spec: one worked example. Format: docs/spec-format.md
[example]
id = "my-example"
title = "Self-attention for the token love"
source = "my-article.md"          # where the numbers were printed
rounding = "half-up"              # half-up | half-even | truncate
tokens = ["I", "love"]

[inputs]                          # what the author stipulates (exact decimals)
X = { value = [[1.0, 0.5], [0.8, 1.2]], rows = "tokens" }
W_Q = [[1.0, 0.2], [0.1, 0.9]]
W_K = [[0.6, 0.1], [-0.3, 1.0]]
W_V = [[1.2, 0.0], [-0.2, 0.8]]

[[steps]]                         # what the author computes
name = "Q"
expr = "X @ W_Q"

[[steps]]
name = "K"
expr = "X @ W_K"

[[steps]]
name = "V"
expr = "X @ W_V"

[[steps]]
name = "A"
expr = "softmax(Q @ K.T / sqrt(2))"

[[steps]]
name = "Z"
expr = "A @ V"

[[claims]]                        # what the author prints, and where
step = "Q"
at = "love"
printed = "[0.92, 1.24]"
line = 1
'''


def configure(p):
    p.add_argument("-o", "--output", metavar="FILE", help="write the template to FILE (default: stdout)")
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    p.add_argument("--from", dest="article", metavar="ARTICLE",
                   help="start from the matrices an article prints (.md, .tex, .txt, .html, .ipynb)")


def proposed(article: str, output: str | None) -> list[str]:
    """The spec texts ``new --from`` proposes: the examples inferred from the article
    (:mod:`symattn.infer`, as ``check ARTICLE`` infers them), or, when no printed block is
    computed from others, the starting spec of its printed matrices and the usual
    attention steps (:mod:`symattn.article.starter`)."""
    from ..errors import SpecError
    from ..infer import infer
    from pathlib import Path
    from ..article.starter import starter_spec
    try:
        found = infer([article], str(Path(output).resolve().parent) if output else None)
    except SpecError as e:
        if "no worked example found" not in str(e):
            raise
        return [starter_spec(article)]
    usual = starter_spec(article)
    return [f.text + _not_printed(f.text, usual) if k == 0 else f.text for k, f in enumerate(found)]


def _renamed(tree, names: dict):
    """``tree`` with the names of ``names`` replaced (a spec-language tree)."""
    import dataclasses
    from ..spec import expr as E
    if isinstance(tree, E.Name):
        return E.Name(names.get(tree.id, tree.id))
    if not dataclasses.is_dataclass(tree):
        return tree
    changes = {}
    for f in dataclasses.fields(tree):
        v = getattr(tree, f.name)
        if isinstance(v, tuple):
            changes[f.name] = tuple(_renamed(x, names) if dataclasses.is_dataclass(x) else
                                    (x[0], _renamed(x[1], names)) if isinstance(x, tuple) else x for x in v)
        elif dataclasses.is_dataclass(v):
            changes[f.name] = _renamed(v, names)
    return dataclasses.replace(tree, **changes)


def _not_printed(inferred: str, usual: str) -> str:
    """The usual attention steps of the starting spec that the inferred one lacks (the
    article prints no block of them), as comments over the inferred spec's names."""
    import tomllib
    from ..spec import expr as E
    have = tomllib.loads(inferred)
    names = set(have.get("inputs", {})) | {s["name"] for s in have.get("steps", [])}
    same = {E.unparse(E.parse(s["expr"])): s["name"] for s in have.get("steps", [])}
    renamed: dict = {}
    out = []
    for step in tomllib.loads(usual).get("steps", []):
        tree = _renamed(E.parse(step["expr"]), renamed)
        expr = step["expr"] if not E.names(E.parse(step["expr"])) & set(renamed) else E.unparse(tree)
        if E.unparse(tree) in same:              # the inferred spec computes it already
            if same[E.unparse(tree)] != step["name"]:
                renamed[step["name"]] = same[E.unparse(tree)]
        elif step["name"] not in names and E.names(tree) <= names:
            out += ["", "# [[steps]]", f'# name = "{step["name"]}"', f'# expr = "{expr}"']
            names.add(step["name"])
    if not out:
        return ""
    return ("\n# The usual next steps, which the article prints no block of: remove the # to "
            "check its numbers against them\n" + "\n".join(out[1:]) + "\n")


def run(args) -> int:
    texts = [TEMPLATE]
    if getattr(args, "article", None):
        texts = proposed(args.article, args.output)
    if args.output:
        from .inferred import outputs
        from .output import say, write_output
        for path, text in zip(outputs(args.output, len(texts)), texts):
            write_output(path, text, args.force)
            say(f"wrote {path}; next: symattn check {path}", prefix="")
    else:
        sys.stdout.write(texts[0])
        if len(texts) > 1:
            from .output import say
            say(f"the article holds {len(texts)} examples; this is the first: write all with -o FILE",
                prefix="")
    return 0
