"""Each author as the last build assembled it, kept by the content of what it was made from.

Reading the cache and assembling are most of what a rebuild of a large site costs (at 1,000
authors x 100 records: 210 MB of cache JSON, 100,000 records made, filtered, merged and
sorted, then digested for the jobs). An author's assembled value (``assemble_author``) depends
on nothing but its author file's configuration, the bytes of its cache files and the code, so
it is kept, with the warnings its cache files gave and the content digest of each of its
records (``generator.render.digest.Digester.content``), as one entry of the parsed-input cache
(generator.incremental.parsed: content-keyed, versioned by the code, checksummed, written atomically, safe
to delete). A build takes every author whose key is unchanged from there, and reads the cache
files of the others only: editing one author reads one author's cache.

The key is the canonical digest of the author's configuration (``AuthorConfig``: every key of
its file, its typed-in records, its photo's digest), the site's ``citations`` setting and, per
source, the SHA-256 of its cache file as ``inputs.read_inputs`` read it at the start of the
build (never a file date: a fresh clone with ``.authorsite/`` restored finds every entry).
The site-wide parts of the model (who lists which record, subjects, people) are made again
from the authors on every build (generator.assemble.site): they are cheap next to the authors.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import logging
import os
import pickle
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

from generator.store import cache

from generator.assemble.site import assemble_author
from generator.core.errors import SiteError
from generator.incremental import hollow
from generator.incremental.subject_order import order_digest
from generator.incremental.values import values_of
from generator.render.digest import Digester
from generator.core.model import Author, Record
from generator.core.processes import fork_helper, stop_helper
from generator.store.reader import Reader, incomplete_sources
from generator.core.taxonomy import load_taxonomy

if TYPE_CHECKING:
    from generator.config import AuthorConfig, SiteConfig
    from generator.incremental.inputs import Inputs
    from generator.incremental.parsed import ParsedInputs
    from generator.store.reader import Store

log = logging.getLogger(__name__)

FORMAT = 3   # 2: records kept apart, loaded hollow (generator.incremental.hollow); 3: Author.matched
KIND = "assembled-author"
RECORDS = "assembled-records"   # every field of a kept author's records, read when first used
DIGESTS = "author-digests"   # the entry of every author's job digests (Authors.keep_digests)


# slug -> (part key, listings' digest, its records' digests joined, its encoding): Authors.keep_digests;
# and _LISTED -> (Digester.listed, b"", b"", b"")
Kept = Mapping[str, tuple[bytes, bytes, bytes, bytes]]
Then = Callable[["AuthorPart", bytes], "AuthorPart"]   # load_authors' ``then``
_LISTED = ""   # (no author's slug)


@dataclass(frozen=True, slots=True)
class AuthorPart:
    """One author assembled, with what its cache files gave besides records."""

    author: Author
    contents: tuple[bytes, ...]       # Digester.content of each of author.records, in order
    unreadable: tuple[str, ...] = ()  # the warnings of its cache files that cannot be read
    notes: tuple[str, ...] = ()       # its cache files' records left out or changed
    unfetched: tuple[str, ...] = ()   # its sources never fetched (a build says nothing of them)
    incomplete: tuple[str, ...] = ()  # its sources fetched only in part
    order: bytes = b""                # subject_order.order_digest of author.records


@dataclass(frozen=True, slots=True)
class Authors:
    """Every author of a site, in order, and the warnings a build logs (``check.site_warnings``' order)."""

    parts: tuple[AuthorPart, ...]
    assembled: int                    # how many were assembled now (the others came from their snapshot)
    keys: tuple[bytes, ...] = ()      # each part's key (part_key), in order

    @property
    def authors(self) -> tuple[Author, ...]:
        return tuple(p.author for p in self.parts)

    @property
    def warnings(self) -> list[str]:
        return [*(w for p in self.parts for w in p.unreadable), *(w for p in self.parts for w in p.notes),
                *(w for p in self.parts for w in p.incomplete)]

    @property
    def unfetched(self) -> list[str]:
        return [u for p in self.parts for u in p.unfetched]

    def seed(self, digester: Digester, parsed: ParsedInputs | None = None) -> Kept:
        """Give ``digester``, from ``parsed``, the digests the last build made of each author and its
        records where they still hold (the author's part key and its records' listings,
        ``Digester.listing``, are the same), and the content digests of the other authors'
        records. Returns what ``parsed`` held (for ``keep_digests``)."""
        last = _kept_digests(parsed)
        listed = last.get(_LISTED)
        same = listed is not None and listed[0] == digester.listed()   # then every author's listing too
        taken = 0
        for part, key in zip(self.parts, self.keys):
            e = last.get(part.author.slug)
            if e is not None and e[0] == key and (same or e[1] == digester.listing(part.author.records)):
                digester.keep(part.author, part.author.records, (e[2], e[3]))
                taken += 1
            else:   # (a kept author's records need no content digest: theirs are kept whole)
                digester.seed(part.author.records, part.contents)
        log.debug("job digests: %d authors' kept from the last build", taken)
        return last

    def keep_digests(self, digester: Digester, parsed: ParsedInputs, last: Kept) -> None:
        """Keep what ``digester`` made of each author and its records (after planning) for the next
        build's ``seed``: one entry for the site, keyed by each author's part key and listings."""
        kept: dict[str, tuple[bytes, bytes, bytes, bytes]] = {}
        for part, key in zip(self.parts, self.keys):
            known = digester.known(part.author, part.author.records)
            if known is None:
                continue
            e = last.get(part.author.slug)
            if e is not None and e[0] == key and (e[2], e[3]) == known:
                kept[part.author.slug] = e   # its records' digests, which hold their listings, are the same
            else:
                kept[part.author.slug] = (key, digester.listing(part.author.records), *known)
        kept[_LISTED] = (digester.listed(), b"", b"", b"")
        if kept != last:
            parsed.put(DIGESTS, "site", b"", kept)


def _kept_digests(parsed: ParsedInputs | None) -> Kept:
    """The last build's digests of each author (``Authors.keep_digests``): slug -> (part key,
    listings' digest, its records' digests joined, its encoding); empty when there are none."""
    hit = parsed.lookup(DIGESTS, "site", b"") if parsed is not None else None
    return hit[0] if hit is not None and isinstance(hit[0], dict) else {}  # type: ignore[return-value]


def part_key(a: AuthorConfig, config: SiteConfig, inputs: Inputs, canon: Digester) -> bytes:
    """What an author's part is made of: its configuration, the site's citations setting and
    the digest of each of its cache files (or that there is none). The configuration is known
    by the digest of its author file's bytes and the site's groups, from which it is parsed
    (config.authors), when it names no photo (whose file is read too); else by its value
    (1,000 configurations digested cost a rebuild 40 ms)."""
    h = hashlib.sha256(f"{FORMAT}\0{config.citations!r}\0".encode())
    # (strings, not Path joins: 5,000 of them cost a rebuild 15 ms)
    source = inputs.files.get(os.path.join(config.root, a.path)) if a.photo is None else None
    h.update(b"file:" + source + json.dumps(config.groups).encode() if source is not None else canon.digest(a))
    folder = str(config.cache_path)
    for s in a.sources:
        rel = cache.cache_rel(a.slug, s)
        path = None if rel is None else os.path.join(folder, rel)
        digest = b"typed-in" if path is None else inputs.file_digest(path) or b"none"
        h.update(b"\0" + digest)
    return h.digest()


def load_authors(config: SiteConfig, inputs: Inputs, parsed: ParsedInputs, workers: int = 1,
                 then: Then | None = None, kept: Callable[[str, bytes], AuthorPart | None] | None = None) -> Authors:
    """Every author's part: kept when its key is unchanged, else assembled from its cache files,
    which are read now (only those). With ``workers`` > 1 and many authors to make, a forked
    process makes a share of them meanwhile (``_share``). ``then``: given each part and its key
    as it is found, gives the part the build holds (the index's: generator.index.site.Indexer);
    ``kept``: given an author's slug and key, its part as kept elsewhere (the index), if it is."""
    canon = Digester()
    keys = [part_key(a, config, inputs, canon) for a in config.authors]
    found: list[AuthorPart | None] = []
    then = then or _as_is
    try:
        for a, key in zip(config.authors, keys):
            part = kept(a.slug, key) if kept is not None else None
            if part is not None:   # (its entries are this build's all the same: prune keeps them)
                parsed.mark(KIND, a.slug, key)
                parsed.mark(RECORDS, a.slug, key)
                found.append(part)
                continue
            hit = parsed.lookup(KIND, a.slug, key)
            part = _taken(hit[0], config, a, key, parsed) if hit is not None else None
            found.append(then(part, key) if part is not None else None)
        todo = [(i, config.authors[i], keys[i]) for i, p in enumerate(found) if p is None]
        # The cache files of the authors made now are parsed, not kept parsed: the part made of them
        # is kept, and parsing one (1.6 ms at 100 records) is what a pickled copy would save; a cold
        # build of 1,000 authors saved 150 MB of pickles that the next build pruned unread.
        # Given ``kept`` (the index), helpers make all of them, one a core, and write them where
        # ``kept`` finds them (``then`` does): the build's process makes none, so it never holds
        # (nor leaves its memory in pieces with) the records of any.
        share, helpers = (_MAIN_SHARE, 1) if kept is None else (0, workers)
        helped = todo[len(todo) * share // 100:] if workers > 1 and len(todo) >= _SHARE_FROM else []
        slices = [[(a, key) for _, a, key in helped[k::helpers]] for k in range(helpers)]
        with _share(config, slices, parsed, then if kept is not None else None) as wait:
            _make(config, todo[:len(todo) - len(helped)], found, parsed, then)
            wait()
        for i, a, key in helped:   # from the helper's entries; any it did not make, here
            found[i] = kept(a.slug, key) if kept is not None else None
            if found[i] is not None:
                continue
            hit = parsed.lookup(KIND, a.slug, key, count=False)
            part = _taken(hit[0], config, a, key, parsed) if hit is not None else None
            found[i] = then(part, key) if part is not None else None
        _make(config, [t for t in todo if found[t[0]] is None], found, parsed, then)
    except BaseException:   # the hollow records loaded so far are let go (generator.incremental.hollow)
        hollow.forget([p.author.records for p in found if p is not None])
        raise
    log.debug("authors: %d kept from the last build, %d assembled", len(found) - len(todo), len(todo))
    return Authors(tuple(found), len(todo), tuple(keys))   # type: ignore[arg-type]


# A cold build of 1,000 x 100 assembles for ~7.7 s in one process before anything renders: from
# this many authors to make, a forked process makes the last (100 - _MAIN_SHARE)% of them. The
# build's process then loads them from their entries (~1.3 ms an author against ~7.7 ms to make
# one, pickled and written), hence the larger share for the helper.
_SHARE_FROM = 40
_MAIN_SHARE = 48


def _make(config: SiteConfig, todo: Sequence[tuple[int, AuthorConfig, bytes]], found: list[AuthorPart | None],
          parsed: ParsedInputs, then: Then | None = None) -> None:
    """Make the parts of ``todo`` (index, author, key) into ``found`` (each as ``then`` gives it
    back), and keep each in ``parsed``; not when ``then`` writes them to the index, which the next
    build reads them from (``Indexer.kept``): pickling the records a second time cost 2 ms an
    author of 14 at 5,000 x 100, and as many bytes again on disk. (An index made anew reads
    its authors' cache files again then.)"""
    if not todo:
        return
    # (each author's entries let go once its part is made: its records are copies, with their reason)
    # A reader shares equal values (a title, an abstract, a person) across what it reads: worth it
    # only while the parts it made are held together (``then`` gives them back as they are, the
    # build in memory). A helper, or the index, lets each author's records go once they are kept,
    # and one reader for all would keep every title and abstract it read: at 20,000 x 100 each of
    # the two helpers grew to 1.5 GB so. There, a reader an author.
    shared = Reader(config, keep=False) if then is None or then is _as_is else None
    tax = load_taxonomy()
    for i, a, key in todo:
        reader = shared if shared is not None else Reader(config, keep=False)
        # (a digester an author: one for all would hold every record made, as its memo keys them)
        part = make_part(config, a, reader.read(a), tax, Digester())
        if not _indexes(then):
            _keep(parsed, a.slug, key, part)
        found[i] = (then or _as_is)(part, key)


def _indexes(then: Then | None) -> bool:
    """Whether ``then`` writes each part to the index (``Indexer``): the build's own
    ``_as_is`` and a helper's ``_none`` do not."""
    return then is not None and then is not _as_is and then is not _none


def _as_is(part: AuthorPart, key: bytes) -> AuthorPart:
    return part


def _none(part: AuthorPart, key: bytes) -> None:
    return None


@dataclass(frozen=True, slots=True)
class _Kept:
    """An author's part as the parsed cache keeps it: the author without its records, the
    ``hollow.row`` of each record, and the place of each pinned record among them. Every field
    of the records is the entry ``RECORDS`` of the same key, read when one is first used."""

    part: AuthorPart
    rows: tuple[tuple[Any, ...], ...]
    pinned: tuple[int, ...]


def _keep(parsed: ParsedInputs, slug: str, key: bytes, part: AuthorPart) -> None:
    """Keep ``part`` for the next build as ``_Kept`` and its records' entry (first: a reader that
    finds the part finds its records), or whole in the case that cannot be kept so."""
    a = part.author
    where = {id(r): i for i, r in enumerate(a.records)}
    pinned = tuple(where.get(id(r), -1) for r in a.pinned)
    if -1 in pinned:   # (assemble_author pins the author's own records: never so) kept whole
        parsed.put(KIND, slug, key, part)
        return
    parsed.put(RECORDS, slug, key, _pickled(a.records))
    bare = dataclasses.replace(part, author=dataclasses.replace(a, records=(), pinned=()))
    parsed.put(KIND, slug, key, _Kept(bare, tuple(map(hollow.row, a.records)), pinned))


def _taken(value: object, config: SiteConfig, a: AuthorConfig, key: bytes, parsed: ParsedInputs) -> AuthorPart | None:
    """The part kept as ``value`` (``_keep``), its records hollow; None when it is not one."""
    if isinstance(value, AuthorPart):
        return value
    if not isinstance(value, _Kept) or not isinstance(value.part, AuthorPart) or \
            not all(isinstance(i, int) and 0 <= i < len(value.rows) for i in value.pinned):
        return None
    parsed.mark(RECORDS, a.slug, key)   # read by whichever process first uses them: kept
    records = hollow.hollow(value.rows, functools.partial(_records, config, a, key, parsed, value.rows))
    author = dataclasses.replace(value.part.author, records=records, pinned=tuple(records[i] for i in value.pinned))
    return dataclasses.replace(value.part, author=author)


def _pickled(records: Sequence[Record]) -> tuple[bytes, ...]:
    """The records' entry: each one's ``values_of`` pickled alone, so a page that shows one
    record of an author unpickles that one (generator.incremental.hollow)."""
    return tuple(pickle.dumps(values_of(r), protocol=pickle.HIGHEST_PROTOCOL) for r in records)


def _records(config: SiteConfig, a: AuthorConfig, key: bytes, parsed: ParsedInputs,
             rows: tuple[tuple[Any, ...], ...]) -> Sequence[tuple[Any, ...] | bytes]:
    """The ``values_of`` of the records of a kept author (``_taken``), each pickled: from
    their entry, else (deleted or damaged since) from its cache files, assembled again and kept
    anew. (Had those files changed since the build read their digests, with the same five fields,
    this build would show their new text under the old digests; the next one, keyed by their new
    digest, not.)"""
    hit = parsed.lookup(RECORDS, a.slug, key, count=False)
    if hit is not None and isinstance(hit[0], tuple) and len(hit[0]) == len(rows) \
            and all(type(b) is bytes for b in hit[0]):
        return hit[0]
    log.debug("%s: its kept records are gone; assembled again", a.slug)
    records = make_part(config, a, Reader(config).read(a), load_taxonomy(), Digester()).author.records
    values = tuple(map(values_of, records))
    if not _fit(values, rows):
        raise SiteError(f"the cache files of author '{a.slug}' changed while the site was being built",
                        path=a.path, hint="build again")
    parsed.put(RECORDS, a.slug, key, _pickled(records))
    return values


def _fit(values: object, rows: tuple[tuple[Any, ...], ...]) -> bool:
    """Whether ``values`` are ``values_of`` of records whose ``hollow.row`` are ``rows``."""
    return (isinstance(values, tuple) and len(values) == len(rows)
            and all(type(v) is tuple and len(v) == hollow.VALUES and hollow.row_of(v) == r for v, r in zip(values, rows)))


@contextlib.contextmanager
def _share(config: SiteConfig, todos: list[list[tuple[AuthorConfig, bytes]]], parsed: ParsedInputs,
           then: Then | None = None) -> Iterator[Callable[[], None]]:
    """Make and keep the parts of each of ``todos`` in a forked process of its own while the
    caller makes its own; the body calls the function it is given to wait for them. Only an
    accelerator: the caller loads what the helpers kept, and makes whatever they did not (a
    failed or killed helper, no fork, a cache that is not written), so every error is reported by
    the build's process, as without them. Leaving early (an error, a signal) stops them."""
    # (a helper keeps each part in ``parsed``, and gives it to ``then``; it holds none of
    # them: the caller loads them from there)
    pids = [fork_helper(functools.partial(_make, config, [(i, a, key) for i, (a, key) in enumerate(todo)],
                                          [None] * len(todo), parsed, then or _none))
            for todo in todos if todo and parsed.write]

    def wait() -> None:
        for i, pid in enumerate(pids):
            if pid > 0:
                os.waitpid(pid, 0)
                pids[i] = -1

    try:
        yield wait
    finally:
        for pid in pids:
            stop_helper(pid)


def make_part(config: SiteConfig, a: AuthorConfig, store: Store, tax: object, contents: Digester) -> AuthorPart:
    """One author assembled from ``store`` (what was read of its cache files)."""
    author = assemble_author(a, store, tax, config.citations)  # type: ignore[arg-type]
    return AuthorPart(
        author=author, contents=tuple(contents.content(r) for r in author.records), order=order_digest(author.records),
        unreadable=store.warnings, notes=store.notes, unfetched=store.unfetched,
        incomplete=tuple(incomplete_sources(dataclasses.replace(config, authors=(a,)), store)))
