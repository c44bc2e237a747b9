"""LaTeX of a step (from :mod:`symattn.render.latex_steps`) as MathML for the browser.

latex2mathml converts each cell; an ``aligned`` environment becomes an ``mtable`` with
right/left columns (latex2mathml does not lay it out). The result is rebuilt from a
whitelist of MathML elements and attributes with every text escaped, so a label such as
``<script>`` stays text whatever the converter passes through.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/1998/Math/MathML}"
TAGS = {"math", "mrow", "mi", "mn", "mo", "mtext", "ms", "mspace", "msub", "msup", "msubsup",
        "mfrac", "msqrt", "mroot", "mstyle", "mtable", "mtr", "mtd", "menclose", "mover",
        "munder", "munderover", "mpadded", "mphantom", "merror", "semantics", "annotation"}
ATTRS = {"display", "mathvariant", "mathcolor", "mathbackground", "notation", "stretchy",
         "fence", "form", "linebreak", "width", "height", "depth", "columnalign",
         "displaystyle", "scriptlevel", "accent", "accentunder", "separator", "lspace",
         "rspace", "columnspacing", "rowspacing", "minsize", "maxsize", "symmetric",
         "movablelimits", "largeop", "linethickness", "encoding", "class"}
_ALIGNED = re.compile(r"\A\s*\\begin\{aligned\}(.*)\\end\{aligned\}\s*\Z", re.S)


def to_mathml(tex: str) -> str:
    """One display (no ``$$``) as a ``<math display="block">`` element, or the LaTeX as
    escaped text in ``<pre>`` when the converter cannot read it."""
    try:
        m = _ALIGNED.match(tex)
        if m:
            table = ET.Element("mtable", {"columnalign": "right left", "displaystyle": "true",
                                          "class": "aligned"})
            for row in split_top(m.group(1), r"\\"):
                tr = ET.SubElement(table, "mtr")
                for cell in split_top(row, "&")[:2]:
                    td = ET.SubElement(tr, "mtd")
                    td.extend(_convert(cell))
            body = [table]
        else:
            body = _convert(tex)
    except Exception:  # noqa: BLE001 - any converter failure: show the source instead
        return f'<pre class="tex">{html.escape(tex)}</pre>'
    root = ET.Element("math", {"display": "block"})
    root.extend(body)
    return serialize(root)


def _convert(tex: str) -> list:
    import latex2mathml.converter
    if not tex.strip():
        return []
    root = ET.fromstring(latex2mathml.converter.convert(tex))
    return list(root)


def split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside braces and nested environments."""
    out, depth, env, start, k = [], 0, 0, 0, 0
    while k < len(text):
        if text.startswith(r"\begin{", k):
            env += 1
        elif text.startswith(r"\end{", k):
            env -= 1
        elif text[k] == "\\" and not text.startswith(sep, k):
            k += 2                                # an escaped character: \{ \& \\
            continue
        elif text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
        if depth == 0 and env == 0 and text.startswith(sep, k):
            out.append(text[start:k])
            k += len(sep)
            start = k
            continue
        k += 1
    out.append(text[start:])
    return [s for s in out if s.strip()] if sep == "\\\\" else out


def serialize(el) -> str:
    """Whitelisted MathML: unknown elements become ``mtext`` of their text, unknown
    attributes are dropped, all text escaped."""
    tag = el.tag.replace(NS, "")
    if tag not in TAGS:
        return f"<mtext>{html.escape(''.join(el.itertext()))}</mtext>"
    attrs = "".join(f' {k}="{html.escape(v)}"' for k, v in sorted(el.attrib.items())
                    if k in ATTRS)
    if tag == "math":
        attrs = ' xmlns="http://www.w3.org/1998/Math/MathML"' + attrs
    inner = html.escape(el.text or "") + "".join(serialize(c) + html.escape(c.tail or "")
                                               for c in el)
    return f"<{tag}{attrs}>{inner}</{tag}>"
