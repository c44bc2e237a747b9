"""``symattn prove [NAME] [--latex] [--json]``: run the SymPy derivations in ``symattn.proofs``.

Every module of ``symattn.proofs`` (the repository's ``proofs/`` directory) that defines
``NAME``, ``STATEMENT``, ``GENERAL``, ``SCOPE`` and ``derive()`` is one identity. ``run``
derives all of them (or the one named), prints each derivation as plain text (or LaTeX
with ``--latex``), or with ``--json`` a list of ``{name, statement, holds, general, scope}``.
Exit status: 0 when every selected identity holds, 1 when one does not, 2 for an unknown
name. The LaTeX fragments need the amsmath and amssymb packages.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import pkgutil
import sys
from pathlib import Path
from types import ModuleType

PACKAGE = "symattn.proofs"
REQUIRED = ("NAME", "STATEMENT", "GENERAL", "SCOPE", "derive")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "name",
        nargs="?",
        metavar="NAME",
        help="the identity to derive (default: all of them)",
    )
    parser.add_argument(
        "--latex", action="store_true", help="print each derivation as LaTeX instead of plain text"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list of {name, statement, holds, general, scope} instead "
        "(wins over --latex)",
    )


def proofs_package() -> ModuleType:
    """``symattn.proofs``; in a source checkout that is not installed, ``proofs/`` next to
    the ``symattn/`` directory is loaded under that name (what pyproject's package-dir does
    for an installed copy)."""
    try:
        return importlib.import_module(PACKAGE)
    except ModuleNotFoundError as exc:
        if exc.name != PACKAGE:
            raise
        missing = exc
    import symattn

    root = Path(symattn.__file__).resolve().parent.parent / "proofs"
    init = root / "__init__.py"
    if not init.is_file():
        raise missing
    spec = importlib.util.spec_from_file_location(
        PACKAGE, init, submodule_search_locations=[str(root)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[PACKAGE]
        raise
    symattn.proofs = module
    return module


def discover() -> dict[str, ModuleType]:
    """The proof modules by ``NAME``, sorted by name."""
    package = proofs_package()
    found: dict[str, ModuleType] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_") or info.ispkg:
            continue
        module = importlib.import_module(f"{PACKAGE}.{info.name}")
        if not all(hasattr(module, attr) for attr in REQUIRED):
            continue
        if module.NAME in found:
            raise RuntimeError(
                f"two proof modules are named {module.NAME!r}: "
                f"{found[module.NAME].__name__} and {module.__name__}"
            )
        found[module.NAME] = module
    return dict(sorted(found.items()))


def _record(module: ModuleType, holds: bool) -> dict:
    return {
        "name": module.NAME,
        "statement": module.STATEMENT,
        "holds": holds,
        "general": bool(module.GENERAL),
        "scope": module.SCOPE,
    }


def run(args) -> int:
    from .. import deadline
    from .output import say, progress
    registry = discover()
    name = getattr(args, "name", None)
    latex = bool(getattr(args, "latex", False))
    as_json = bool(getattr(args, "json", False))
    if name is not None and name not in registry:
        known = ", ".join(registry)
        say(f"no identity named {name!r} (known: {known})", prefix="symattn prove: ")
        return 2
    selected = [registry[name]] if name is not None else list(registry.values())

    records = []
    for k, module in enumerate(selected):
        deadline.check()
        progress(f"proving {k + 1}/{len(selected)} {module.NAME}")
        try:
            derivation = module.derive()
            holds = bool(derivation.holds)
            failure = None if holds else "the derivation did not reach its conclusion"
        except Exception as exc:  # a failing check (ProofError) or SymPy giving up
            derivation, holds = None, False
            failure = f"{type(exc).__name__}: {exc}"
        records.append(_record(module, holds))
        progress("")
        if failure is not None:
            say(f"{module.NAME} does not hold: {failure}", prefix="symattn prove: ")
        if as_json:
            continue
        if derivation is not None:
            print(derivation.latex_text() if latex else derivation.plain_text())
        elif latex:
            print(f"% {module.NAME}: FAILED ({failure})")
        else:
            print(f"== {module.NAME}: {module.STATEMENT}\n   FAILED: {failure}")
        print()

    held = sum(record["holds"] for record in records)
    if as_json:
        print(json.dumps(records, indent=2, ensure_ascii=False))
    else:
        summary = f"{held} of {len(records)} identities hold"
        print(f"% {summary}" if latex else summary)
    return 0 if held == len(records) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="symattn prove", description=__doc__.splitlines()[0])
    configure(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
