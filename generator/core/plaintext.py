"""TeX math -> plain Unicode text, and the last pass that keeps plain text free of TeX commands.

The plain-text outputs (feed titles and summaries, CSL title and abstract, JSON-LD names, search
documents) go through ``latex.tex_to_text``; this module is its math and its guarantee. Why:

* A formula is parsed by latex2mathml, the parser the HTML already uses, and its MathML tree is
  read back as text: it knows hundreds of commands and environments, so ``\\frac{a}{b}`` is
  ``a/b``, ``\\tilde{O}`` is ``Õ``, ``\\mathbb R`` is ``ℝ``, ``\\sqrt{x}`` is ``√x``, a matrix is
  ``(a b; c d)``. A second, regex-based TeX reader would disagree with the page.
* Scripts become Unicode super/subscripts where every character has one (``ε⁻²``), else
  ``^(...)``/``_(...)``; accents over one letter become a combining mark composed with it.
* Spacing: relations get a space on each side and function names (``log``, ``Tr``) one against
  a neighbouring letter or digit, since the tree has lost the source's spaces.
* When latex2mathml refuses a formula (or it is over ``_MAX_MATH``), the source is read with a
  cheap fallback: known symbols to Unicode, command names without their backslash, braces gone.
* ``strip_commands`` is the last step of every plain rendering: whatever survived as
  ``\\name`` (an unknown macro such as ``\\method``) loses its backslash, so no plain output
  ever carries a TeX command, and a reader sees the word.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache
from xml.etree.ElementTree import Element


from generator.core.latex_tables import MATH_SYMBOLS

# Every character Unicode has a super/subscript form of (q and most capitals have none).
SUPERSCRIPT = str.maketrans("0123456789+-=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVW",
                            "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ")
SUBSCRIPT = str.maketrans("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")

_MAX_MATH = 1000  # longest formula parsed; longer ones take the fallback
_MAX_DEPTH = 64   # deeper MathML trees are read with the fallback too
_COMMAND = re.compile(r"\\+([A-Za-z]+)")
_FALLBACK_TOKEN = re.compile(r"\\([A-Za-z]+)|\\(.)|[{}]", re.S)
_SPACE_RUN = re.compile(r" {2,}")

# Accent marks latex2mathml puts over a base (mover) -> the combining character.
_COMBINING = {
    "~": "\u0303", "^": "\u0302", "¯": "\u0304", "‾": "\u0305", "―": "\u0305", "→": "\u20d7",
    "˙": "\u0307", "¨": "\u0308", "ˇ": "\u030c", "´": "\u0301", "`": "\u0300", "˘": "\u0306",
    "˚": "\u030a", "⃗": "\u20d7",
}
_RELATIONS = frozenset("=≠<>≤≥≪≫≈∼≃≅≡∝→←↔⇒⇐⇔↦∈∉∋⊂⊆⊃⊇≲≳≺≻⪯⪰⊥∣∥:=")


def strip_commands(text: str) -> str:
    """``text`` without any ``\\name``: the backslash goes, the name stays readable."""
    return _COMMAND.sub(r"\1", text) if "\\" in text else text


def math_to_text(source: str, parse: bool = True) -> str:
    """One formula's source (without its delimiters) as plain Unicode text; ``parse=False``
    takes the cheap reading (the caller's budget for parsing is spent)."""
    if len(source) > _MAX_MATH:  # never parsed, and not cached: hostile input cannot fill the cache
        return _tidy(_fallback(source))
    return _math_cached(source, parse)


@lru_cache(maxsize=4096)
def _math_cached(source: str, parse: bool) -> str:
    if parse:
        from latex2mathml.converter import convert_to_element   # (by the first formula, as generator.core.latex)

        try:
            return _tidy(_node(convert_to_element(source), 0))
        except Exception:  # latex2mathml raises many exception types (and RecursionError) on bad input
            pass
    return _tidy(_fallback(source))


def _tidy(text: str) -> str:
    return _SPACE_RUN.sub(" ", strip_commands(text)).strip()


def _fallback(source: str) -> str:
    def token(m: re.Match[str]) -> str:
        word, char = m.group(1), m.group(2)
        if word is not None:
            return MATH_SYMBOLS.get(word, word)
        return char if char is not None else ""

    return _FALLBACK_TOKEN.sub(token, source)


def _text(e: Element) -> str:
    return html.unescape(e.text or "")


def _node(e: Element, depth: int) -> str:
    """The text of one MathML element (its tail is the caller's)."""
    if depth > _MAX_DEPTH:
        raise RecursionError("formula nested too deeply")
    tag, kids = e.tag, list(e)
    if tag in ("mi", "mn", "mo", "mtext", "ms") and not kids:
        return _leaf(e)
    if tag == "mphantom":
        return ""
    if tag == "mspace":
        return "" if e.get("width", "").startswith("negative") else " "
    if tag in ("msup", "msub", "msubsup", "munder", "mover", "munderover") and len(kids) >= 2:
        return _scripted(tag, [_node(k, depth + 1) for k in kids], kids)
    if tag in ("mfrac", "mroot") and len(kids) == 2:
        a, b = (_node(k, depth + 1) for k in kids)
        if tag == "mroot":
            return _script(b, SUPERSCRIPT, "") + "√" + _group(a)
        return f"{a} {b}" if e.get("linethickness") == "0" else f"{_group(a)}/{_group(b)}"
    inner = [_node(k, depth + 1) for k in kids]
    if tag == "msqrt":
        return "√" + _group("".join(inner))
    if tag == "mtable":
        return "; ".join(inner)
    if tag == "mtr":
        return " ".join(inner)
    return _row(inner, kids) if inner else _text(e)


def _leaf(e: Element) -> str:
    text = _text(e)
    if e.tag == "mtext":
        text = text.replace("\u00a0", " ")  # latex2mathml keeps \text{a b}'s spaces as no-break ones
    if text.startswith("\\"):  # a command latex2mathml does not know (\method): its name
        return text.lstrip("\\")
    if e.get("mathvariant") == "double-struck" and len(text) == 1:
        return _double_struck(text)
    return text


def _double_struck(c: str) -> str:
    for name in (f"DOUBLE-STRUCK CAPITAL {c}", f"MATHEMATICAL DOUBLE-STRUCK CAPITAL {c}",
                 f"MATHEMATICAL DOUBLE-STRUCK SMALL {c.upper()}" if c.islower() else ""):
        try:
            return unicodedata.lookup(name) if name else c
        except KeyError:
            continue
    return c


def _row(parts: list[str], kids: list[Element]) -> str:
    """Children of a row joined, with spaces around relations and around function names."""
    out: list[str] = []
    for i, (text, kid) in enumerate(zip(parts, kids)):
        spaced = (kid.tag == "mo" and text in _RELATIONS and 0 < i < len(parts) - 1) or (
            kid.tag in ("mi", "mo") and len(text) > 1 and text.isalpha())
        if spaced and out and out[-1] and out[-1][-1].isalnum():
            out.append(" ")
        out.append(text)
        if spaced and i + 1 < len(parts) and parts[i + 1][:1].isalnum():
            out.append(" ")
        elif spaced and kid.tag == "mo" and text in _RELATIONS or kid.tag == "mo" and text in ",;" and i + 1 < len(parts):
            out.append(" ")
    return "".join(out)


def _scripted(tag: str, parts: list[str], kids: list[Element]) -> str:
    base = parts[0]
    if tag == "mover" and kids[1].tag == "mo" and parts[1] in _COMBINING:
        return _accent(base, _COMBINING[parts[1]])
    if tag == "munder" and parts[1] in ("⏟", "_", "‾", "―"):
        return base  # \underbrace, \underline: the mark carries no words
    if tag in ("msub", "munder"):
        return base + _script(parts[1], SUBSCRIPT, "_")
    if tag in ("msup", "mover"):
        return base + _script(parts[1], SUPERSCRIPT, "^")
    return base + _script(parts[1], SUBSCRIPT, "_") + _script(parts[2], SUPERSCRIPT, "^")


def _accent(base: str, mark: str) -> str:
    if len(base) == 1:
        return unicodedata.normalize("NFC", base + mark)
    if mark in ("\u0304", "\u0305") and base.isalnum():  # \bar{AB}, \overline{AB}: over each
        return "".join(c + mark for c in base)
    return base + mark


def _script(text: str, table: dict[int, str], marker: str) -> str:
    if not text:
        return ""
    converted = text.replace("−", "-").translate(table)
    if all(c != d for c, d in zip(text.replace("−", "-"), converted)):
        return converted
    return marker + _group(text)


def _group(text: str) -> str:
    """``text`` as one unit next to an operator: in parentheses unless one symbol, a number, or
    already fenced by one pair of brackets."""
    if len(text) <= 1 or text.replace(".", "").isdigit():
        return text
    if text[0] in "([{⟨" and _closes(text):
        return text
    return f"({text})"


def _closes(text: str) -> bool:
    """True if the bracket opening ``text`` is the one closing it (``(a)(b)`` is not one group)."""
    depth = 0
    for i, c in enumerate(text):
        depth += c in "([{⟨"
        depth -= c in ")]}⟩"
        if depth <= 0:
            return i == len(text) - 1
    return False
