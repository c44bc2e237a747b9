"""`symattn check`'s verdicts for CI: GitHub workflow commands, JUnit XML and SARIF 2.1.0.

Each record is placed where a reviewer can open it: in the article when ``--article``
gave it (its line and column; for a notebook, the line and column of the number inside
the ``.ipynb`` JSON, since that is the file a diff shows), otherwise at the claim's line in
the spec. A wrong number is an error; a carried one a notice (``--format github``) or a
note (SARIF); correct ones are passing test cases (JUnit) and no result (SARIF).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..numbers import shown

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
RULES = {
    "wrong": ("wrong-number", "A printed number is not the value of its step, rounded as printed", "error"),
    "carried": ("carried-number", "A printed number carries the rounding of earlier printed numbers", "note"),
}


@dataclass(frozen=True)
class Place:
    file: str
    line: int
    column: int | None


def places(records: list, articles: list | None) -> dict:
    """id(record) -> :class:`Place` for every record."""
    out = {}
    for path in articles or ():
        mine = [r for r in records if (r.source and Path(r.source).name == Path(path).name)
                or (len(articles) == 1 and not r.source)]
        if mine:
            out.update(_in_article(path, mine))
    return {id(r): out.get(id(r)) or Place(r.spec or r.source, r.spec_line or r.line, None)
            for r in records}


def _in_article(path: str, records: list) -> dict:
    """The places of ``records`` in the article at ``path``: its line and the column of the
    number (a hand-written claim's column found by its value, as ``--fix`` finds it)."""
    from ..article.fix import locate
    from ..article.read import read_article
    by_line: dict = {}
    for ln in read_article(path):
        by_line.setdefault(ln.number, []).append(ln)
    notebook = Path(path).suffix.lower() == ".ipynb"
    out = {}
    for r in records:
        column = r.column
        if column is None:
            found = locate(by_line.get(r.line, []), r, records)
            column = None if isinstance(found, str) else found[1].column
        got = None
        if notebook:
            from ..article.fix_notebook import json_place
            got = json_place(path, r.line, column)
        out[id(r)] = Place(path, *got) if got else Place(path, r.line, column)
    return out


def message(r) -> str:
    """One line: the entry, what is printed, what should be, why."""
    at = f"{r.step}[{', '.join(str(a) for a in r.at)}]"
    text = f"{at} printed {r.printed}"
    if r.verdict == "wrong":
        text += f", expected {r.expected}"
        if r.diagnosis:
            text += ": " + "; ".join(r.diagnosis)
    elif r.verdict == "carried":
        text += f" is carried (exact {r.exact_short})"
        if r.carried_from:
            text += ": from " + "; ".join(r.carried_from)
    return shown(text, 400)


def _escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def github(records: list, articles: list | None) -> str:
    """GitHub Actions workflow commands, one per record that is not correct."""
    out, at = [], places(records, articles)
    for r in records:
        if r.verdict not in RULES:
            continue
        p = at[id(r)]
        kind = "error" if r.verdict == "wrong" else "notice"
        props = f"file={_escape(p.file, True)},line={p.line}"
        if p.column is not None:
            props += f",col={p.column}"
        props += f",title={_escape('symattn: ' + r.verdict + ' number', True)}"
        out.append(f"::{kind} {props}::{_escape(message(r))}")
    return "".join(x + "\n" for x in out)


def junit(records: list, articles: list | None) -> str:
    """JUnit XML: a test suite per example, a test case per printed number."""
    import xml.etree.ElementTree as ET
    suites = ET.Element("testsuites", name="symattn")
    by_example: dict = {}
    at = places(records, articles)
    for r in records:
        by_example.setdefault(r.example, []).append(r)
    for example, rs in by_example.items():
        wrong = sum(r.verdict == "wrong" for r in rs)
        suite = ET.SubElement(suites, "testsuite", name=example, tests=str(len(rs)),
                              failures=str(wrong), errors="0", skipped="0")
        for r in rs:
            p = at[id(r)]
            case = ET.SubElement(suite, "testcase", classname=example,
                                 name=f"{r.step}[{', '.join(str(a) for a in r.at)}] line {r.line}",
                                 file=p.file, line=str(p.line))
            if r.verdict == "wrong":
                ET.SubElement(case, "failure", message=message(r), type="wrong").text = message(r)
            elif r.verdict != "correct":
                ET.SubElement(case, "system-out").text = message(r)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def sarif(records: list, articles: list | None, version: str) -> str:
    """A SARIF 2.1.0 log: one result per wrong (error) or carried (note) number."""
    rules = [{"id": rid, "shortDescription": {"text": text}, "defaultConfiguration": {"level": level}}
             for rid, text, level in RULES.values()]
    index = {v: k for k, v in enumerate(RULES)}
    results, at = [], places(records, articles)
    for r in records:
        if r.verdict not in RULES:
            continue
        p = at[id(r)]
        region = {"startLine": max(p.line, 1)}
        if p.column is not None:
            region["startColumn"] = p.column
        results.append({
            "ruleId": RULES[r.verdict][0], "ruleIndex": index[r.verdict], "level": RULES[r.verdict][2],
            "message": {"text": message(r)},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": Path(p.file).as_posix()},
                                                "region": region}}],
            "properties": {"example": r.example, "step": r.step, "at": list(r.at),
                           "printed": r.printed, "expected": r.expected, "verdict": r.verdict},
        })
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0",
           "runs": [{"tool": {"driver": {"name": "symattn", "version": version,
                                         "rules": rules}},
                     "results": results}]}
    return json.dumps(log, ensure_ascii=False, indent=1) + "\n"
