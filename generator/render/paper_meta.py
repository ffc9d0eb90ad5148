"""What a paper's page says to machines: Google Scholar's ``citation_*`` tags and schema.org's
``ScholarlyArticle`` (JSON-LD), from the record alone, with one date and one venue for both.

Scholar's inclusion guidelines ask for ``citation_title``, one ``citation_author`` per author
(every author, not the bounded byline), ``citation_publication_date`` (YYYY/MM/DD, or the year
alone), the journal or conference title when published, and the DOI, arXiv id, PDF and the
abstract page's address when there are some. Scholar merges a page with the arXiv or DOI record
when they agree, so every value is the record's own: its title as plain text, its authors'
names as the source gave them, the arXiv id without version, the DOI as written.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from generator.render.exports import venue_kind
from generator.core.latex import tex_to_text
from generator.core.model import ET_AL, Record

_VENUE_TAG = {"journal": "citation_journal_title", "proceedings": "citation_conference_title",
              "thesis": "citation_dissertation_institution"}
_DESCRIPTION = 120   # characters of the abstract in the page's description (what search engines show)


def date_published(r: Record) -> str | None:
    """The record's publication date as ISO 8601: its first version's day when that is in its
    year, else its year alone (a merged record's year is its published version's, not its
    preprint's), else None."""
    if r.published and (r.year is None or r.published.startswith(str(r.year))):
        return r.published[:10]
    return str(r.year) if r.year else None


def authors(r: Record, listers: Sequence[str]) -> list[str]:
    """The names a paper's page gives as its authors: the record's (without the mark of a truncated
    list), else, for a record typed in without them, the profiled authors who list it (``listers``),
    as the exports name the author whose file it is (generator.render.exports)."""
    return [p.name for p in r.authors if p.name != ET_AL] or list(listers)


def citation_tags(r: Record, page_url: str, listers: Sequence[str] = ()) -> list[tuple[str, str]]:
    """The (name, content) of each ``citation_*`` meta tag of the paper's page at ``page_url``
    (absolute), in the guidelines' order. ``citation_pdf_url`` only for a PDF under the page's own
    folder, the one Scholar takes; an arXiv preprint is a technical report of arXiv's (Zotero's
    Embedded Metadata translator types a page without journal, conference or report as an article)."""
    tags = [("citation_title", tex_to_text(r.title))]
    tags += [("citation_author", name) for name in authors(r, listers)]
    date = date_published(r)
    if date:
        tags.append(("citation_publication_date", date.replace("-", "/")))
    kind, venue = venue_kind(r)
    if venue and kind in _VENUE_TAG:
        tags.append((_VENUE_TAG[kind], tex_to_text(venue)))
    elif kind == "preprint" and r.arxiv_id:
        tags += [("citation_technical_report_institution", "arXiv"),
                 ("citation_technical_report_number", r.arxiv_id)]
    if r.doi:
        tags.append(("citation_doi", r.doi))
    if r.arxiv_id:
        tags.append(("citation_arxiv_id", r.arxiv_id))
    if r.pdf_url and r.pdf_url.startswith(page_url):
        tags.append(("citation_pdf_url", r.pdf_url))
    tags.append(("citation_abstract_html_url", page_url))
    return tags


def paper_jsonld(r: Record, page_url: str, listers: Sequence[str] = ()) -> dict[str, Any]:
    """schema.org ScholarlyArticle of the paper's page at ``page_url``: every author, the date and
    venue of ``citation_tags``, the arXiv id and DOI as identifiers (``arXiv:ID``, ``doi:DOI``,
    as text: a PropertyValue each cost 60 bytes more on 81,000 pages) and their pages as sameAs."""
    w: dict[str, Any] = {"@context": "https://schema.org", "@type": "ScholarlyArticle", "@id": page_url + "#work",
                         "name": tex_to_text(r.title), "url": page_url,
                         "author": [{"@type": "Person", "name": name} for name in authors(r, listers)]}
    date = date_published(r)
    if date:
        w["datePublished"] = date
    kind, venue = venue_kind(r)
    if venue:
        w["isPartOf"] = {"@type": "Periodical" if kind == "journal" else "CreativeWork", "name": tex_to_text(venue)}
    ids = [f"{scheme}:{v}" for scheme, v in (("arXiv", r.arxiv_id), ("doi", r.doi)) if v]
    if ids:
        w["identifier"] = ids
    same = [u for u in (r.abs_url, r.doi_url) if u]
    if same:
        w["sameAs"] = same
    return w


def description(r: Record) -> str:
    """The page's description: the abstract's start as plain text, cut at a word, else the title."""
    text = " ".join(tex_to_text(r.abstract).split()) if r.abstract else ""
    if not text:
        return tex_to_text(r.title)
    if len(text) <= _DESCRIPTION:
        return text
    return text[:_DESCRIPTION].rsplit(" ", 1)[0] + " …"


def first_listed(record_authors: Mapping[str, tuple[str, ...]], r: Record) -> str | None:
    """The slug of the first profiled author who lists ``r``: the author its page is made from."""
    slugs = record_authors.get(r.key, ())
    return slugs[0] if slugs else None
