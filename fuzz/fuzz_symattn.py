"""Coverage-guided fuzzing of symattn's readers of untrusted text, with atheris (libFuzzer).

    python -m pip install atheris
    python fuzz/fuzz_symattn.py TARGET [CORPUS_DIR ...] [libFuzzer options]

TARGET is one of

- ``number``:  parse_exact, parse_number and parse_printed on the input as text;
- ``expr``:    the expression parser, then unparse and parse again;
- ``spec``:    the input as the bytes of a spec file: decoded, read and built (no evaluation);
- ``check``:   as ``spec``, then every claim checked (with a 5 s time limit, like --timeout).

A finding is any exception other than :class:`symattn.errors.SymattnError`, or a message
that is not one line; libFuzzer stops and writes the input to ``crash-*``. Good seeds:
``examples/`` for ``spec`` and ``check``, e.g.

    mkdir -p /tmp/corpus && python fuzz/fuzz_symattn.py spec /tmp/corpus examples -atheris_runs=200000

(libFuzzer writes new inputs into the first folder only.) The property-based tests of
tests/test_fuzz.py cover the same targets without atheris.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["symattn"]):
    from symattn.claims.printed import parse_number, parse_printed
    from symattn.errors import SymattnError
    from symattn.numbers import parse_exact
    from symattn.spec import expr as E
    from symattn.spec.load import decode, load

CHECK_SECONDS = 5


def _clean(f, *args):
    """``f(*args)``, or None after a SymattnError whose message is one line."""
    try:
        return f(*args)
    except SymattnError as e:
        if "\n" in str(e):
            raise AssertionError(f"a message of more than one line: {str(e)!r}") from None
        return None


def _text(data: bytes) -> str:
    return atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(len(data))


def number(data: bytes) -> None:
    text = _text(data)
    _clean(parse_exact, text)
    _clean(parse_number, text)
    _clean(parse_printed, text)


def expr(data: bytes) -> None:
    tree = _clean(E.parse, _text(data))
    if tree is not None:
        u = E.unparse(tree)
        if E.depth(tree) < E.MAX_DEPTH - 2 and len(u) < E.MAX_LENGTH // 2:
            again = E.unparse(E.parse(u))
            if again != u:
                raise AssertionError(f"unparse does not read back: {u!r} -> {again!r}")


def spec(data: bytes):
    text = _clean(decode, data, "fuzz.toml")
    return None if text is None else _clean(load, "fuzz.toml", text)


def check(data: bytes) -> None:
    s = spec(data)
    if s is not None:
        from symattn import deadline
        from symattn.claims.check import check_spec
        try:
            with deadline.limit(CHECK_SECONDS, "check"):     # what `symattn check --timeout` does
                _clean(check_spec, s)
        except deadline.Exceeded:
            pass                           # out of time: no answer, which is allowed


TARGETS = {"number": number, "expr": expr, "spec": spec, "check": check}


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] not in TARGETS:
        sys.exit(f"usage: {argv[0]} {{{'|'.join(TARGETS)}}} [CORPUS_DIR ...] [libFuzzer options]")
    target = TARGETS[argv[1]]

    def one(data: bytes) -> None:
        target(data)
    atheris.Setup([argv[0]] + argv[2:], one)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
