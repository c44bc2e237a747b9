"""Which articles `symattn check` reads, and the rule that a check which checked nothing
is an error, not an all-clear.

- ``check SPEC`` reads the article(s) the spec's ``source`` names (paths relative to the
  spec's folder) when no ``--article`` is given. A source that cannot be read is skipped
  for a spec with hand-written claims (they are checked: the bundled corpus, installed
  without its articles) and an error naming the file for a spec without claims.
- ``--article FILE`` that no given spec's ``source`` names is an error (it would not be
  read); two paths to one file are one article.
- Exit 0 means every printed number was checked and is right: a spec of which no number
  was checked (no claims, none found in its article) is an error saying what to do.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import SpecError

from ..article.read import READERS as ARTICLE_SUFFIXES   # the suffixes an article is read by


def not_an_article(path: Path) -> None:
    """An article given where a spec is expected: say how an article is checked."""
    if Path(path).suffix.lower() in ARTICLE_SUFFIXES:
        raise SpecError("is an article, not a spec", where=f"{path}:1",
                        hint=f"check it with the spec of its example: symattn check SPEC "
                             f"--article {path}, or start one: symattn new --from {path} -o SPEC.toml")


def articles_to_read(specs: list, given: list | None) -> list[str]:
    """The article files to read: those given (each named by some spec), else those the
    specs' sources name that are there."""
    if given:
        from ..article.check import unnamed
        stray = unnamed(specs, given)
        if stray:
            names = sorted({s for spec in specs for s in spec.sources}) or ["none"]
            raise SpecError("no spec given names this article in its source, so nothing in it "
                            f"would be checked (sources: {', '.join(names)[:200]})",
                            where=f"{stray[0]}:1", hint="give the spec of its example, or add the file "
                            "to that spec's source")
        return list(given)
    out = []
    for spec in specs:
        for source in spec.sources:
            path = Path(spec.path).parent / source
            if path.is_file():
                out += [str(path)] if str(path) not in out else []   # one article, several examples
            elif not spec.claims:
                raise SpecError(f"the source '{source}' cannot be read ({'not a file' if path.exists() else 'no such file'}), "
                                "and the spec has no claims: nothing would be checked",
                                where=_example_line(spec),
                                hint="correct source, or pass the article with --article FILE")
    return out


def _example_line(spec) -> str:
    """``spec.toml:N``, N the line of its ``[example]`` table (where ``source`` is)."""
    from ..spec.toml_lines import Where
    try:
        text = Path(spec.path).read_text(encoding="utf-8", errors="replace")
    except OSError:                          # an inferred spec, not written to a file
        return spec.where(1)
    return spec.where(Where(spec.path, text).line("example"))


def checked_something(specs: list, records: list, articles: list, unverified: list = ()) -> None:
    """A spec of which no printed number was checked ends the command (exit 2), unless its
    article has numbers listed as unverified (the report says so; it is no all-clear)."""
    from ..article.check import article_name
    seen = {r.example for r in records}
    listed = {article_name(u.where) for u in unverified}
    for spec in specs:
        names = {article_name(s) for s in spec.sources or articles}
        if spec.id not in seen and not listed & names:
            where = (f"none was found in {', '.join(Path(a).name for a in articles)[:120]}"
                     if articles else "no article was read")
            raise SpecError(f"example '{spec.id}': no printed number was checked (it has no "
                            f"claims, and {where})", where=_example_line(spec),
                            hint="write [[claims]], or pass the article it is printed in: "
                                 f"symattn check {spec.path} --article ARTICLE")
