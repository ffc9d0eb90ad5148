"""Each author's search documents kept from one build to the next, and what is kept of the last
index written, from which a rebuild patches it (generator.incremental.search_patch)."""

from __future__ import annotations

import functools
import logging
import shutil
import zlib
from array import array
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Collection, Iterator, Mapping, Sequence

from generator.incremental import search_patch
from generator.core.model import Author, Record, SiteModel
from generator.render import search_tokens
from generator.render.search_docs import TermDoc, page_key, paper_order, term_documents
from generator.incremental.search_patch import Doc, KeyList, Last, New, Stale, meta_digest
from generator.render.digest import SEARCHED

if TYPE_CHECKING:
    from generator.render.digest import Digester
    from generator.incremental.parsed import ParsedInputs

log = logging.getLogger(__name__)


class Kept:
    """Each author's documents as term sets, kept in the parsed-input cache (generator.incremental.parsed)
    from one build to the next, keyed by what they are made of: the author's slug and name,
    the digests of the records indexed under it (their content and who lists them), the names
    shown, the profiled people, the tokenizer (``search_tokens.VERSION``: terms cut by another
    rule are never reused) and whether abstracts are indexed (``keys``, made while planning, in
    the build's process). A
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
        self._buckets: dict[int, dict[str, object]] = {}   # as the last build kept them, once read
        self.hold(parsed)

    @classmethod
    def hold(cls, parsed: ParsedInputs) -> None:
        """Count every bucket as used by this build, so ``parsed.prune`` keeps them: whether the
        index runs, is reused, or is left out (``--no-search``: the next build with it finds them)."""
        for n in range(cls.BUCKETS):
            parsed.mark(cls.KIND, str(n), b"")
        parsed.mark(cls.LAST, "", b"")

    @classmethod
    def plan(cls, site: SiteModel, authored: Mapping[str, bytes], digester: Digester,
             parsed: ParsedInputs) -> Kept:
        """The documents kept, keyed by what each author's are made of: its digest in ``authored``
        (made by ``authored``) and the site's settings they read."""
        common = digester.digest((search_tokens.VERSION, site.search_abstracts, site.authors_shown, site.people,
                                  site.papers, site.paper_keys))
        return cls(parsed, {slug: common + d for slug, d in authored.items()})

    @classmethod
    def bucket(cls, slug: str) -> int:
        return zlib.crc32(slug.encode()) % cls.BUCKETS

    def stream(self, site: SiteModel, records: Mapping[str, Sequence[Record]]) -> Iterator[TermDoc]:
        """Every author's documents, the last build's where its key is unchanged: a bucket at a
        time, each written again when one of its authors changed and let go before the next (the
        documents of a whole site are not held at once: generator.render.search_runs sorts them)."""
        by_bucket: defaultdict[int, list[Author]] = defaultdict(list)
        for a in site.authors:
            by_bucket[self.bucket(a.slug)].append(a)
        for n in range(self.BUCKETS):
            old = self._buckets.pop(n, None) or self._read(n)
            made: dict[str, object] = {}
            for a in by_bucket.pop(n, ()):
                made[a.slug] = found = self._documents(site, records, a, old)
                yield from found[1]
            if made != old:
                self.parsed.put(self.KIND, str(n), b"", made)
            del old, made

    def of(self, site: SiteModel, records: Mapping[str, Sequence[Record]], slugs: Collection[str]) -> list[TermDoc]:
        """``documents`` of the authors ``slugs`` only: their buckets alone are read (and written
        again where one changed; the bucket's other authors as they were)."""
        changed: dict[int, dict[str, object]] = {}
        out: list[TermDoc] = []
        for a in site.authors:
            if a.slug in slugs:
                n = self.bucket(a.slug)
                found = self._documents(site, records, a, self._bucket(n))
                if found is not self._bucket(n).get(a.slug):
                    changed.setdefault(n, dict(self._bucket(n)))[a.slug] = found
                out += found[1]
        for n, bucket in changed.items():
            self.parsed.put(self.KIND, str(n), b"", bucket)
        return out

    def _documents(self, site: SiteModel, records: Mapping[str, Sequence[Record]], a: Author,
                   bucket: Mapping[str, object]) -> tuple[bytes, list[TermDoc]]:
        found = _entry(bucket, a.slug, self.keys[a.slug])
        return found if found is not None else (self.keys[a.slug], term_documents(site, a, records[a.slug]))

    def _bucket(self, n: int) -> dict[str, object]:
        if n not in self._buckets:
            self._buckets[n] = self._read(n)
        return self._buckets[n]

    def _read(self, n: int) -> dict[str, object]:
        hit = self.parsed.lookup(self.KIND, str(n), b"")
        return hit[0] if hit is not None and isinstance(hit[0], dict) else {}  # type: ignore[return-value]

    def patch(self, site: SiteModel, records: Mapping[str, Sequence[Record]], pages: Sequence[Doc],
              folder: Path, old: Path) -> int | None:
        """The index of ``records`` and the free ``pages`` (their documents) written into ``folder``
        by ``search_patch.patch`` of the last index in ``old``, reading only the documents of the
        authors that changed and of the papers that are new or moved; None when it cannot be
        patched (nothing is left in ``folder`` then)."""
        hit = self.parsed.lookup(self.LAST, "", b"")
        try:
            if hit is None or not isinstance(hit[0], Last):
                raise Stale("no last index kept")
            last: Last = hit[0]
            keys, owners = _order(site, records, pages)
            p = search_patch.prefix(last.keys, keys)
            slugs = {s for s in self.keys if self.keys[s] != last.authors.get(s)}
            # before reading any: with the changed authors' papers (all of them when the tokenizer
            # or search.abstracts changed, which writes the index anew at once)
            search_patch.check_moved(len(last.keys) - p + len(keys) - p + sum(len(records[s]) for s in slugs), len(keys))
            slugs.update(site.authors[i].slug for i in owners[max(p - len(pages), 0):])
            changed = self._changed(last)
            docs = dict(map(_keyed, self.of(site, records, slugs)))
            new = New(keys, functools.partial(_doc, pages, docs, keys))
            written = search_patch.patch(folder, old, last, new, changed, p)
        except (Stale, OSError, ValueError) as exc:
            log.debug("search index written anew: %s", exc)
            shutil.rmtree(folder, ignore_errors=True)
            return None
        self.keep(folder, keys, pages)
        return written

    def _changed(self, last: Last) -> dict[str, Doc]:
        """The last index's documents that may have changed: the pages', and those of each author
        whose documents' key is not the last index's (as the buckets kept them for it)."""
        out: dict[str, Doc] = dict(last.pages)
        for slug in self.keys.keys() | last.authors.keys():
            if self.keys.get(slug) == last.authors.get(slug) or slug not in last.authors:
                continue
            found = _entry(self._bucket(self.bucket(slug)), slug, last.authors[slug])
            if found is None:
                raise Stale(f"the documents of {slug} in the last index are not kept")
            out.update(map(_keyed, found[1]))
        return out

    def keep(self, folder: Path, keys: Sequence[str], pages: Sequence[Doc]) -> None:
        """Keep what the next build patches from: the index just written into ``folder``."""
        held = keys if isinstance(keys, KeyList) else KeyList(keys)
        last = Last(meta_digest(folder), held, dict(self.keys), dict(zip(held, pages)))
        self.parsed.put(self.LAST, "", b"", last)


