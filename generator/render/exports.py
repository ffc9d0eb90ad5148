"""Machine-readable exports: an author's records as BibTeX and CSL-JSON, and the authors' index.

Pure functions from the model to bytes. BibTeX keeps titles' TeX (its readers are
LaTeX) but balances braces, since one stray ``{`` from a feed would swallow the rest
of the file; CSL-JSON carries plain Unicode text (latex.tex_to_text: no TeX command).

BibTeX entries are written as arXiv's own export writes them: ``@misc`` with ``eprint``,
``archivePrefix`` and ``primaryClass`` for a preprint, ``@article`` only with a journal and
``@inproceedings`` only with a booktitle (strict tools refuse an @article without journal),
``doi`` where known, and no abstract or comment (arXiv's has neither; both stay in the
CSL-JSON and on the page, and the abstract was most of the file's bytes). Names are split
by generator.render.names ("von Last, First"; a doubtful name whole, in braces). Unknown co-authors (a
truncated list, a typed-in record that lists none) are BibTeX's ``and others`` and, in CSL-JSON,
the suffix "et al." of the last known name: both print as "et al." (issue 30).

CSL-JSON has no field for an author's affiliation; each name carries them as Crossref's
CSL-JSON does (``"affiliation": [{"name": "..."}]``), which citeproc processors ignore and
Crossref-aware tools read. A published record's item is typed by its venue
(article-journal / paper-conference) and keeps its arXiv id as ``archive_location``.

BibTeX is formatted here rather than with bibtexparser's writer: its
``write_string`` deep-copies every entry (1.3 s of a 2 s render at 100 x 50 in the
benchmark), and the format is one ``key = {value}`` line per field. bibtexparser
stays the oracle: the tests parse every file back with it. JSON is written compact by
orjson, the bytes of ``json.dumps`` at a fifth of its time (see ``_dumps``).
"""

from __future__ import annotations

import dataclasses
import json
import re
import unicodedata
from functools import lru_cache
from typing import Any

import orjson

from generator.assemble import matching
from generator.core.latex import tex_to_text
from generator.core.model import ET_AL, Author, Person, Record, SiteModel
from generator.render.names import bibtex_name, csl_name, split_name
from generator.core.routes import Urls
from generator.index.lazy import matched


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_NOT_ASCII_WORD = re.compile(r"[^a-z0-9]")
_LONE_BACKSLASH = re.compile(r"\\(?![A-Za-z'\"^`~=.])")


def _balanced(text: str) -> str:
    """Escape every brace if the braces of ``text`` do not balance; drop control characters."""
    if not text.isprintable():   # (every control character is unprintable; the test is C and fast)
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


_SPECIAL = re.compile(r"(?<!\\)([&%#])")
_UNDERSCORE = re.compile(r"(?<!\\)_")
_DOLLAR = re.compile(r"(?<!\\)\$")


def _tex_text(text: str) -> str:
    """A title or venue as TeX can set it: ``&``, ``%`` and ``#`` escaped wherever they are bare
    (arXiv's "Promises & Perils", DBLP's plain text), ``_`` where it is outside math."""
    if "&" in text or "%" in text or "#" in text:
        text = _SPECIAL.sub(r"\\\1", text)
    if "_" in text:
        parts = _DOLLAR.split(text)
        parts[::2] = [_UNDERSCORE.sub(r"\\_", p) for p in parts[::2]]
        text = "$".join(parts)
    return text


def _ascii_word(text: str) -> str:
    if text.isascii():
        return _NOT_ASCII_WORD.sub("", text.lower())
    text = unicodedata.normalize("NFKD", text)
    return _NOT_ASCII_WORD.sub("", "".join(c for c in text if not unicodedata.combining(c)).lower())


# A venue that names a conference, workshop or symposium is a proceedings volume (BibTeX
# booktitle); any other is a journal. arXiv's journal_ref is free text, so this is a guess
# from its words ("Proc.", "In Proceedings of", "Workshops (ICSTW)").
_PROCEEDINGS = re.compile(
    r"proc\.|proceedings|\b(?:conference|conf\.|workshops?|symposium|congress|colloquium|meeting)\b", re.I
)


