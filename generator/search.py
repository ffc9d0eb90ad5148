"""The static search index, built by Pagefind in shards.

Pagefind (PyPI ``pagefind[bin]`` ships the binary) builds the index into the
staging folder before it is swapped in, so the index always matches the pages.
It indexes one search document per paper (``record_document``), made from the
model, not from the built pages: title and authors as plain text (``document_text``), and as
Pagefind metadata what a result row shows (the link to the record on the page of the
first profiled author who lists it, year, subjects, that author's name). So a result
is a paper, counted once however many profiled authors list it, and the search box
can say "2 results" for two papers. Pagefind spent a third of its time on the rest
of a page (JSON-LD, MathML markup, chips, the chart) and indexed MathML as a scatter
of one-letter words. Free pages are indexed from their title and body. As the
documents come from the model, the render processes index the shards among the
pages (``shard_tasks``), using a core while the other writes a long file.

The index is split into shards of about ``SHARD_AUTHORS`` authors each (at most
``MAX_SHARDS``: each costs a query requests), chosen by a
hash of the author's slug (so adding an author does not move the others), each a
separate Pagefind bundle in its own folder (``routes.search_bundle``); the search page merges them in the
browser (``mergeIndex`` of Pagefind's JS API, static/search.js). Why: one Pagefind run over a large site is
the longest step of a build and its largest process (21 s and 3 GB at 1,000 authors
x 100 records), and it cannot be updated in part. Shards are indexed on every core
at once, each needs a fraction of the memory, and an incremental build re-indexes
only the shards whose pages changed.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import signal
import subprocess
import tempfile
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from markupsafe import escape

from generator import routes
from generator.byline import shown_names
from generator.errors import SiteError
from generator.latex import tex_to_text
from generator.model import Author, Page, Record, SiteModel
from generator.parallel import die_with_parent, run_tasks
from generator.tasks import FolderTask

log = logging.getLogger(__name__)

SHARD_AUTHORS = 50
# What a query fetches (measured in Chromium): Pagefind's script, worker and WebAssembly; per
# bundle its entry and metadata, and an index chunk per word; one fragment per result shown
# (five in the header). Three bundles keep a two-word query within 20 requests (issue 12:
# 3 + 3 x 2 + 3 x 2 + 5); the price is that a large site re-indexes a third of its papers
# when one author changes, in a Pagefind process of about 45 KB per paper.
MAX_SHARDS = 3


@dataclass(frozen=True, slots=True)
class Shard:
    name: str                  # names the bundle's folder (routes.search_bundle)
    authors: tuple[str, ...]   # author slugs whose pages it indexes
    pages: tuple[str, ...]     # free page names (all in the first shard)

    @property
    def subdir(self) -> str:
        """The bundle's folder under the output root (generator.routes)."""
        return routes.search_bundle(self.name).path


