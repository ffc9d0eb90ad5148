"""The static search index: our own, written by Python from the model, read by static/search.js.

What is searched: one document per paper (``indexed_records``: a paper several profiled
authors list is one document, under the first of them, so "8 results" means 8 papers) and
one per free page. A paper's document is ``document_text``: its title as plain text, the
author names its pages show, its arXiv id and DOI; a page's is its title and body text. A
result row shows the title (linking to the record on that author's page), the authors, the
year, the subjects and whose page it is on. Documents are numbered from the free pages to the
newest paper (papers by the record's date, then key from the last), and search.js ranks the
higher id first among equal scores: the newest paper, then the first key, the pages last.
Numbered so, a new paper takes the next id and a rebuild patches the last index
(generator.search_patch) instead of writing all of it again.

The files (``generator.search_index``, under ``routes.search_index``): a small ``meta.json``,
term shards holding consecutive ranges of the sorted terms (up to about 48 KB each), each
mapping a term to the documents that hold it in the title and elsewhere, and chunks of 128
documents' result rows, every file named by the digest of its bytes. A query fetches meta.json once, one shard per word and
one chunk per result shown: a two-word query in the header costs 5-7 requests with search.js
itself (measured at 1,000 x 100; 3 shards a word at most, 5 chunks for the 5 rows).

Why not Pagefind, as before: it indexes HTML, so the documents were written as pages and
parsed back, and it needs about 45 KB of process memory per paper. At 1,000 authors x 100
records (81,304 papers) one document per paper made its step 67 s wall, 112 s CPU and 2.8 GB
(the cold build went from 52 s to 129 s), its bundles cost requests per query, so it had to
be sharded into at most 3 bundles, and a one-author rebuild re-indexed a third of the papers
(51 s); it wrote one fragment file per document (81,000 of the site's 90,000 files). This
index is built in one task of a render worker from the model: at 1,000 x 100, 5.4 s and about
100 MB over the model, 28 MB in 801 files (bench/README.md); the same bytes on every build.
"""

from __future__ import annotations

import functools
import html
import logging
import operator
import re
import shutil
import zlib
from itertools import compress, repeat
from pathlib import Path
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from generator import routes
from generator.byline import shown_names
from generator.latex import tex_to_text
from generator.model import Author, Page, Record, SiteModel
from generator.parallel import run_tasks
from generator.search_index import term_sets, write_terms
from generator import search_patch
from generator.search_patch import Last, New, Stale, meta_digest
from generator.tasks import FolderTask

if TYPE_CHECKING:
    from generator.jobs import Digester
    from generator.parsed import ParsedInputs

log = logging.getLogger(__name__)

_TAG = re.compile(r"<[^>]*>")
# The index's CPU time per paper, in the render tasks' weight units (about 24 us each):
# measured at 1,000 x 100, about 60 us a paper.
_KEY = attrgetter("key")
_WEIGHT_PER_RECORD = 3


def indexed_records(site: SiteModel) -> dict[str, tuple[Record, ...]]:
    """Per author, the records indexed under the author: each record once, under the first
    profiled author who lists it (in site order). A paper of three profiled co-authors is one
    search result, not three (a fifth of the records at 1,000 x 100 are listed by more than
    one author)."""
    first = {key: slugs[0] for key, slugs in site.record_authors.items() if slugs}
    out: dict[str, tuple[Record, ...]] = {}
    for a in site.authors:   # (in C: 100,000 records at 1,000 x 100; an author's own tuple when all are its)
        own = list(map(operator.eq, map(first.get, map(_KEY, a.records), repeat(a.slug)), repeat(a.slug)))
        out[a.slug] = a.records if all(own) else tuple(compress(a.records, own))
    return out


def document_text(r: Record, shown: int = 10, people: Mapping[str, str] | None = None) -> tuple[str, str, str]:
    """What is searched of a record, as plain text: title, authors (the names its pages show),
    and more text: its arXiv id and DOI. One home, so the text a document holds changes here
    alone. Abstracts are left out: measured at 100 authors x 50 records with Pagefind, they
    doubled the index (6.5 MB, against 3.0 MB without)."""
    ids = " ".join(i for i in (r.arxiv_id, r.doi) if i)
    return tex_to_text(r.title), ", ".join(shown_names(r.authors, shown, people or {})), ids


def page_text(p: Page) -> str:
    """A free page's body as plain text (its sanitised HTML without the tags)."""
    return html.unescape(_TAG.sub(" ", p.body_html))


def _date(r: Record) -> str:
    return r.published or (f"{r.year:04d}" if r.year else "")