# DBLP's key names the kind of a publication (conf/sigmod/..., journals/pvldb/..., phd/...),
# where the venue's text does not: "Proc. VLDB Endow." is a journal.
_DBLP_KIND = {"conf": "proceedings", "journals": "journal", "phd": "thesis"}


def venue_kind(r: Record) -> tuple[str, str | None]:
    """("proceedings" | "journal" | "thesis" | "preprint", the venue text): from the journal_ref,
    else the record's published venue, of the kind DBLP's key says when DBLP gave it. One answer
    for BibTeX's entry type and CSL's item type."""
    venue = r.journal_ref or r.venue
    if not venue:
        return "preprint", None
    if not r.journal_ref:
        kinds = {_DBLP_KIND.get(k.split("/", 1)[0]) for scheme, k in r.source_ids
                 if scheme == "dblp" and not k.startswith("journals/corr/")}
        if len(kinds) == 1 and None not in kinds:
            return kinds.pop(), venue
    return ("proceedings" if _PROCEEDINGS.search(venue) else "journal"), venue


def bibtex_key(r: Record, author: Author) -> str:
    """firstauthorfamily + year + first long title word, ASCII ("delmaestro2019quantum")."""
    return _bibtex_key(r.authors[0].name if r.authors else author.name, r.year, r.title)


@lru_cache(maxsize=1 << 12)   # an author's page (its BibTeX links) and exports ask for the same keys, one after another
def _bibtex_key(name: str, year: int | None, title: str) -> str:
    parts = split_name(name)
    first = (parts.family or parts.literal).split() or [name]
    word = next((w for w in (_ascii_word(t) for t in tex_to_text(title).split()) if len(w) > 3), "record")
    return f"{''.join(_ascii_word(w) for w in first) or 'anon'}{year or ''}{word}"


def _bibtex_fields(r: Record) -> tuple[str, list[tuple[str, str]]]:
    """The entry type and fields of one record, as arXiv's own BibTeX export writes them
    (no abstract: arXiv's has none; it is in the CSL-JSON and on the page). @article and
    @inproceedings only when their required fields (journal/booktitle, author, year) are all there."""
    fields = [("title", "{" + _balanced(_tex_text(r.title)) + "}")]
    if r.authors:
        fields.append(("author", " and ".join([_OTHERS if p.name == ET_AL else _bibtex_person(p.name)
                                               for p in r.authors])))
    kind, venue = venue_kind(r)
    entry = "misc"
    if venue is not None:
        if r.authors and r.year:
            entry = {"proceedings": "inproceedings", "thesis": "phdthesis"}.get(kind, "article")
        field_name = {"inproceedings": "booktitle", "article": "journal", "phdthesis": "school"}.get(
            entry, "howpublished")
        fields.append((field_name, _balanced(_tex_text(venue))))
    if r.year:
        fields.append(("year", str(r.year)))
    if r.arxiv_id:
        fields += [("eprint", r.arxiv_id), ("archivePrefix", "arXiv")]
        if r.primary_subject:
            fields.append(("primaryClass", r.primary_subject))
    if r.doi:
        fields.append(("doi", _balanced(r.doi)))
    link = r.link
    if link:
        fields.append(("url", _balanced(link)))
    return entry, fields


@lru_cache(maxsize=1 << 16)  # co-authors repeat across an author's records
def _bibtex_person(name: str) -> str:
    """A name as BibTeX holds it ("von Last, First"): no braces of its own, no control characters,
    and a backslash only where it starts a TeX accent or command (``\\}`` would escape our brace)."""
    return bibtex_name(_LONE_BACKSLASH.sub("", _CONTROL.sub("", name).replace("{", "").replace("}", "")))


