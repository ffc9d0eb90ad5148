"""The static search index, built by Pagefind in shards.

Pagefind (PyPI ``pagefind[bin]`` ships the binary) builds the index into the
staging folder before it is swapped in, so the index always matches the pages.
It indexes author pages from a search document made from the same records
(``author_document``; a record several authors list, under the first of them only):
the name, affiliation and bio, and per record a heading
with the record's anchor (so a hit points at the record itself), its authors,
identifiers, comment, subjects and abstract, as plain text. Pagefind spent a third
of its time on the rest of the page (JSON-LD, MathML markup, chips, the chart) at
1,000 authors x 100 records, and indexed MathML as a scatter of one-letter words.
Free pages are indexed from their title and body. What a site's own templates add
to these pages is therefore not searched; the records are. As the documents come
from the model, not from the built pages, the render processes index the shards
among the pages (``shard_tasks``), using a core while the other writes a long file.

The index is split into shards of about ``SHARD_AUTHORS`` authors each, chosen by a
hash of the author's slug (so adding an author does not move the others), each a
separate Pagefind bundle in its own folder (``routes.search_bundle``); the search page merges them in the
browser (Pagefind UI's ``mergeIndex``). Why: one Pagefind run over a large site is
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
    count = max(1, -(-len(author_slugs) // SHARD_AUTHORS))
    members: list[list[str]] = [[] for _ in range(count)]
    for slug in sorted(author_slugs):
        members[zlib.crc32(slug.encode()) % count].append(slug)
    shards = []
    for i, slugs in enumerate(members):
        pages = tuple(sorted(page_names)) if i == 0 else ()
        if slugs or pages:
            shards.append(Shard(str(i), tuple(slugs), pages))
    return shards


def pagefind_binary() -> Path | None:
    spec = importlib.util.find_spec("pagefind_bin")
    if spec is None or spec.origin is None:
        return None
    binary = Path(spec.origin).parent / "pagefind"
    return binary if binary.is_file() else None


def indexed_records(site: SiteModel) -> dict[str, tuple[Record, ...]]:
    """Per author, the records the author's search document holds: each record once, under the
    first profiled author who lists it (in site order). A paper of three profiled co-authors is
    one search result, not three, and Pagefind indexes it once (a fifth of the records at
    1,000 x 100 are listed by more than one author)."""
    first = {key: slugs[0] for key, slugs in site.record_authors.items() if slugs}
    return {a.slug: tuple(r for r in a.records if first.get(r.key, a.slug) == a.slug) for a in site.authors}


def author_document(a: Author, records: Sequence[Record], language: str, shown: int = 10,
                    people: Mapping[str, str] | None = None) -> str:
    """The HTML Pagefind indexes for an author's page (see the module docstring): the author,
    and ``records`` (``indexed_records``), each with the names its page shows (generator.byline)."""
    e = escape
    out = [_head(a.name, language), f"<h1>{e(a.name)}</h1>"]
    if a.affiliation:
        out.append(f"<p>{e(a.affiliation)}</p>")
    if a.bio_html:
        out.append(f"<div>{a.bio_html}</div>")   # sanitised when the author file was loaded
    for r in records:
        ids = [f"arXiv:{r.arxiv_id}" if r.arxiv_id else "", r.doi or "", r.journal_ref or "", str(r.year or ""),
               *r.subjects]
        out.append(f'<h3 id="{e(r.anchor)}">{e(tex_to_text(r.title))}</h3>'
                   f"<p>{e(', '.join(shown_names(r.authors, shown, people or {})))}</p><p>{e(' '.join(x for x in ids if x))}</p>")
        if r.comment:
            out.append(f"<p>{e(r.comment)}</p>")
        if r.abstract:
            out.append(f"<p>{e(tex_to_text(r.abstract))}</p>")
    out.append("</body></html>\n")
    return "".join(out)


def page_document(p: Page, language: str) -> str:
    """The HTML Pagefind indexes for a free page: its title and body, as the page shows them."""
    return f"{_head(p.title, language)}<h1>{escape(p.title)}</h1>{p.body_html}</body></html>\n"


def _head(title: str, language: str) -> str:
    return (f'<!DOCTYPE html><html lang="{escape(language)}"><head><meta charset="utf-8"><title>{escape(title)}'
            "</title></head><body data-pagefind-body>")


# Pagefind's CPU time per indexed record, in the render tasks' weight units (about 24 us each),
# measured at 1,000 x 100: 1.35 CPU-s for a shard of 5,000 records.
_WEIGHT_PER_RECORD = 11


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
        docs = [(routes.author(slug).path, functools.partial(author_document, authors[slug], records[slug], language,
                                                       site.authors_shown, site.people))
                for slug in shard.authors]
        docs += [(routes.page(name).path, functools.partial(page_document, pages[name], language))
                 for name in shard.pages]
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
