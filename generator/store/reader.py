"""The one reader of the committed cache (``content/cache/<slug>/<key>.json``), with one policy.

Build, fetch, review and check all read the cache through ``read_all``, so they agree
on what a cache file means:

- never fetched (no file): listed in ``unfetched`` ("FILE:LINE: arXiv query ..."), a normal
  state for a new author, a fresh clone or a site built offline. ``check`` says so once, in one
  list (``unfetched_warning``); a build says nothing of it (``--strict`` refuses it);
- unreadable (truncated, wrong format, malformed record): a warning naming the file, and
  the file is ignored until the next good fetch replaces it. It never takes a build down.

Entries are found by key, ``(author slug, the source kind's cache key)``, never by the
position of a source in the author file, so reordering ``sources:`` changes nothing.

Speed detail, private to this module: one load interns equal values across all files
(a co-author named on many records is one ``Person`` object, and so are subject codes
and lists, sources, and the title and abstract of a record several authors' caches
hold). At 1,000 authors x 100 records, 550,000 people objects became about a tenth as
many. The model itself knows nothing of it: ``record_json.from_json`` is plain.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Collection, Mapping, Sequence

from generator.store import cache
from generator.store.cache_records import checked_fields
from generator.config import AuthorConfig, SiteConfig, Source
from generator.config.sources import kind_of
from generator.core.model import Person, Record
from generator.core.parse_cache import ParseCache
from generator.store.record_json import json_fields


Key = tuple[str, str]          # (author slug, cache key)


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A cache file that exists but cannot be used."""

    path: str                  # relative to the site root
    reason: str

    @property
    def warning(self) -> str:
        return f"{self.path}: {self.reason}; ignoring it until the next good fetch"


@dataclass(frozen=True, slots=True)
class Store:
    """Every cache entry read, by (slug, cache key), and what could not be read."""

    entries: Mapping[Key, cache.CacheEntry] = field(default_factory=dict)
    unreadable: Mapping[Key, Unreadable] = field(default_factory=dict)
    notes: tuple[str, ...] = ()            # records of a cache file left out or changed
    unfetched: tuple[str, ...] = ()        # sources never fetched yet: "FILE:LINE: arXiv query ..."

    @property
    def warnings(self) -> tuple[str, ...]:
        """One warning per unreadable file, in the order of the authors and their sources."""
        return tuple(u.warning for u in self.unreadable.values())

    def entry(self, slug: str, source: Source) -> cache.CacheEntry | None:
        """The cached entry of one author's source (None: typed-in, never fetched, or unreadable)."""
        key = kind_of(source).cache_key(source)
        return None if key is None else self.entries.get((slug, key))

    def records(self, slug: str, source: Source) -> tuple[Record, ...]:
        """The records of the source's cache entry, () when it has none (``entry``)."""
        entry = self.entry(slug, source)
        return entry.records if entry else ()

    def problem(self, slug: str, source: Source) -> Unreadable | None:
        """Why the source's cache file could not be read, if it could not."""
        key = kind_of(source).cache_key(source)
        return None if key is None else self.unreadable.get((slug, key))

    def with_entry(self, slug: str, source: Source, entry: cache.CacheEntry) -> Store:
        """This store with one entry replaced (what a fetch has just written)."""
        key = kind_of(source).cache_key(source)
        if key is None:
            return self
        unreadable = {k: v for k, v in self.unreadable.items() if k != (slug, key)}
        return Store({**self.entries, (slug, key): entry}, unreadable, self.notes, self.unfetched)


def unfetched_warning(unfetched: Sequence[str]) -> list[str]:
    """The sources never fetched, as one warning (a list), or none: what ``check`` says of them."""
    if not unfetched:
        return []
    head = (f"{len(unfetched)} source{'s' if len(unfetched) != 1 else ''} not fetched yet; run 'authorsite fetch' "
            "(until then the site is built from the other sources):")
    return [head + "".join(f"\n  {u}" for u in unfetched)]


def read_all(config: SiteConfig, slugs: Collection[str] | None = None, *, parsed: ParseCache | None = None,
             reuse: Store | None = None, stale: Collection[Path] = (), whole_files: bool = False) -> Store:
    """Read the cache file of every fetched source of every author (or of ``slugs``) once.
    A record that cannot be one is left out with a note; with ``whole_files`` (fetch, which
    writes the files back) it makes its whole file unreadable instead.
    ``parsed``: the parsed-input cache (generator.incremental.parsed), so only files never seen are parsed.
    ``reuse``: a store read before (the preview's), whose entries are kept for every file but
    those in ``stale`` (the files the watcher saw change)."""
    reader = Reader(config, parsed, reuse, stale, whole_files)
    for a in config.authors:
        if slugs is None or a.slug in slugs:
            reader.read(a)
    return reader.store()