def bibtex_keys(author: Author) -> list[str]:
    """Each record's key, in the author's order. Records that share a key are told apart
    oldest first ("wang2026flash", then "wang2026flasha" ...), so a newer record takes the next
    letter and a key already cited keeps naming the same paper."""
    keys = [bibtex_key(r, author) for r in author.records]
    seen: dict[str, int] = {}
    for i in reversed(range(len(keys))):          # records are newest first
        n = seen[keys[i]] = seen.get(keys[i], 0) + 1
        if n > 1:
            keys[i] = f"{keys[i]}{chr(ord('a') + n - 2)}" if n < 28 else f"{keys[i]}{n}"
    return keys


def to_bibtex(author: Author) -> bytes:
    entries = []
    for r, key in zip(author.records, bibtex_keys(author)):
        kind, fields = _bibtex_fields(with_authors(r, author))
        body = ",\n".join(f"\t{name} = {{{value}}}" for name, value in fields)
        entries.append(f"@{kind}{{{key},\n{body}\n}}\n")
    return "\n".join(entries).encode("utf-8")


def with_authors(r: Record, author: Author) -> Record:
    """A record typed into an author's file without an ``authors`` list names that author and
    unknown others: the exports neither leave BibTeX and CSL-JSON without any author (issue 13)
    nor credit the author alone with a paper that may have several (issue 30)."""
    return r if r.authors else dataclasses.replace(r, authors=(Person(author.name), _UNKNOWN))


_UNKNOWN = Person(ET_AL)   # the mark a source puts after a truncated list (model.ET_AL)
_OTHERS = "others"         # BibTeX's own word for it: styles print "et al."


def _csl_people(people: tuple[Person, ...]) -> list[dict[str, Any]]:
    """CSL names. CSL-JSON has no mark for unknown co-authors, so the last known name carries
    the suffix "et al.", which citeproc processors print after it ("Cui, B., et al.")."""
    known = [p for p in people if p.name != ET_AL]
    names = [_csl_person(p) for p in known]
    if names and len(known) < len(people):
        names[-1] = {**names[-1], "suffix": ET_AL}
    return names


def _csl_person(p: Person) -> dict[str, Any]:
    """A CSL name; affiliations in Crossref's CSL-JSON form (``"affiliation": [{"name": ...}]``),
    since CSL itself has no field for them (citeproc processors ignore unknown keys)."""
    if not p.affiliations:
        return _csl_plain(p.name)
    name: dict[str, Any] = csl_name(p.name)
    name["affiliation"] = [{"name": a} for a in p.affiliations]
    return name


@lru_cache(maxsize=1 << 16)  # co-authors repeat across records; the dict is shared, only ever serialised
def _csl_plain(name: str) -> dict[str, str]:
    return csl_name(name)


def _date_parts(r: Record) -> list[list[int]]:
    """The first version's date, unless the record's year is another's (a merged record's year is
    its published version's: then the year alone, never a preprint date beside a later venue)."""
    if r.published and (r.year is None or r.published.startswith(str(r.year))):
        return _published_parts(r.published[:10])
    return [[r.year]] if r.year else []


@lru_cache(maxsize=1 << 14)  # a few thousand dates; the list is shared, only ever serialised
def _published_parts(date: str) -> list[list[int]]:
    y, m, d = (int(x) for x in date.split("-"))
    return [[y, m, d]]


_CSL_TYPE = {"journal": "article-journal", "proceedings": "paper-conference", "thesis": "thesis",
             "preprint": "article"}


