"""`symattn new [-o FILE]`: a spec template to start from (a complete small example);
`symattn new --from ARTICLE`: a starting spec with the matrices the article prints as inputs
and the usual attention steps proposed for them (:mod:`symattn.article.starter`)."""

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


def run(args) -> int:
    text = TEMPLATE
    if getattr(args, "article", None):
        from ..article.starter import starter_spec
        text = starter_spec(args.article)
    if args.output:
        from .output import write_output
        write_output(args.output, text, args.force)
        from .output import say
        say(f"wrote {args.output}; next: symattn check {args.output}", prefix="")
    else:
        sys.stdout.write(text)
    return 0