class Reader:
    """Reads the cache files of one author after another into one store (``read_all``; the
    build reads only the authors whose snapshot is not kept, generator.incremental.snapshot)."""

    def __init__(self, config: SiteConfig, parsed: ParseCache | None = None, reuse: Store | None = None,
                 stale: Collection[Path] = (), whole_files: bool = False, keep: bool = True) -> None:
        self.config, self.parsed, self.reuse, self.stale = config, parsed, reuse, set(stale)
        self.whole_files, self.keep = whole_files, keep
        self.entries: dict[Key, cache.CacheEntry] = {}
        self.unreadable: dict[Key, Unreadable] = {}
        self.notes: list[str] = []
        self.unfetched: list[str] = []
        self._make_record = _Interner().record

    def store(self) -> Store:
        return Store(self.entries, self.unreadable, tuple(self.notes), tuple(self.unfetched))

    def read(self, a: AuthorConfig) -> Store:
        """Read ``a``'s cache files; returns what was read of them alone (and keeps it for ``store``
        unless the reader was made with ``keep=False``)."""
        config, unreadable = self.config, self.unreadable
        entries = self.entries if self.keep else {}
        mine: list[Key] = []
        notes: list[str] = []
        unfetched: list[str] = []
        for source in a.sources:
            kind = kind_of(source)
            key = kind.cache_key(source)
            if key is None or (a.slug, key) in mine:
                continue
            mine.append((a.slug, key))
            path = cache.cache_file(config.cache_path, a.slug, source)
            assert path is not None
            if self.reuse is not None and path not in self.stale \
                    and _reused(self.reuse, (a.slug, key), entries, unreadable):
                continue
            if not path.is_file():
                unfetched.append(f"{a.path}:{source.line}: {kind.review_text(source)}")
                continue
            try:
                entry = _read_entry(path, _rel(path, config.root), self.parsed, self._make_record)
                if self.whole_files and entry.skipped:   # fetch: never write back a file with a record less
                    more = f" (and {len(entry.skipped) - 1} more)" if len(entry.skipped) > 1 else ""
                    raise ValueError(entry.skipped[0] + more)
                entries[(a.slug, key)] = entry
                rel = _rel(path, config.root)
                notes += [f"{rel}: {why}; this record is left out: correct the file, or fetch the source again"
                          for why in entry.skipped]
                notes += [f"{rel}: {why}" for why in entry.dropped]
            except ValueError as exc:
                unreadable[(a.slug, key)] = Unreadable(_rel(path, config.root), str(exc))
        self.notes += notes
        self.unfetched += unfetched
        return Store({k: entries[k] for k in mine if k in entries},
                     {k: unreadable[k] for k in mine if k in unreadable}, tuple(notes), tuple(unfetched))


def _reused(reuse: Store, key: Key, entries: dict[Key, cache.CacheEntry], unreadable: dict[Key, Unreadable]) -> bool:
    """Take what ``reuse`` read of an unchanged file; False when it holds nothing for it."""
    if key in reuse.entries:
        entries[key] = reuse.entries[key]
        return True
    if key in reuse.unreadable:
        unreadable[key] = reuse.unreadable[key]
        return True
    return False


# The record fields a cache file gives, in json_fields' order: what the parsed-input cache keeps.
_FIELDS = tuple(json_fields({"key": "", "title": ""}))
Parsed = tuple[dict[str, Any], str, tuple[tuple[Any, ...], ...], dict[str, Any]]  # (source, fetched_at, fields, marks)


def _read_entry(path: Path, name: str, parsed: ParseCache | None,
                make_record: Callable[[tuple[Any, ...]], Record]) -> cache.CacheEntry:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"unreadable cache file ({exc})") from exc
    source, fetched_at, fields, marks = _parse(raw) if parsed is None else parsed.get("cache", name, raw, _parse)
    return cache.CacheEntry(source=source, fetched_at=fetched_at, records=tuple(map(make_record, fields)), **marks)


def _parse(raw: bytes) -> Parsed:
    """A cache file's bytes as plain values (``ValueError`` when unusable, as ``cache.read_entry``).
    A record that cannot be one is left out, and said in the entry's ``skipped`` (cache_records)."""
    data = cache.decode(raw)
    records = data.get("records")
    if type(records) is not list:
        raise ValueError(f"'records' must be a list, found {type(records).__name__}")
    fields, skipped, dropped = [], [], []
    for i, r in enumerate(records):
        try:
            f, note = checked_fields(r, i)
        except ValueError as exc:
            skipped.append(str(exc))
            continue
        fields.append(tuple(f.values()))
        if note:
            dropped.append(note)
    marks = {**cache.marks(data), "skipped": tuple(skipped), "dropped": tuple(dropped)}
    return data.get("source") or {}, str(data.get("fetched_at") or ""), tuple(fields), marks


class _Interner:
    """Records made from their fields with equal values shared across one load (see the module docstring)."""

    def __init__(self) -> None:
        self._shared: dict[Any, Any] = {}

    def record(self, values: tuple[Any, ...]) -> Record:
        shared = self._shared
        f = dict(zip(_FIELDS, values))
        # keyed by plain tuples: their hash is C, a dataclass's is Python
        f["authors"] = tuple([shared.get(n) or shared.setdefault(n, Person(*n)) for n in f["authors"]])
        f["subjects"] = shared.setdefault(f["subjects"], tuple([shared.setdefault(c, c) for c in f["subjects"]]))
        for name in ("title", "abstract", "source", "primary_subject"):
            f[name] = shared.setdefault(f[name], f[name])
        return Record(**f)


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def incomplete_sources(config: SiteConfig, store: Store) -> list[str]:
    """One warning per cached source that a fetch completed only in part."""
    out = []
    for a in config.authors:
        for source in a.sources:
            entry = store.entry(a.slug, source)
            if entry is not None and entry.incomplete is not None:
                mark = entry.incomplete
                out.append(f"{a.path}:{source.line}: the cache holds only part of this source (a fetch stopped "
                           f"at {mark.next_start} of {mark.total}); run 'authorsite fetch' to complete it")
    return out