def authored(site: SiteModel, records: Mapping[str, Sequence[Record]], digester: Digester) -> dict[str, bytes]:
    """Per author, the digest of what its documents are made of: its slug and name and the records
    indexed under it (``records``: their content and who lists them); kept in the index with the
    author over it (``Digester.kept``), so only the authors an edit touched are digested."""
    digester.renew(site)
    for a in site.authors:   # (those indexed under an author: digested from its records' kept digests)
        if records[a.slug] is not a.records:
            digester.part(records[a.slug], a.records)
    return {a.slug: digester.kept(a, SEARCHED, functools.partial(digester.digest, (a.slug, a.name, records[a.slug])))
            for a in site.authors}


def _order(site: SiteModel, records: Mapping[str, Sequence[Record]], pages: Sequence[Doc]) -> tuple[KeyList, array[int]]:
    """Every document's key in id order (the free pages', then the papers' in ``paper_order``), and
    of each paper the place in site order of the author it is indexed under."""
    keys, owners = KeyList(page_key(row) for _, row in pages), array("I")
    place = {a.slug: i for i, a in enumerate(site.authors)}
    for _, key, slug in paper_order(site, records):
        keys.append(key)
        owners.append(place[slug])
    return keys, owners


def _doc(pages: Sequence[Doc], docs: Mapping[str, Doc], keys: Sequence[str], i: int) -> Doc:
    """Document ``i``: a free page's, or a paper's of the authors read."""
    if i < len(pages):
        return pages[i]
    found = docs.get(keys[i])
    if found is None:
        raise Stale(f"document {keys[i]} was not read")
    return found


def _entry(bucket: Mapping[str, object], slug: str, key: bytes) -> tuple[bytes, list[TermDoc]] | None:
    """The documents a bucket keeps for ``slug`` when they are of ``key`` (and of the shape kept), else None."""
    found = bucket.get(slug)
    return found if isinstance(found, tuple) and len(found) == 2 and found[0] == key else None  # type: ignore[return-value]


def _keyed(d: TermDoc) -> tuple[str, Doc]:
    """A kept document by its key, as the patch takes it: (terms, row)."""
    return d[1], ((d[2], d[3]), d[4])
