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
(generator.incremental.search_patch) instead of writing all of it again.

The files (``generator.render.search_index``, under ``routes.search_index``): a small ``meta.json``,
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
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence

from generator.core import routes
from generator.core.model import Record, SiteModel
from generator.index.lazy import Listed
from generator.write.parallel import run_tasks
from generator.render.search_docs import (TermDoc, document_text, documents, indexed_records, page_docs, page_key,
                                          term_documents)
from generator.render.search_index import term_sets, write_docs
from generator.render.search_runs import ordered
from generator.incremental.search_kept import Kept, authored
from generator.render.digest import Digester
from generator.incremental.search_patch import Doc, KeyList
from generator.render.tasks import FolderTask

if TYPE_CHECKING:
    from generator.incremental.parsed import ParsedInputs

__all__ = ["Kept", "build_index", "document_text", "documents", "indexed_records", "search_tasks"]

log = logging.getLogger(__name__)

# The index's CPU time per paper, in the render tasks' weight units (a unit: what a record costs
# its author's page): in memory at 1,000 x 100, about 60 us a paper against 24 us a unit, 3;
# over the index at 5,000 x 100, 40 s for 406,000 papers against 100 us a unit, 1 (weighed 3
# there, the shard holding the index was given too little else).
_WEIGHT_PER_RECORD, _WEIGHT_PER_RECORD_INDEXED = 3, 1


def _fill(site: SiteModel, records: Mapping[str, Sequence[Record]], kept: Kept | None, out: Path | None,
          staging: Path) -> int:
    """Write the index of ``records`` (``indexed_records``) into ``staging``: patched from the
    last build's in ``out`` (the output folder) when it can be (generator.incremental.search_patch),
    else anew, its documents and postings made in runs (generator.render.search_runs)."""
    folder = staging / routes.search_index().path
    pages = [(term_sets(*t), row) for t, row in page_docs(site)]
    if kept is not None and out is not None:
        written = kept.patch(site, records, pages, folder, out / routes.search_index().path)
        if written is not None:
            log.debug("search index: patched, %d bytes written", written)
            return written
    papers = ordered(kept.stream(site, records) if kept is not None else
                     (d for a in site.authors for d in term_documents(site, a, records[a.slug])), staging)
    keys = KeyList(page_key(row) for _, row in pages)
    written = write_docs(folder, _numbered(pages, papers, keys), tmp=staging)
    if kept is not None:
        kept.keep(folder, keys, pages)
    log.debug("search index: %d documents, %d bytes", len(keys), written)
    return written


def _numbered(pages: Sequence[Doc], papers: Iterable[TermDoc], keys: KeyList) -> Iterator[Doc]:
    """The documents in id order, the free pages' then the papers', each paper's key added to ``keys``."""
    yield from pages
    for d in papers:
        keys.append(d[1])
        yield (d[2], d[3]), d[4]


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
    made = authored(site, records, digester or Digester(site))
    reads = (tuple(made.values()), site.pages)   # (each author's digest of its slug, name and records)
    per = _WEIGHT_PER_RECORD_INDEXED if isinstance(site.record_authors, Listed) else _WEIGHT_PER_RECORD
    weight = per * sum(map(len, records.values())) + 1
    kept = Kept.plan(site, made, digester, parsed) if digester is not None and parsed is not None else None
    fill = functools.partial(_fill, site, records, kept, out)
    return [FolderTask(routes.search_index().path, fill, "search", weight, reads)]


def build_index(site_dir: Path, site: SiteModel, workers: int = 1) -> int:
    """Write the search index into the site built in ``site_dir`` (the build runs the same task
    among its render tasks instead); ``bench/run.py`` times this step alone."""
    return run_tasks(search_tasks(site), site_dir, workers)
