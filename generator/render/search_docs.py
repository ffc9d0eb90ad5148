"""The search index's documents (generator.write.search): which records are indexed under whom, the
text each document holds, and the order that numbers them."""

from __future__ import annotations

import html
import operator
import re
from itertools import compress, repeat
from operator import attrgetter
from typing import Iterable, Mapping, Sequence

from generator.core import routes
from generator.assemble.byline import shown_names
from generator.core.latex import tex_to_text
from generator.core.model import Author, Page, Record, SiteModel
from generator.assemble.papers import key_of
from generator.render.search_index import term_sets
from generator.render.search_runs import in_order
from generator.index.lazy import Listed
from generator.index.site import indexed_rows

_TAG = re.compile(r"<[^>]*>")
_KEY = attrgetter("key")


def indexed_records(site: SiteModel) -> dict[str, tuple[Record, ...]]:
    """Per author, the records indexed under the author: each record once, under the first
    profiled author who lists it (in site order). A paper of three profiled co-authors is one
    search result, not three (a fifth of the records at 1,000 x 100 are listed by more than
    one author). Records in the index (generator.index) are asked of it, none loaded."""
    if isinstance(site.record_authors, Listed):
        return indexed_rows(site.record_authors.index, site.authors)   # type: ignore[return-value]
    first = {key: slugs[0] for key, slugs in site.record_authors.items() if slugs}
    out: dict[str, tuple[Record, ...]] = {}
    for a in site.authors:   # (in C: 100,000 records at 1,000 x 100; an author's own tuple when all are its)
        own = list(map(operator.eq, map(first.get, map(_KEY, a.records), repeat(a.slug)), repeat(a.slug)))
        out[a.slug] = a.records if all(own) else tuple(compress(a.records, own))
    return out


def paper_order(site: SiteModel, records: Mapping[str, Sequence[Record]]) -> Iterable[tuple[str, str, str]]:
    """(date, key, author slug) of each paper ``records`` holds (``indexed_records``), in the
    search index's order (``in_order``); asked of the index when the site is in it, none loaded."""
    if isinstance(site.record_authors, Listed):
        return site.record_authors.index.papers()
    return in_order([(date_of(r), r.key, a.slug) for a in site.authors for r in records[a.slug]])


def document_text(r: Record, shown: int = 10, people: Mapping[str, str] | None = None,
                  abstracts: bool = False) -> tuple[str, str, str]:
    """What is searched of a record, as plain text: title, authors (the names its pages show),
    and more text: its arXiv id and DOI, and with ``abstracts`` (site.yaml ``search: {abstracts:
    true}``, by default on a lab's site) its abstract, as plain text. One home, so the text a
    document holds changes here alone. Measured at 1,000 authors x 100 records
    (bench/search_abstracts.py), abstracts make the index 44 MB instead of 29 MB and its common
    words' shards three times as large, so a large site leaves them out unless site.yaml asks."""
    more = " ".join(i for i in (r.arxiv_id, r.doi, tex_to_text(r.abstract) if abstracts else "") if i)
    return tex_to_text(r.title), ", ".join(shown_names(r.authors, shown, people or {})), more


def page_text(p: Page) -> str:
    """A free page's body as plain text (its sanitised HTML without the tags)."""
    return html.unescape(_TAG.sub(" ", p.body_html))


def date_of(r: Record) -> str:
    return r.published or (f"{r.year:04d}" if r.year else "")


# An author's documents: (date, key, title, other text, result row) of each record indexed under it.
Doc = tuple[str, str, str, str, tuple[str, ...]]
# As kept from one build to the next: the text as its term_sets (title terms, other terms).
TermDoc = tuple[str, str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def author_documents(site: SiteModel, a: Author, records: Sequence[Record]) -> list[Doc]:
    """The documents of ``records``, indexed under ``a`` (``indexed_records``): each result links
    to the paper's own page (site.yaml ``papers``), else to the record on the author's page."""
    url, by = routes.author(a.slug).url, a.name
    shown, people, papers, keys = site.authors_shown, site.people, site.papers, site.paper_keys
    out = []
    for r in records:
        title, names, ids = document_text(r, shown, people, site.search_abstracts)
        href = routes.paper(key_of(keys, r.key)).url if papers else f"{url}#{r.anchor}"
        row = (href, title, names, str(r.year or ""), " ".join(r.subjects), by)
        # A record typed in without authors is its author's own, as the exports say: their
        # name finds it, although no byline shows it.
        out.append((date_of(r), r.key, title, f"{names or by} {ids}", row))
    return out


def page_docs(site: SiteModel) -> list[tuple[tuple[str, str], tuple[str, ...]]]:
    """The free pages' (title, text) and result rows, the first documents: from the last page
    to the first, so that among equal scores (the higher id first) they rank in site order."""
    return [((p.title, page_text(p)), (routes.page(p.name).url, p.title, "", "", "", "")) for p in reversed(site.pages)]


def page_key(row: Sequence[str]) -> str:
    """A free page's document key, by its address: never a record's key (``source:id``)."""
    return f"page {row[0]}"


def documents(site: SiteModel) -> tuple[list[tuple[str, str]], list[tuple[str, ...]]]:
    """(title, other text) and the result row ``[url, title, authors, year, subjects, by]`` of every
    document, in id order: the free pages, then the papers oldest first (date, then key from the last)."""
    records = indexed_records(site)
    docs = in_order([d for a in site.authors for d in author_documents(site, a, records[a.slug])])
    pages = page_docs(site)
    return [t for t, _ in pages] + [(d[2], d[3]) for d in docs], [r for _, r in pages] + [d[4] for d in docs]


def term_documents(site: SiteModel, a: Author, records: Sequence[Record]) -> list[TermDoc]:
    """``author_documents`` with their text as its term sets."""
    return [(d, k, *term_sets(title, other), row) for d, k, title, other, row in author_documents(site, a, records)]
