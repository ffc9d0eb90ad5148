"""The static search index, built by Pagefind over the finished pages, in shards.

Pagefind (PyPI ``pagefind[bin]`` ships the binary) builds the index into the
staging folder before it is swapped in, so the index always matches the pages.
It indexes author pages from a search document made from the same records
(``author_document``): the name, affiliation and bio, and per record a heading
with the record's anchor (so a hit points at the record itself), its authors,
identifiers and abstract, as plain text. Pagefind spent a third of its time on
the rest of the page (JSON-LD, MathML markup, chips, the chart) at 1,000 authors
x 100 records, and indexed MathML as a scatter of one-letter words. Free pages
are indexed as built (their ``data-pagefind-body``).

The index is split into shards of about ``SHARD_AUTHORS`` authors each, chosen by a
hash of the author's slug (so adding an author does not move the others), each a
separate Pagefind bundle under ``pagefind/<n>/``; the search page merges them in the
browser (Pagefind UI's ``mergeIndex``). Why: one Pagefind run over a large site is
the longest step of a build and its largest process (21 s and 3 GB at 1,000 authors
x 100 records), and it cannot be updated in part. Shards are indexed on every core
at once, each needs a fraction of the memory, and an incremental build re-indexes
only the shards whose pages changed.
"""

from __future__ import annotations

import importlib.util
import logging
import shutil
import subprocess
import tempfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from markupsafe import escape

from generator.errors import SiteError
from generator.latex import tex_to_text
from generator.model import Author

log = logging.getLogger(__name__)

SHARD_AUTHORS = 50


@dataclass(frozen=True, slots=True)
class Shard:
    name: str                  # folder under pagefind/
    authors: tuple[str, ...]   # author slugs whose pages it indexes
    pages: tuple[str, ...]     # free page names (all in the first shard)

    @property
    def subdir(self) -> str:
        return f"pagefind/{self.name}"

    @property
    def files(self) -> tuple[str, ...]:
        return (*(f"authors/{s}/index.html" for s in self.authors), *(f"pages/{p}/index.html" for p in self.pages))


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


def author_document(a: Author, language: str) -> str:
    """The HTML Pagefind indexes for an author's page (see the module docstring)."""
    e = escape
    out = [f'<!DOCTYPE html><html lang="{e(language)}"><head><meta charset="utf-8"><title>{e(a.name)}</title>'
           f"</head><body data-pagefind-body><h1>{e(a.name)}</h1>"]
    if a.affiliation:
        out.append(f"<p>{e(a.affiliation)}</p>")
    if a.bio_html:
        out.append(f"<div>{a.bio_html}</div>")   # sanitised when the author file was loaded
    for r in a.records:
        ids = [f"arXiv:{r.arxiv_id}" if r.arxiv_id else "", r.doi or "", r.journal_ref or "", str(r.year or "")]
        out.append(f'<h3 id="{e(r.anchor)}">{e(tex_to_text(r.title))}</h3>'
                   f"<p>{e(', '.join(p.name for p in r.authors))}</p><p>{e(' '.join(x for x in ids if x))}</p>")
        if r.abstract:
            out.append(f"<p>{e(tex_to_text(r.abstract))}</p>")
    out.append("</body></html>\n")
    return "".join(out)


def _index_shard(binary: Path, site_dir: Path, language: str, shard: Shard,
                 document: Callable[[str], str]) -> None:
    with tempfile.TemporaryDirectory(prefix="authorsite-search-") as tmp:
        docs = Path(tmp)
        for slug in shard.authors:
            dest = docs / "authors" / slug / "index.html"
            dest.parent.mkdir(parents=True)
            dest.write_text(document(slug), "utf-8")
        for name in shard.pages:
            (docs / "pages" / name).mkdir(parents=True)
            shutil.copyfile(site_dir / "pages" / name / "index.html", docs / "pages" / name / "index.html")
        cmd = [str(binary), "--site", str(docs), "--output-path", str(site_dir / shard.subdir), "--silent",
               "--force-language", language or "en"]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=False)
    if res.returncode != 0:
        raise SiteError(f"Pagefind failed on search shard {shard.name} (exit {res.returncode}): "
                        f"{res.stderr.strip()[:2000]}")


def build_index(site_dir: Path, language: str, shards: Sequence[Shard], authors: Sequence[Author],
                workers: int = 1) -> None:
    """Index the given shards of the site built in ``site_dir``, up to ``workers`` at once."""
    if not shards:
        return
    binary = pagefind_binary()
    if binary is None:
        raise SiteError("the search index needs Pagefind, which is not installed",
                        hint="pip install 'pagefind[bin]' (make site does this)")
    by_slug = {a.slug: a for a in authors}

    def document(slug: str) -> str:
        return author_document(by_slug[slug], language or "en")

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for future in [pool.submit(_index_shard, binary, site_dir, language, s, document) for s in shards]:
            future.result()
    log.debug("search index written (%d shard%s)", len(shards), "" if len(shards) == 1 else "s")