def csl_item(r: Record, reference: bool = False) -> dict[str, Any]:
    """The record's CSL-JSON item; ``reference``: only the fields a reference prints (no abstract,
    note or match), for the paper page's APA text (generator.render.apa), made per paper page."""
    kind, venue = venue_kind(r)
    item: dict[str, Any] = {
        "id": r.arxiv_id or r.doi or r.key,
        "type": _CSL_TYPE[kind],
        "title": tex_to_text(r.title),
    }
    link = r.link   # a property: a record without id or DOI quotes its title into a search URL
    if link:
        item["URL"] = link
    names = _csl_people(r.authors)
    if names:
        item["author"] = names
    parts = _date_parts(r)
    if parts:
        item["issued"] = {"date-parts": parts}
    if r.abstract and not reference:
        item["abstract"] = tex_to_text(r.abstract)
    if r.doi:
        item["DOI"] = r.doi
    if venue and kind == "thesis":    # the school publishes a thesis; it is in no container
        item["genre"] = "PhD thesis"
        item["publisher"] = venue
    elif venue:
        item["container-title"] = venue
    if r.arxiv_id and kind == "preprint":  # as Zotero writes an arXiv preprint
        item["number"] = f"arXiv:{r.arxiv_id}"
        item["publisher"] = "arXiv"
    elif r.arxiv_id:  # published: number/publisher are the venue's; the preprint is its archive copy
        item["archive"] = "arXiv"
        item["archive_location"] = f"arXiv:{r.arxiv_id}"
    if reference:
        return item
    if r.comment:
        item["note"] = r.comment
    if r.citations is not None:   # only when the site shows citations (assemble drops them otherwise)
        cited = f"Cited by {r.citations} (OpenAlex, {r.citations_date or 'date unknown'})"
        item["note"] = f"{item['note']}; {cited}" if "note" in item else cited
    if r.match:   # why it is the author's (generator.assemble.matching), in CSL-JSON's field for what CSL has no name for
        item["custom"] = {"match": r.match, "match-reason": matching.words(r.match)}
    return item


def to_csl_json(author: Author) -> bytes:
    return _dumps([csl_item(with_authors(r, author)) for r in author.records])


def authors_index(site: SiteModel) -> Iterator[bytes]:
    """data.json: a small index of the authors, for scripts: each author's name, slug, number of
    records and the URLs of their page, CSL-JSON export (null for an author with no records, who
    has none) and feed; how its records were matched (``matched``: the count of each basis, and
    the ids of the records matched by name only, generator.assemble.matching). No records: those are in each author's publications.json (the whole site's
    records in one file grew to 145 MB at 1,000 x 100, and duplicated every export). Written an
    author at a time, the bytes ``_dumps`` gives the whole: held whole, its values took the
    process that wrote it to 466 MB at 20,000 x 100 (a 31 MB file), the largest of the build."""
    urls = Urls(site.base_url)
    yield b'{"title":' + _dumps(site.title, newline=False) + b',"authors":['
    for n, a in enumerate(site.authors):
        yield (b"," if n else b"") + _dumps({
            "name": a.name, "slug": a.slug, "records": len(a.records), "matched": matched(a.records),
            "url": urls.abs_url_for("author", a.slug),
            "publications": urls.abs_url_for("author_csl", a.slug) if a.records else None,
            "feed": urls.abs_url_for("author_feed", a.slug)}, newline=False)
    yield b"]}\n"


def _dumps(data: Any, newline: bool = True) -> bytes:  # noqa: ANN401
    """Compact UTF-8 JSON: orjson writes the bytes ``json.dumps(ensure_ascii=False, separators=
    (",", ":"))`` writes for these values (tests/render/test_exports.py compares them), four times
    as fast; what it refuses (an integer past 64 bits, a lone surrogate) goes through json, as
    before. Floats, which only a hand-edited cache can hold, are in orjson's shortest form."""
    try:
        data = orjson.dumps(data)
    except orjson.JSONEncodeError:
        data = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return data + b"\n" if newline else data


def paper_bibtex(r: Record, author: Author) -> str:
    """One record's BibTeX entry as ``to_bibtex`` writes it, keyed ``bibtex_key`` (without the
    letter that tells apart two records of one author sharing a key: a paper's page reads its
    record alone, generator.render.pages), for the paper's page (``author``: its first profiled author)."""
    kind, fields = _bibtex_fields(with_authors(r, author))
    body = ",\n".join(f"\t{name} = {{{value}}}" for name, value in fields)
    return f"@{kind}{{{bibtex_key(r, author)},\n{body}\n}}\n"
