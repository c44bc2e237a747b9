"""`symattn scan SPEC --article FILE -o OUT.toml`: the spec with the claims found in the
article written out as ``[[claims]]``, for a user to review and keep."""

from __future__ import annotations

import re


def configure(p):
    p.add_argument("spec", metavar="SPEC", help="the spec (inputs and steps; claims optional)")
    p.add_argument("--article", action="append", required=True, metavar="FILE",
                   help="the article the example comes from (repeat for several)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.toml", help="where to write")
    p.add_argument("--force", action="store_true", help="overwrite OUT.toml if it exists")


def run(args) -> int:
    from ..article.check import check_articles, read
    from ..spec.load import load, read_text
    from .output import write_output, say
    spec = load(args.spec)
    result = check_articles([spec], read(args.article), diagnose=False)
    found = [r for r in result.records if r.found]
    text = _appendable(read_text(args.spec), args.spec).rstrip("\n") + "\n" + claims_toml(spec, found)
    load(args.output, text)                 # what is written is a spec that check reads
    write_output(args.output, text, force=args.force)
    say(f"{len(found)} printed numbers found and written as claims to {args.output}; "
        f"{len(result.unmatched)} left unmatched", prefix="")
    return 0


_EMPTY_CLAIMS = re.compile(r"^[ \t]*claims[ \t]*=[ \t]*\[[ \t]*\][ \t]*(#.*)?$", re.M)


def _appendable(text: str, path: str) -> str:
    """The spec's text, to which ``[[claims]]`` tables can be added: a ``claims = []``
    line becomes a comment; claims written as an inline array are refused."""
    import tomllib
    from ..errors import SpecError
    from ..spec.toml_lines import table_lines
    if "claims" not in tomllib.loads(text) or table_lines(text, "claims"):
        return text
    m = _EMPTY_CLAIMS.search(text)
    if m is None:
        line = next((k for k, s in enumerate(text.splitlines(), 1) if s.lstrip().startswith("claims")), 1)
        raise SpecError("the claims are an inline array (claims = [...]); write them as "
                        "[[claims]] tables so that scan can add the found ones", where=f"{path}:{line}")
    return text[:m.start()] + "# claims = []   (the found claims follow as [[claims]] tables)" + text[m.end():]


def claims_toml(spec, records) -> str:
    """``[[claims]]`` tables, one per found number, in article order."""
    out = ["", "# ---- claims found in the article by `symattn scan` (review them) ----"]
    t = spec.tensors
    for r in sorted(records, key=lambda r: (r.line, r.column or 0)):
        at = [_index(t[r.step].rows, r.at[0]), _index(t[r.step].cols, r.at[1])]
        out += ["", "[[claims]]", f"step = {_s(r.step)}", f"at = [{_v(at[0])}, {_v(at[1])}]",
                f"printed = {_s(r.printed)}", f"line = {r.line}"]
    return "\n".join(out) + "\n"


def _index(labels, label: str):
    if labels and list(labels).count(label) == 1:
        return label
    return int(label) if not labels else list(labels).index(label)


def _s(text: str) -> str:
    from ..spec.toml_lines import toml_string
    return toml_string(text)


def _v(x) -> str:
    return str(x) if isinstance(x, int) else _s(x)
