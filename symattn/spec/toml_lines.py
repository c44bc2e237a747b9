"""Where things are in a TOML text: the lines of tables, keys and nesting, so that every
error names its line (tomllib gives values, not positions)."""

from __future__ import annotations

import bisect
import re
import tomllib

from ..numbers import MAX_DIGITS


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string that tomllib reads back as ``text``: printable
    characters as they are (猫, 😀, 𝑍: never as a surrogate pair, which TOML refuses),
    quotes and backslashes escaped, every other character (controls, DEL) as ``\\uXXXX``."""
    return '"' + "".join(_escaped(c) for c in str(text)) + '"'


def _escaped(c: str) -> str:
    if c in '"\\':
        return "\\" + c
    if "\ud800" <= c <= "\udfff":               # half of a pair: no Unicode text
        return "\\ufffd"
    if c.isprintable():
        return c
    return f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"


def toml_key(name: str) -> str:
    """A bare TOML key when it is one (ASCII letters, digits, ``_``, ``-``), else a quoted
    one (``"W_猫"``)."""
    if re.fullmatch(r"[A-Za-z0-9_-]+", name):
        return name
    return toml_string(name)


def table_lines(text: str, name: str) -> list[int]:
    pat = re.compile(r"^\s*\[\[\s*" + re.escape(name) + r"\s*\]\]", re.M)
    lines, strings = Lines(text), MultilineStrings.of(text)
    return [lines.line(m.end()) for m in pat.finditer(text) if not strings.inside(m.end())]


class MultilineStrings:
    """The spans of a text's multi-line strings (\"\"\"…\"\"\" and '''…'''), found in one
    scan that skips comments and one-line strings: a header or a key written inside one is
    text, not TOML, and must not move the lines of the real ones."""

    _last: tuple = (None, None)

    def __init__(self, text: str):
        self.starts, self.ends = [], []
        for m in TOML_SCAN.finditer(text):
            if m.group().startswith(('"""', "'''")):
                self.starts.append(m.start())
                self.ends.append(m.end())

    @classmethod
    def of(cls, text: str) -> "MultilineStrings":
        if cls._last[0] is not text:
            cls._last = (text, cls(text))
        return cls._last[1]

    def inside(self, pos: int) -> bool:
        k = bisect.bisect_right(self.starts, pos) - 1
        return k >= 0 and pos < self.ends[k]


_KEY = re.compile(r"""^[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([A-Za-z0-9_-]+))[ \t]*[=.]""", re.M)


def key_lines(text: str, start: int = 0) -> dict[str, int]:
    """The line of each key written at the start of a line, from ``start`` on (first one wins)."""
    out: dict[str, int] = {}
    lines, strings = Lines(text), MultilineStrings.of(text)
    for m in _KEY.finditer(text, start):
        if strings.inside(m.start()):
            continue
        key = next(g for g in m.groups() if g is not None)
        if m.group(1) is not None and "\\" in key:         # "a\nb": TOML says what it means
            try:
                key = tomllib.loads(f'k = "{key}"')["k"]
            except tomllib.TOMLDecodeError:
                continue
        out.setdefault(key, lines.line(m.start()))
    return out


class Lines:
    """Line numbers of positions in a text (1-based), by bisection."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos)


class Where:
    """``path:line`` of the top-level tables and keys of a spec (line 1 if not found)."""

    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self._keys: dict | None = None

    def header(self, name: str):
        pat = re.compile(r"^[ \t]*\[\[?[ \t]*[\"']?" + re.escape(name) + r"[\"']?[ \t]*\]", re.M)
        strings = MultilineStrings.of(self.text)
        return next((m for m in pat.finditer(self.text) if not strings.inside(m.start())), None)

    def line(self, name: str) -> int:
        m = self.header(name)
        if m:
            return self.text.count("\n", 0, m.start()) + 1
        if self._keys is None:
            self._keys = key_lines(self.text)
        return self._keys.get(name, 1)

    def of(self, *names) -> str:
        """The location of the first of ``names`` that is not a known top-level name."""
        known = {"example", "inputs", "steps", "claims"}
        name = next((n for n in names if n not in known), names[0] if names else "")
        return f"{self.path}:{self.line(name)}"


TOML_SCAN = re.compile(                       # strings, comments and brackets of TOML
    r'"""(?:[^\\]|\\.)*?"""' r"|'''.*?'''" r'|"(?:[^"\\\n]|\\.)*"' r"|'[^'\n]*'" r"|#[^\n]*|[\[\]{}]",
    re.S)


def deepest_line(text: str) -> int:
    """The line where arrays and inline tables are nested deepest (strings and comments skipped)."""
    depth = best = best_pos = 0
    for m in TOML_SCAN.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > best:
                best, best_pos = depth, m.start()
        elif c in "]}":
            depth -= 1
    return text.count("\n", 0, best_pos) + 1


def long_number_line(text: str) -> int | None:
    m = re.search(r"[0-9](?:_?[0-9]){%d,}" % MAX_DIGITS, text)
    return text.count("\n", 0, m.start()) + 1 if m else None
