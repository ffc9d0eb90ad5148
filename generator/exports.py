"""Machine-readable exports: an author's records as BibTeX and CSL-JSON, and the authors' index.

Pure functions from the model to bytes. BibTeX keeps titles' TeX (its readers are
LaTeX) but balances braces, since one stray ``{`` from a feed would swallow the rest
of the file; CSL-JSON carries plain Unicode text.

BibTeX is formatted here rather than with bibtexparser's writer: its
``write_string`` deep-copies every entry (1.3 s of a 2 s render at 100 x 50 in the
benchmark), and the format is one ``key = {value}`` line per field. bibtexparser
stays the oracle: the tests parse every file back with it. JSON is written without
indentation so the C encoder is used (``indent`` forces the pure-Python one).
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from generator.latex import tex_to_text
from generator.model import Author, Record, SiteModel
from generator.routes import Urls


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_NOT_ASCII_WORD = re.compile(r"[^a-z0-9]")


def _balanced(text: str) -> str:
    """Escape every brace if the braces of ``text`` do not balance; drop control characters."""
    text = _CONTROL.sub("", text)
    if "{" not in text and "}" not in text:
        return text
    depth = 0
    for c in text:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                break
    if depth != 0:
        text = re.sub(r"(?<!\\)([{}])", r"\\\1", text)
    return text


def _ascii_word(text: str) -> str:
    if text.isascii():
        return _NOT_ASCII_WORD.sub("", text.lower())
    text = unicodedata.normalize("NFKD", text)
    return _NOT_ASCII_WORD.sub("", "".join(c for c in text if not unicodedata.combining(c)).lower())


def bibtex_key(r: Record, author: Author) -> str:
    first = r.authors[0].name.split()[-1] if r.authors and r.authors[0].name.split() else author.name.split()[-1]
    word = next((w for w in (_ascii_word(t) for t in tex_to_text(r.title).split()) if len(w) > 3), "record")
    return f"{_ascii_word(first) or 'anon'}{r.year or ''}{word}"


def to_bibtex(author: Author) -> bytes:
    entries = []
    seen: dict[str, int] = {}
    for r in author.records:
        key = bibtex_key(r, author)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key = f"{key}{chr(ord('a') + seen[key] - 2)}" if seen[key] < 28 else f"{key}{seen[key]}"
        fields = [("title", "{" + _balanced(r.title) + "}")]
        if r.authors:
            fields.append(("author", " and ".join(_balanced(p.name) for p in r.authors)))
        if r.year:
            fields.append(("year", str(r.year)))
        if r.journal_ref:
            fields.append(("journal", _balanced(r.journal_ref)))
        if r.arxiv_id:
            fields += [("eprint", r.arxiv_id), ("archivePrefix", "arXiv")]
            if r.primary_subject:
                fields.append(("primaryClass", r.primary_subject))
        if r.doi:
            fields.append(("doi", _balanced(r.doi)))
        fields.append(("url", _balanced(r.link)))
        if r.abstract:
            fields.append(("abstract", _balanced(r.abstract)))
        if r.comment:
            fields.append(("note", _balanced(r.comment)))
        kind = "article" if r.journal_ref or r.doi else "misc"
        body = ",\n".join(f"\t{name} = {{{value}}}" for name, value in fields)
        entries.append(f"@{kind}{{{key},\n{body}\n}}\n")
    return "\n".join(entries).encode("utf-8")


def _csl_name(name: str) -> dict[str, str]:
    parts = name.split()
    if len(parts) >= 2:
        return {"family": parts[-1], "given": " ".join(parts[:-1])}
    return {"literal": name}


def _date_parts(r: Record) -> list[list[int]]:
    if r.published:
        y, m, d = (int(x) for x in r.published[:10].split("-"))
        return [[y, m, d]]
    return [[r.year]] if r.year else []


def csl_item(r: Record) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": r.arxiv_id or r.doi or r.key,
        "type": "article-journal" if r.journal_ref else "article",
        "title": tex_to_text(r.title),
        "URL": r.link,
    }
    if r.authors:
        item["author"] = [_csl_name(p.name) for p in r.authors]
    parts = _date_parts(r)
    if parts:
        item["issued"] = {"date-parts": parts}
    if r.abstract:
        item["abstract"] = tex_to_text(r.abstract)
    if r.doi:
        item["DOI"] = r.doi
    if r.journal_ref:
        item["container-title"] = r.journal_ref
    if r.arxiv_id:
        item["number"] = f"arXiv:{r.arxiv_id}"
        item["publisher"] = "arXiv"
    if r.comment:
        item["note"] = r.comment
    if r.citations is not None:   # only when the site shows citations (assemble drops them otherwise)
        cited = f"Cited by {r.citations} (OpenAlex, {r.citations_date or 'date unknown'})"
        item["note"] = f"{item['note']}; {cited}" if "note" in item else cited
    return item


def to_csl_json(author: Author) -> bytes:
    return _dumps([csl_item(r) for r in author.records])


def authors_index(site: SiteModel) -> bytes:
    """data.json: a small index of the authors, for scripts: each author's name, slug, number of
    records and the URLs of their page, CSL-JSON export and feed. No records: those are in each
    author's publications.json (the whole site's records in one file grew to 145 MB at
    1,000 x 100, and duplicated every export)."""
    urls = Urls(site.base_url)
    authors = [{"name": a.name, "slug": a.slug, "records": len(a.records),
                "url": urls.abs_url_for("author", a.slug),
                "publications": urls.abs_url_for("author_csl", a.slug),
                "feed": urls.abs_url_for("author_feed", a.slug)} for a in site.authors]
    return _dumps({"title": site.title, "authors": authors})


def _dumps(data: Any, newline: bool = True) -> bytes:  # noqa: ANN401
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (text + "\n" if newline else text).encode("utf-8")
