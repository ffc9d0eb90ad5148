"""LaTeX fragments in arXiv titles and abstracts -> safe HTML or plain Unicode text.

Feed text is untrusted, so nothing from the input may reach the page as markup. Why the
code looks the way it does:

* Math goes through ``latex2mathml.converter.convert_to_element`` and our own serialiser,
  never ``latex2mathml.convert``: that ends with ``unescape(tostring(...))``, which turns
  escaped text back into markup (``$\\text{<script>...}$`` gives a live ``<script>``, ``&``
  comes out bare), and ``\\href``/``\\style``/``\\class`` become attributes. The serialiser
  keeps allow-listed elements/attributes only and escapes all text and values; nh3 then
  re-checks with the same allow-list (cached per formula). nh3's defaults drop ``<math>``
  and its content, hence the explicit MathML lists.
* Math that latex2mathml rejects, or that is empty, huge, or over the per-call budget, is
  shown as its escaped source; an unmatched ``$`` is shown as a literal ``$``.
* Bare braces stay visible: text with no TeX trigger characters takes the fast path (plain
  escaping) and keeps its braces, so the slow path keeps them too, as arXiv's own pages do.
  That also keeps unknown macros exactly as written in the HTML (``\\method``, ``\\cite{x}``).
  Plain text (``tex_to_text``) differs: it must carry no TeX, so there grouping braces go,
  math is read by generator.core.plaintext, and an unknown macro is read as math (its bare name).
  Braces are consumed only as arguments of macros we know, or around ``{\\em ...}``.
* Symbol macros keep the next space (``1.69\\texttimes speedup`` meant "1.69× speedup");
  letter macros eat it (``Stra\\ss e``). ``\\\\`` is a space, not ``<br>`` (titles sit in
  links and headings). ``~`` is a no-break space, but literal after a space or at the start
  ("delivers ~1.20$\\times$" in a real abstract means "about").
* Single quotes are left alone: apostrophes are far more common than `quotes' and ASCII
  keeps search and copy-paste working; only ````...''`` become curly quotes.
* Every loop is linear: braces are matched in one pass, a failed search for a closing math
  delimiter is remembered, nesting deeper than ``_MAX_DEPTH`` becomes literal text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from xml.etree.ElementTree import Element

import nh3
from markupsafe import Markup, escape

from generator.core.latex_tables import (
    ACCENTS as _ACCENTS,
    CONTROL_SYMBOLS as _CONTROL_SYMBOLS,
    DECLARATIONS as _DECLARATIONS,
    LETTERS as _LETTERS,
    MATHML_ATTRS as _MATHML_ATTRS,
    MATHML_TAGS as _MATHML_TAGS,
    REPLACEMENTS as _REPLACEMENTS,
    STYLE_MACROS as _STYLE_MACROS,
    SYMBOLS as _SYMBOLS,
)
from generator.core.plaintext import math_to_text as _math_to_text, strip_commands

_MAX_DEPTH = 16  # nested macro arguments rendered recursively
_MAX_MATH = 1000  # longest formula handed to latex2mathml (arXiv abstracts are <= 1920 chars)
_MATH_BUDGET = 10_000  # formula characters converted per call; the rest shows as source
_CACHE_MAX_LEN = 4096  # whole-string results are cached only for inputs up to this length

_BAD_CHARS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff"
_CONTROL = re.compile(f"[{_BAD_CHARS}]")
_TRIGGER = re.compile(f"[$\\\\~{_BAD_CHARS}]")  # plus "--", "''" and "``", tested with `in`
# Every ASCII character that starts no token and is no control character; the quote and dash
# characters start one only when doubled (`` '' --), so they are looked at apart.
_PLAIN_ASCII = bytes(c for c in range(128) if not _TRIGGER.match(chr(c)) and chr(c) not in "`'-")
_SPACE_RUN = re.compile(r"[ \t\n\r\f\v]+")  # not \s: a ~ must stay a no-break space
_SPACES = re.compile(r"[ \t\r\n]*")
_BRACE = re.compile(r"\\.|[{}]", re.S)
_ENTITY = re.compile(r"&#x([0-9A-Fa-f]{1,6});")

# Every branch starts with a literal, so re can skip plain text with a fast charset scan
# (about 8x faster than named groups); token() dispatches on the matched text instead.
_TOKEN = re.compile(
    r"\$\$?|\\(?:[A-Za-z]+|.)|\{\\(?:" + "|".join(sorted(_DECLARATIONS, key=len, reverse=True))
    + r")(?![A-Za-z])|---?|``|''|~",
    re.S,
)
# Closing delimiter patterns (unrolled loops: fast, and they skip escaped characters).
_CLOSERS = {
    "$": (re.compile(r"[^\\$]*(?:\\.[^\\$]*)*\$", re.S), 1),
    "$$": (re.compile(r"[^\\$]*(?:\\.[^\\$]*)*\$\$", re.S), 2),
    "\\(": (re.compile(r"[^\\]*(?:\\[^)][^\\]*)*\\\)", re.S), 2),
    "\\[": (re.compile(r"[^\\]*(?:\\[^\]][^\\]*)*\\\]", re.S), 2),
}
_ACCENT_BASE = re.compile(r"\\[ij](?![A-Za-z])|[A-Za-z]")
_NAMED_BASE = re.compile(r"[ \t]+(\\[ij](?![A-Za-z])|[A-Za-z])")

_SAFE_VALUE = re.compile(r"[A-Za-z0-9#.%+\- ]{0,64}")

def tex_to_html(text: str) -> Markup:
    """Title/abstract with TeX -> safe HTML (escaped text, <em>/<strong>/<code>, MathML)."""
    if not _has_tex(text):
        return escape(text)
    return _html_cached(text) if len(text) <= _CACHE_MAX_LEN else _render_html(text)


@lru_cache(maxsize=1 << 17)  # one record's title and abstract go to its feed entry, exports and JSON-LD
def tex_to_text(text: str) -> str:
    """Title/abstract with TeX -> plain Unicode text, whitespace collapsed (<title>, feeds, search).

    The result is text, not markup: ``<`` stays ``<`` and the caller (template autoescape,
    XML writer) escapes it. Unlike the HTML, it carries no TeX: math through
    generator.core.plaintext, grouping braces dropped, unknown macros as their bare name.
    """
    if _has_tex(text) or "{" in text or "}" in text:
        text = strip_commands(_Renderer(_CONTROL.sub("", text), html=False).render(0, None, 0))
    if "  " in text or "\n" in text or "\t" in text or "\r" in text or "\f" in text or "\v" in text:
        text = _SPACE_RUN.sub(" ", text)   # (a regex search for them cost 6 us an abstract)
    return text.strip(" \t\n\r\f\v")  # plain strip() would also eat a leading/trailing ~


def _has_tex(text: str) -> bool:
    """False for the common case of plain text, which then only needs escaping: no token of
    ``_TOKEN`` (a lone quote or dash starts none) and no control character. ASCII text (most
    titles and abstracts) is tested in C with ``bytes.translate``, about ten times faster than
    a regex search, which costs 7 us for a 1,100-character abstract."""
    if text.isascii():
        rest = text.encode("ascii").translate(None, _PLAIN_ASCII)   # the characters that may matter
        if not rest:
            return False
        if rest.translate(None, b"`'-"):   # a trigger or a control character
            return True
        return (b"--" in rest and "--" in text) or (b"''" in rest and "''" in text) or (b"``" in rest and "``" in text)
    return "--" in text or "''" in text or "``" in text or _TRIGGER.search(text) is not None


def _render_html(text: str) -> Markup:
    return Markup(_Renderer(_CONTROL.sub("", text), html=True).render(0, None, 0))


# Bounded in entries and entry size, so hostile input cannot grow it past a few tens of MB.
_html_cached = lru_cache(maxsize=4096)(_render_html)


class _Renderer:
    """One pass over one string; holds only per-call memo (brace pairs, failed closer searches)."""

    def __init__(self, text: str, html: bool) -> None:
        self.text = text
        self.html = html
        self.budget = _MATH_BUDGET
        self._pairs: dict[int, int] | None = None
        self._no_closer: dict[tuple[str, int], int] = {}

    def render(self, start: int, end: int | None, depth: int) -> str:
        text, pos = self.text, start
        out: list[str] = []
        end = len(text) if end is None else end
        while pos < end:
            m = _TOKEN.search(text, pos, end)
            if m is None:
                break
            if m.start() > pos:
                out.append(self.source(text[pos : m.start()]))
            pos = self.token(m, end, depth, out)
        if pos < end:
            out.append(self.source(text[pos:end]))
        return "".join(out)

    def plain(self, s: str) -> str:
        return str(escape(s)) if self.html else s

    def source(self, s: str) -> str:
        """Input text between tokens: bare braces stay in HTML, group only in plain text."""
        if self.html:
            return str(escape(s))
        return s.replace("{", "").replace("}", "") if "{" in s or "}" in s else s

    def wrap(self, tags: tuple[str, str], inner: str) -> str:
        return f"{tags[0]}{inner}{tags[1]}" if self.html else inner

    def pairs(self) -> dict[int, int]:
        """Position of each '{' -> its matching '}' (escaped braces skipped), computed once."""
        if self._pairs is None:
            pairs: dict[int, int] = {}
            stack: list[int] = []
            for m in _BRACE.finditer(self.text):
                if m.group() == "{":
                    stack.append(m.start())
                elif m.group() == "}" and stack:
                    pairs[stack.pop()] = m.start()
            self._pairs = pairs
        return self._pairs

    def group_at(self, pos: int, end: int, skip_space: bool = True) -> tuple[int, int] | None:
        """(open, close) of a balanced {...} starting at pos (after optional spaces), within end."""
        if skip_space:
            pos = _SPACES.match(self.text, pos, end).end()
        if pos < end and self.text[pos] == "{":
            close = self.pairs().get(pos)
            if close is not None and close < end:
                return pos, close
        return None

    def token(self, m: re.Match[str], end: int, depth: int, out: list[str]) -> int:
        tok, pos = m.group(), m.end()
        if tok in _CLOSERS:  # $ $$ \( \[
            return self.math(tok, m.start(), pos, end, out)
        if tok[0] == "{":  # {\em ...}
            group = self.group_at(m.start(), end, skip_space=False)
            if group is None or depth >= _MAX_DEPTH:
                out.append(self.plain("{"))
                return m.start() + 1
            inner = self.render(_SPACES.match(self.text, pos, group[1]).end(), group[1], depth + 1)
            out.append(self.wrap(_DECLARATIONS[tok[2:]], inner))
            return group[1] + 1
        if tok[0] == "\\":
            if tok[1].isascii() and tok[1].isalpha():
                return self.word(tok[1:], pos, end, depth, out)
            return self.symbol(tok[1], pos, end, out)
        if tok == "~" and (m.start() == 0 or self.text[m.start() - 1].isspace()):
            tok = "~~"  # " ~1.2x" means "about", not a tie (a tie after a space would be pointless)
        out.append(self.plain(_REPLACEMENTS[tok]))
        return pos

    def word(self, name: str, pos: int, end: int, depth: int, out: list[str]) -> int:
        if name in _STYLE_MACROS and depth < _MAX_DEPTH and (group := self.group_at(pos, end)):
            inner = self.render(group[0] + 1, group[1], depth + 1)
            out.append(self.wrap(_STYLE_MACROS[name], inner))
            return group[1] + 1
        if name in _ACCENTS and (accented := self.accent(name, pos, end)):
            out.append(self.plain(accented[0]))
            return accented[1]
        if name in _SYMBOLS or name in _LETTERS:
            out.append(self.plain(_SYMBOLS[name] if name in _SYMBOLS else _LETTERS[name]))
            if name in _LETTERS:
                pos = _SPACES.match(self.text, pos, end).end()
            return pos + 2 if self.text.startswith("{}", pos) and pos + 2 <= end else pos
        if name in ("url", "path") and (group := self.group_at(pos, end)):
            out.append(self.plain(self.text[group[0] + 1 : group[1]]))  # verbatim, never a link
            return group[1] + 1
        if name == "href" and depth < _MAX_DEPTH and (url := self.group_at(pos, end)):
            if label := self.group_at(url[1] + 1, end):  # the URL is dropped: no links from feeds
                out.append(self.render(label[0] + 1, label[1], depth + 1))
                return label[1] + 1
        if not self.html:  # plain text: read as math (\tilde{O} is Õ, \varepsilon ε, \method method)
            group = self.group_at(pos, end)
            stop = group[1] + 1 if group else pos
            out.append(self.math_text(self.text[pos - len(name) - 1 : stop]))
            return stop
        out.append(self.plain("\\" + name))  # unknown macro: stays visible exactly as written
        return pos

    def symbol(self, char: str, pos: int, end: int, out: list[str]) -> int:
        if char in _ACCENTS and (accented := self.accent(char, pos, end)):
            out.append(self.plain(accented[0]))
            return accented[1]
        out.append(self.plain(_CONTROL_SYMBOLS.get(char, "\\" + char)))
        return pos

    def accent(self, command: str, pos: int, end: int) -> tuple[str, int] | None:
        """Accented character and the position after its argument, or None if malformed."""
        mark, spacing = _ACCENTS[command]
        if group := self.group_at(pos, end, skip_space=False):
            base, after = self.text[group[0] + 1 : group[1]].strip(), group[1] + 1
            if not base and spacing:
                return spacing, after
        elif m := (_NAMED_BASE if command.isalpha() else _ACCENT_BASE).match(self.text, pos, end):
            base, after = m.group(m.lastindex or 0), m.end()
        else:
            return None
        # \i and \j (dotless i/j) exist only to carry accents: \'{\i} is í
        base = {"\\i": "i", "\\j": "j", "ı": "i", "ȷ": "j"}.get(base, base)
        if len(base) != 1 or not base.isalpha():
            return None
        return unicodedata.normalize("NFC", base + mark), after

    def math_text(self, source: str) -> str:
        """Plain text of a formula: parsed while the call's budget lasts, then the cheap reading."""
        parse = len(source) <= self.budget
        self.budget -= len(source) if parse else 0
        return _math_to_text(source, parse)

    def math(self, opener: str, start: int, pos: int, end: int, out: list[str]) -> int:
        closer, close_len = _CLOSERS[opener]
        failed_from = self._no_closer.get((opener, end))
        found = None
        if failed_from is None or pos < failed_from:
            found = closer.match(self.text, pos, end)
            if found is None:  # no closer in [pos, end), so none for any later opener either
                self._no_closer[(opener, end)] = pos
        if found is None:
            out.append(self.plain(opener))
            return pos
        source, stop = self.text[pos : found.end() - close_len], found.end()
        display = opener in ("$$", "\\[")
        if not source.strip():  # an empty formula is not math: show what was typed
            out.append(self.plain(self.text[start:stop]))
            return stop
        if not self.html:
            out.append(f" {self.math_text(source)} " if display else self.math_text(source))
            return stop
        converted = None
        if len(source) <= min(_MAX_MATH, self.budget):
            self.budget -= len(source)
            converted = _math_to_html(source, display)
        out.append(converted if converted is not None else self.plain(self.text[start:stop]))
        return stop