# An author's documents: (date, key, title, other text, result row) of each record indexed under it.
Doc = tuple[str, str, str, str, tuple[str, ...]]
# As kept from one build to the next: the text as its term_sets (title terms, other terms).
TermDoc = tuple[str, str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def author_documents(site: SiteModel, a: Author, records: Sequence[Record]) -> list[Doc]:
    """The documents of ``records``, indexed under ``a`` (``indexed_records``)."""
    url, by = routes.author(a.slug).url, a.name
    shown, people = site.authors_shown, site.people
    out = []
    for r in records:
        title, names, ids = document_text(r, shown, people)
        row = (f"{url}#{r.anchor}", title, names, str(r.year or ""), " ".join(r.subjects), by)
        out.append((_date(r), r.key, title, f"{names} {ids}", row))
    return out


def _in_order(docs: list[Any]) -> list[Any]:
    """Papers oldest first (date, then key from the last): the document ids after the free pages'.
    A new paper is most often the newest, so it takes the next id and the others keep theirs
    (generator.search_patch); search.js ranks the higher id first among equal scores, that is
    the newest paper, then the one of the first key, as before."""
    docs.sort(key=itemgetter(1), reverse=True)
    docs.sort(key=itemgetter(0))   # stable: the key breaks ties
    return docs


def _page_docs(site: SiteModel) -> list[tuple[tuple[str, str], tuple[str, ...]]]:
    """The free pages' (title, text) and result rows, the first documents."""
    return [((p.title, page_text(p)), (routes.page(p.name).url, p.title, "", "", "", "")) for p in site.pages]


def _page_key(row: Sequence[str]) -> str:
    """A free page's document key, by its address: never a record's key (``source:id``)."""
    return f"page {row[0]}"


def documents(site: SiteModel) -> tuple[list[tuple[str, str]], list[tuple[str, ...]]]:
    """(title, other text) and the result row ``[url, title, authors, year, subjects, by]`` of every
    document, in id order: the free pages, then the papers oldest first (date, then key from the last)."""
    records = indexed_records(site)
    docs = _in_order([d for a in site.authors for d in author_documents(site, a, records[a.slug])])
    pages = _page_docs(site)
    return [t for t, _ in pages] + [(d[2], d[3]) for d in docs], [r for _, r in pages] + [d[4] for d in docs]


class Kept:
    """Each author's documents as term sets, kept in the parsed-input cache (generator.parsed)
    from one build to the next, keyed by what they are made of: the author's slug and name,
    the digests of the records indexed under it (their content and who lists them), the names
    shown and the profiled people (``keys``, made while planning, in the build's process). A
    one-record rebuild tokenizes one author's papers, not 81,000. The authors are kept in
    ``BUCKETS`` entries (by a hash of the slug: slug -> (key, documents)), each written again
    only when one of its authors changed: 1,000 small files cost more to open (0.45 ms each
    here) than their documents take to load, and one entry for the site cost ~1 s to write
    again after any edit."""

    KIND = "search-documents"
    LAST = "search-last"   # the index written last (search_patch.Last)
    BUCKETS = 32

    def __init__(self, parsed: ParsedInputs, keys: Mapping[str, bytes]) -> None:
        self.parsed, self.keys = parsed, keys
        self.last: list[dict[str, object]] = []   # the buckets as the last build kept them, once read
        self.hold(parsed)

    @classmethod
    def hold(cls, parsed: ParsedInputs) -> None:
        """Count every bucket as used by this build, so ``parsed.prune`` keeps them: whether the
        index runs, is reused, or is left out (``--no-search``: the next build with it finds them)."""
        for n in range(cls.BUCKETS):
            parsed.mark(cls.KIND, str(n), b"")
        parsed.mark(cls.LAST, "", b"")

    @classmethod
    def plan(cls, site: SiteModel, records: Mapping[str, Sequence[Record]], digester: Digester,
             parsed: ParsedInputs) -> Kept:
        digester.renew(site)
        common = digester.digest((site.authors_shown, site.people))
        return cls(parsed, {a.slug: common + digester.digest((a.slug, a.name, records[a.slug])) for a in site.authors})

    @classmethod
    def bucket(cls, slug: str) -> int:
        return zlib.crc32(slug.encode()) % cls.BUCKETS

    def documents(self, site: SiteModel, records: Mapping[str, Sequence[Record]]) -> list[TermDoc]:
        """Every author's documents, in site order: the last build's where its key is unchanged."""
        self.last = last = [self._last(n) for n in range(self.BUCKETS)]
        kept: list[dict[str, tuple[bytes, list[TermDoc]]]] = [{} for _ in range(self.BUCKETS)]
        out: list[TermDoc] = []
        for a in site.authors:
            n = self.bucket(a.slug)
            key, found = self.keys[a.slug], last[n].get(a.slug)
            if not (isinstance(found, tuple) and len(found) == 2 and found[0] == key):
                found = (key, term_documents(site, a, records[a.slug]))
            kept[n][a.slug] = found
            out += found[1]
        for n in range(self.BUCKETS):
            if kept[n] != last[n]:
                self.parsed.put(self.KIND, str(n), b"", kept[n])
        return out

    def _last(self, n: int) -> dict[str, object]:
        hit = self.parsed.lookup(self.KIND, str(n), b"")
        return hit[0] if hit is not None and isinstance(hit[0], dict) else {}  # type: ignore[return-value]

    def patch(self, folder: Path, old: Path, new: New) -> int | None:
        """``search_patch.patch`` of the last index in ``old``, after ``documents``; None when it
        cannot be patched (nothing is left in ``folder`` then)."""
        hit = self.parsed.lookup(self.LAST, "", b"")
        try:
            if hit is None or not isinstance(hit[0], Last):
                raise Stale("no last index kept")
            return search_patch.patch(folder, old, hit[0], new, self._changed(hit[0]))
        except (Stale, OSError, ValueError) as exc:
            log.debug("search index written anew: %s", exc)
            shutil.rmtree(folder, ignore_errors=True)
            return None

    def _changed(self, last: Last) -> dict[str, search_patch.Doc]:
        """The last index's documents that may have changed: the pages', and those of each author
        whose documents' key is not the last index's (as the buckets kept them for it)."""
        out: dict[str, search_patch.Doc] = dict(last.pages)
        for slug in self.keys.keys() | last.authors.keys():
            if self.keys.get(slug) == last.authors.get(slug) or slug not in last.authors:
                continue
            found = self.last[self.bucket(slug)].get(slug)
            if not (isinstance(found, tuple) and len(found) == 2 and found[0] == last.authors[slug]):
                raise Stale(f"the documents of {slug} in the last index are not kept")
            out.update((d[1], ((d[2], d[3]), d[4])) for d in found[1])
        return out

    def keep(self, folder: Path, new: New, pages: Mapping[str, search_patch.Doc]) -> None:
        """Keep what the next build patches from: the index just written into ``folder``."""
        self.parsed.put(self.LAST, "", b"", Last(meta_digest(folder), tuple(new.keys), dict(self.keys), dict(pages)))


def term_documents(site: SiteModel, a: Author, records: Sequence[Record]) -> list[TermDoc]:
    """``author_documents`` with their text as its term sets."""
    return [(d, k, *term_sets(title, other), row) for d, k, title, other, row in author_documents(site, a, records)]


def _fill(site: SiteModel, records: Mapping[str, Sequence[Record]], kept: Kept | None, out: Path | None,
          staging: Path) -> int:
    """Write the index of ``records`` (``indexed_records``) into ``staging``: patched from the
    last build's in ``out`` (the output folder) when it can be (generator.search_patch), else anew."""
    papers = _in_order(kept.documents(site, records) if kept is not None else
                       [d for a in site.authors for d in term_documents(site, a, records[a.slug])])
    pages = [(term_sets(*t), r) for t, r in _page_docs(site)]
    new = New([_page_key(r) for _, r in pages] + [d[1] for d in papers],
              [t for t, _ in pages] + [(d[2], d[3]) for d in papers], [r for _, r in pages] + [d[4] for d in papers])
    folder = staging / routes.search_index().path
    written = kept.patch(folder, out / routes.search_index().path, new) if kept is not None and out else None
    if written is None:
        written = write_terms(folder, new.terms, new.rows)
    if kept is not None:
        kept.keep(folder, new, {_page_key(r): (t, r) for t, r in pages})
    log.debug("search index: %d documents, %d bytes written", len(new.rows), written)
    return written


def search_tasks(site: SiteModel, digester: Digester | None = None, parsed: ParsedInputs | None = None,
                 out: Path | None = None) -> list[FolderTask]:
    """The search index as one task, run by a render process among the pages (it needs the
    model, not the built pages). It reads what it indexes: each author's slug and name (the
    result's link and "by") with the records indexed under them, and the free pages; the names
    shown and the profiled people are site settings (``jobs.common_digest``). So a build that
    changes none of them reuses the index, and any change indexes it anew: given the build's
    ``digester`` and ``parsed`` cache, from each unchanged author's documents as the last build
    made them (``Kept``), and patched from the last index in ``out`` (the output folder)."""
    records = indexed_records(site)
    reads = (tuple((a.slug, a.name, records[a.slug]) for a in site.authors), site.pages)
    weight = _WEIGHT_PER_RECORD * sum(map(len, records.values())) + 1
    kept = Kept.plan(site, records, digester, parsed) if digester is not None and parsed is not None else None
    fill = functools.partial(_fill, site, records, kept, out)
    return [FolderTask(routes.search_index().path, fill, "search", weight, reads)]


def build_index(site_dir: Path, site: SiteModel, workers: int = 1) -> int:
    """Write the search index into the site built in ``site_dir`` (the build runs the same task
    among its render tasks instead); ``bench/run.py`` times this step alone."""
    return run_tasks(search_tasks(site), site_dir, workers)