def plan_shards(author_slugs: Sequence[str], page_names: Sequence[str]) -> list[Shard]:
    """The shards of a site, stable for a given set of authors; empty shards are dropped."""
    count = min(MAX_SHARDS, max(1, -(-len(author_slugs) // SHARD_AUTHORS)))
    members: list[list[str]] = [[] for _ in range(count)]
    for slug in sorted(author_slugs):
        members[zlib.crc32(slug.encode()) % count].append(slug)
    shards = []
    for i, slugs in enumerate(members):
        pages = tuple(sorted(page_names)) if i == 0 else ()
        if slugs or pages:
            shards.append(Shard(str(i), tuple(slugs), pages))
    return shards


def bundle_urls(site: SiteModel) -> tuple[str, ...]:
    """The URLs (relative to the site's base) of the site's search bundles, primary first: what
    the header's search box loads (template global ``search_bundles``)."""
    shards = plan_shards([a.slug for a in site.authors], [p.name for p in site.pages])
    return tuple(routes.search_bundle(s.name).url for s in shards)


def pagefind_binary() -> Path | None:
    spec = importlib.util.find_spec("pagefind_bin")
    if spec is None or spec.origin is None:
        return None
    binary = Path(spec.origin).parent / "pagefind"
    return binary if binary.is_file() else None


def indexed_records(site: SiteModel) -> dict[str, tuple[Record, ...]]:
    """Per author, the records indexed under the author: each record once, under the first
    profiled author who lists it (in site order). A paper of three profiled co-authors is one
    search result, not three, and Pagefind indexes it once (a fifth of the records at
    1,000 x 100 are listed by more than one author)."""
    first = {key: slugs[0] for key, slugs in site.record_authors.items() if slugs}
    return {a.slug: tuple(r for r in a.records if first.get(r.key, a.slug) == a.slug) for a in site.authors}


def document_text(r: Record, shown: int = 10, people: Mapping[str, str] | None = None) -> tuple[str, str, str]:
    """What is searched of a record, as plain text: title, authors, and more text ('' today; one
    home, so the text a document holds changes here alone). Abstracts are left out: measured at
    100 authors x 50 records, they doubled the index (6.5 MB, against 3.0 MB without; the author
    documents before were 4.7 MB) and made Pagefind take 2.7 times the memory (490 MB a shard,
    against 180 MB) and 2.4 times the CPU time."""
    return tex_to_text(r.title), ", ".join(shown_names(r.authors, shown, people or {})), ""


def record_document(r: Record, a: Author, language: str, shown: int = 10,
                    people: Mapping[str, str] | None = None) -> str:
    """The HTML Pagefind indexes for one record, listed on ``a``'s page: one search result per
    paper. Indexed: ``document_text``. Kept for the result row (Pagefind metadata, outside
    the indexed body): the link to the record on the author's page, the year, the subjects, the
    author's name. Pagefind takes ``url`` metadata as the result's address (the document's own
    path is a scratch name)."""
    e = escape
    title, authors, abstract = document_text(r, shown, people)
    url = f"{routes.author(a.slug).url}#{r.anchor}"
    meta = [("url", url), ("year", str(r.year or "")), ("subjects", " ".join(r.subjects)), ("by", a.name)]
    spans = "".join(f'<span data-pagefind-meta="{k}">{e(v)}</span>' for k, v in meta if v)
    return (f"{_head(title, language)}<main data-pagefind-body><h1 data-pagefind-meta=\"title\">{e(title)}</h1>"
            f"<p data-pagefind-meta=\"authors\">{e(authors)}</p>{f'<p>{e(abstract)}</p>' if abstract else ''}</main>"
            f"<footer>{spans}</footer></body></html>\n")


def site_document(title: str, language: str) -> str:
    """The one document of a shard whose authors have no records yet: the site's title, leading home."""
    return (f"{_head(title, language)}<main data-pagefind-body><h1 data-pagefind-meta=\"title\">{escape(title)}"
            f"</h1></main><footer><span data-pagefind-meta=\"url\">{escape(routes.home().url)}</span></footer>"
            "</body></html>\n")


def page_document(p: Page, language: str) -> str:
    """The HTML Pagefind indexes for a free page: its title and body, as the page shows them."""
    return (f"{_head(p.title, language)}<main data-pagefind-body><h1 data-pagefind-meta=\"title\">"
            f"{escape(p.title)}</h1>{p.body_html}</main><footer><span data-pagefind-meta=\"url\">"
            f"{escape(routes.page(p.name).url)}</span></footer></body></html>\n")


def _head(title: str, language: str) -> str:
    return (f'<!DOCTYPE html><html lang="{escape(language)}"><head><meta charset="utf-8"><title>{escape(title)}'
            "</title></head><body>")


# Pagefind's CPU time per indexed record, in the render tasks' weight units (about 24 us each),
# measured at 100 authors x 50 records: 3.3 CPU-s for 4,083 one-paper documents.
_WEIGHT_PER_RECORD = 34


def shard_tasks(site: SiteModel, shards: Sequence[Shard]) -> list[FolderTask]:
    """One task per shard: write its documents to a temporary folder and run Pagefind on it,
    the bundle going to the shard's folder. Tasks, so that the render processes index the
    search shards alongside the pages (the documents need the model, not the built pages)."""
    binary = pagefind_binary()
    if binary is None and shards:
        raise SiteError("the search index needs Pagefind, which is not installed",
                        hint="pip install 'pagefind[bin]' (make site does this)")
    assert binary is not None or not shards
    authors = site.author_by_slug
    records = indexed_records(site)
    pages = {p.name: p for p in site.pages}
    language = site.language or "en"
    tasks = []
    for shard in shards:
        docs = [(f"papers/{slug}/{i}.html", functools.partial(record_document, r, authors[slug], language,
                                                              site.authors_shown, site.people))
                for slug in shard.authors for i, r in enumerate(records[slug])]
        docs += [(routes.page(name).path, functools.partial(page_document, pages[name], language))
                 for name in shard.pages]
        if not docs:   # authors with no records yet: Pagefind refuses an empty folder, the search box needs a bundle
            docs = [("site.html", functools.partial(site_document, site.title, language))]
        weight = _WEIGHT_PER_RECORD * sum(len(records[slug]) for slug in shard.authors) + 1
        index = functools.partial(_index_shard, binary, language, docs, shard.subdir)
        # what the documents are made from: each author with the records indexed under them, the pages
        reads = (shard.name, language, tuple((authors[slug], records[slug]) for slug in shard.authors),
                 tuple(pages[name] for name in shard.pages))
        tasks.append(FolderTask(shard.subdir, index, f"search:{shard.name}", weight, reads))
    return tasks


def _index_shard(binary: Path, language: str, docs: Sequence[tuple[str, Callable[[], str]]], subdir: str,
                 staging: Path) -> int:
    """Index ``docs`` (site path, maker) into ``staging/subdir``; return the bytes it holds."""
    bundle = staging / subdir
    with tempfile.TemporaryDirectory(prefix=".search-docs-", dir=staging) as tmp:
        for rel, make in docs:
            dest = Path(tmp) / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(make(), "utf-8")
        cmd = [str(binary), "--site", tmp, "--output-path", str(bundle), "--silent",
               "--force-language", language]
        # Pagefind dies with the process that runs it, so a build killed outright leaves no
        # Pagefind writing into the next build's staging folder (a preexec_fn only where no
        # other thread could hold a lock across the fork: not in the preview server).
        preexec = die_with_parent(signal.SIGKILL) if threading.active_count() == 1 else None
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=False,
                             preexec_fn=preexec)  # noqa: PLW1509 - single-threaded, checked above
    if res.returncode != 0:
        raise SiteError(f"Pagefind failed on search shard {bundle.name} (exit {res.returncode}): "
                        f"{res.stderr.strip()[:2000]}")
    return sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file())


def build_index(site_dir: Path, site: SiteModel, shards: Sequence[Shard], workers: int = 1) -> int:
    """Index the given shards into the site built in ``site_dir``, on up to ``workers`` processes
    (the build runs the same tasks among its render tasks instead)."""
    written = run_tasks(shard_tasks(site, shards), site_dir, workers)
    log.debug("search index written (%d shard%s)", len(shards), "" if len(shards) == 1 else "s")
    return written
