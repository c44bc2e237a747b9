"""`symattn check ARTICLE` with no spec: the example inferred (:mod:`symattn.infer`), then
checked as a spec is. ``-o SPEC.toml`` (without ``--fix``) writes the inferred spec, which
``check SPEC.toml`` reproduces; an article holding several examples writes one file each
(``SPEC.toml``, ``SPEC-ex2.toml``, …)."""

from __future__ import annotations

from pathlib import Path

from ..errors import SpecError


def split(paths: list[str]) -> tuple[list[str], list[str]]:
    """(spec paths, article paths) of the command line."""
    from ..infer import is_article
    specs, articles = [], []
    for p in paths:
        (articles if p != "-" and is_article(p) else specs).append(p)
    return specs, articles


def outputs(target: str, n: int) -> list[str]:
    """The files of ``n`` inferred specs written with ``-o target``: the first example's is
    ``target``, the next ones' ``target-ex2.toml``, …"""
    p = Path(target)
    return [target] + [str(p.with_name(f"{p.stem}-ex{k + 1}{p.suffix or '.toml'}")) for k in range(1, n)]


def inferred_specs(args, articles: list[str], show: bool) -> list:
    """``check``'s specs of the examples of ``articles``, loaded (and written with ``-o``
    when it does not name the fixed article)."""
    if args.article:
        raise SpecError("--article goes with a spec; an article given alone is inferred and checked",
                        where=f"{args.article[0]}:1", hint=f"symattn check {args.article[0]}")
    writing = bool(args.output) and not (args.fix or args.diff)
    specs = infer_specs(articles, args.output if writing else None, args.force, show)
    if writing:
        args.output = None
    return specs


def infer_specs(articles: list[str], write_to: str | None = None, force: bool = False,
                show: bool = False) -> list:
    """The specs of the examples of ``articles`` (files or folders), loaded; with
    ``write_to``, each written there first (:func:`outputs`)."""
    from ..infer import infer
    from ..spec.load import load
    from .output import say, write_output
    folder = str(Path(write_to).resolve().parent) if write_to else None
    skipped: list = []
    found = infer(articles, folder, skipped)
    for e in skipped:                        # the others are checked: a note, not the end
        say(f"{e.where}: {e.message} (not checked)")
    paths = outputs(write_to, len(found)) if write_to else \
        [str(Path(f.folder) / f"{f.id}.inferred.toml") for f in found]
    specs = []
    for f, path in zip(found, paths):
        try:
            spec = load(path, f.text)
        except SpecError as e:               # an inference that contradicts itself: said, and left
            say(f"{f.articles[0]}:1: example {f.id} was inferred inconsistently ({e.message}); "
                "its numbers are not checked")
            continue
        spec = _printed_claims(spec, f)
        if write_to:
            write_output(path, f.text, force)
            if show:
                say(f"wrote {path} (the inferred spec of {Path(f.articles[0]).name}); "
                    f"next: symattn check {path}", prefix="")
        spec.inferred = True
        specs.append(spec)
    return specs


def _printed_claims(spec, f):
    """``spec`` without the claims its article does not print where they say (an inference
    that misread a number: each said, none checked)."""
    from dataclasses import replace

    from ..article.check import unprinted
    from ..article.read import read_article
    from .output import say
    if len(spec.sources) != 1:
        return spec
    bad = unprinted(spec, read_article(f.articles[0]))
    for c in bad:
        say(f"{f.articles[0]}:{c.line}: example {f.id} was inferred to claim {c.printed[:60]!r} "
            "there, which the line does not print; that claim is not checked")
    return replace(spec, claims=[c for c in spec.claims if c not in bad]) if bad else spec


def article_files(specs: list) -> list[str]:
    """The article files the specs' sources name (relative to each spec), each once."""
    return list(dict.fromkeys(str(Path(s.path).parent / src) for s in specs for src in s.sources))


def derivations(specs: list) -> list[dict]:
    """What each inferred example was checked against: its inputs and its steps (name,
    expression, article line), for the JSON report."""
    return [{"example": s.id, "source": list(s.sources), "lines": s.lines and [list(r) for r in s.lines],
             "inputs": list(s.inputs),
             "steps": [{"name": st.name, "expr": st.expr_text, "line": st.article_line} for st in s.steps]}
            for s in specs if s.inferred]


def describe(specs: list) -> str:
    """The derivations in the terminal report: one line per computed block."""
    out = []
    for d in derivations(specs):
        out.append(f"\nInferred {d['example']}: inputs {', '.join(d['inputs']) or 'none'}; computed:")
        out += [f"  line {st['line']:<5} {st['name']} = {st['expr']}" if st["line"] is not None
                else f"  {'(no block)':<10} {st['name']} = {st['expr']}" for st in d["steps"]]
    return "\n".join(out) + "\n" if out else ""