@lru_cache(maxsize=4096)
def _math_to_html(source: str, display: bool) -> str | None:
    """MathML for one formula, or None when latex2mathml fails or emits an unexpected element.
    (latex2mathml is imported here, by the first formula: 20 ms a build that shows none.)"""
    from latex2mathml.converter import convert_to_element

    try:
        body = _serialize(convert_to_element(source, display="block" if display else "inline"))
    except Exception:  # latex2mathml raises many exception types (and RecursionError) on bad input
        return None
    if body is None:
        return None
    return nh3.clean(
        body, tags=set(_MATHML_TAGS), attributes={"*": set(_MATHML_ATTRS)}, link_rel=None
    )


def _serialize(element: Element) -> str | None:
    """Escaping serialiser with the allow-list; None if any element is not allow-listed."""
    if element.tag not in _MATHML_TAGS:
        return None
    attrs = "".join(
        f' {name}="{escape(value)}"'
        for name, value in element.attrib.items()
        if name in _MATHML_ATTRS and _SAFE_VALUE.fullmatch(value)
    )
    parts = [f"<{element.tag}{attrs}>", str(escape(_decode_entities(element.text or "")))]
    for child in element:
        inner = _serialize(child)
        if inner is None:
            return None
        parts += [inner, str(escape(_decode_entities(child.tail or "")))]
    parts.append(f"</{element.tag}>")
    return "".join(parts)


def _decode_entities(text: str) -> str:
    """latex2mathml keeps symbols as literal '&#x...;' strings in text nodes: make characters."""
    return _ENTITY.sub(_entity_char, text) if "&#x" in text else text


def _entity_char(m: re.Match[str]) -> str:
    code = int(m.group(1), 16)
    if code > 0x10FFFF or _CONTROL.match(chr(code)):
        return m.group()
    return chr(code)
