"""A rebuild's search index, patched from the last build's: the files a clean build would
write, but only those that changed are made (at 1,000 x 100 a full index is 1.3 s of CPU and
28 MB in 801 files; one retitled paper changes a few shards and one chunk).

What the last index was is kept in the parsed-input cache (``Last``, by generator.incremental.search_kept):
the SHA-256 of its meta.json, its documents' keys in id order, each author's documents' key
(``search_kept.Kept``) and the free pages' documents. It is used only while the output's
meta.json is that one, and every file read from the output is checked against the digest
its name carries (those linked as they are too); anything else (no last index, another one,
a file changed or gone, more than ``LIMIT`` of the documents new or moved, and at least
``FLOOR``) raises ``Stale`` and the index is written anew.

Documents keep their ids from one build to the next where they can: ids run from the free
pages to the newest paper (generator.write.search), so a new paper goes at the end. The ids before
the first one that differs from the last index's (``p``) are kept; the documents from ``p``
on are taken out of the last index's postings and put in again under their new ids, and a
kept id whose document changed has its terms' postings mended. The shards holding a changed
term are cut again by the one rule (``search_index.Packer``) from the start of the first such
shard, until a cut falls where the last index cut and the shard there holds no change: from
then on the shards are the last ones, byte for byte (a cut depends on nothing before it but
the shard's start). The chunks are written again from ``p`` on and where a row changed.
"""

from __future__ import annotations

import hashlib
import os
from array import array
import re
import stat
from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import accumulate, islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import orjson

from generator.render.search_index import (CHUNK, FORMAT, MAX_SHARDS_PER_WORD, File, Packer, chunk, delta_entry, entry,
                                    order, write_files)

_NAME = re.compile(r"[0-9]+-[0-9a-f]{12}")   # a file's name in meta.json (search_index.file_name)
LIMIT, FLOOR = 0.05, 1000   # patch when at most this share (or this many) of the documents is new, moved or changed

Terms = tuple[Sequence[str], Sequence[str]]   # a document's terms: in its title, in its other text
Doc = tuple[Terms, Sequence[str]]             # its terms and its result row


class Stale(Exception):
    """The last index cannot be patched: the index is written anew."""


class KeyList(Sequence[str]):
    """Documents' keys, in id order, held as one run of UTF-8 and where each ends: the keys of an
    index of 2 million papers are 60 MB so, 150 MB as a tuple of strings (and as many objects)."""

    def __init__(self, keys: Iterable[str] = ()) -> None:
        self._text, self._ends = bytearray(), array("Q")
        for key in keys:
            self.append(key)

    def append(self, key: str) -> None:
        self._text += key.encode("utf-8", "surrogatepass")
        self._ends.append(len(self._text))

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, i: int | slice) -> Any:   # (str, or a list of them for a slice)
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = range(len(self))[i]
        start = self._ends[i - 1] if i else 0
        return self._text[start:self._ends[i]].decode("utf-8", "surrogatepass")

    def __iter__(self) -> Iterator[str]:
        start, text = 0, self._text
        for end in self._ends:
            yield text[start:end].decode("utf-8", "surrogatepass")
            start = end


@dataclass(frozen=True)
class Last:
    """What is kept of the index a build wrote (see the module's docstring)."""

    meta: str                        # SHA-256 of its meta.json, hex
    keys: Sequence[str]              # the documents' keys, in id order (a KeyList)
    authors: Mapping[str, bytes]     # slug -> the key of the author's documents (search.Kept)
    pages: Mapping[str, Doc] = field(default_factory=dict)   # a free page's key -> its document


@dataclass(frozen=True)
class New:
    """The index to write: every document's key, in id order, and each document by its id
    (``doc``), asked only for those that are new, moved or changed."""

    keys: Sequence[str]
    doc: Callable[[int], Doc]

    @classmethod
    def of(cls, keys: Sequence[str], terms: Sequence[Terms], rows: Sequence[Sequence[str]]) -> New:
        return cls(keys, lambda i: (terms[i], rows[i]))


def meta_digest(folder: Path) -> str:
    return hashlib.sha256((folder / "meta.json").read_bytes()).hexdigest()


def patch(folder: Path, old: Path, last: Last, new: New, changed: Mapping[str, Doc], p: int | None = None) -> int:
    """Write ``new`` into ``folder`` from the last index in ``old`` (which ``last`` describes);
    ``changed``: the last index's documents that may differ now, by key (those of the authors
    whose documents' key changed, and the free pages); ``p``: the ``prefix`` of the two indexes'
    keys, when the caller has it. Returns the bytes written anew."""
    meta = _meta(old, last)
    p = prefix(last.keys, new.keys) if p is None else p
    check_moved(len(last.keys) - p + len(new.keys) - p + len(changed), len(new.keys))
    adds, drops, rows = _changes(last, new, changed, p)
    firsts, shard_files = _Shards(old, meta).patched(_postings(adds, drops))
    chunks = _chunks(old, meta, new, p, rows)
    _check_kept(old, shard_files, "t")
    _check_kept(old, chunks, "d")
    return write_files(folder, len(new.keys), firsts, shard_files, chunks, old)


def _chunks(old: Path, meta: dict, new: New, p: int, rows: set[int]) -> list[File]:
    """The chunk files: the last index's where no row changed, else made again, with the rows
    of the kept ids that did not change as the last chunk holds them."""
    out: list[File] = []
    dirty = {i // CHUNK for i in rows}
    for n in range(-(-len(new.keys) // CHUNK)):
        ids = range(n * CHUNK, min(n * CHUNK + CHUNK, len(new.keys)))
        if ids[-1] < p and n not in dirty and ids.stop == min(ids[0] + CHUNK, meta["docs"]):   # the same rows
            out.append(meta["d"][n])
            continue
        kept = _read(old / "d", meta["d"][n]) if ids[0] < p else []
        if not isinstance(kept, list) or len(kept) < min(p, ids[-1] + 1) - ids[0]:
            raise Stale(f"chunk {n} of the last index is not as its meta.json says")
        out.append(chunk([new.doc(i)[1] if i >= p or i in rows else kept[i - ids[0]] for i in ids], 0))
    return out


def _read(folder: Path, name: str) -> object:
    """A file of the last index, checked against the digest its name carries."""
    return orjson.loads(_verified(folder, name))


def _verified(folder: Path, name: str) -> bytes:
    """The bytes of a file of the last index: a regular file (never a link's target) whose
    bytes have the digest its name carries."""
    path = folder / f"{name}.json"
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            raise Stale(f"{folder.name}/{name} of the last index is not a file")
        data = path.read_bytes()
    except OSError as exc:
        raise Stale(f"a file of the last index is gone: {exc}") from exc
    if name.partition("-")[2] != hashlib.sha256(data).hexdigest()[:12]:
        raise Stale(f"{folder.name}/{name} of the last index has changed")
    return data


def _check_kept(old: Path, files: Sequence[File], kind: str) -> None:
    """Every file taken from the last index as it is (linked): checked as one that is read (about
    30 ms for the 28 MB of an index at 1,000 x 100), so a file changed in the output is not
    carried into the next index."""
    for f in files:
        if isinstance(f, str):
            _verified(old / kind, f)


def _meta(old: Path, last: Last) -> dict:
    try:
        data = (old / "meta.json").read_bytes()
    except OSError as exc:
        raise Stale(f"no last index: {exc}") from exc
    if hashlib.sha256(data).hexdigest() != last.meta:
        raise Stale("the output's index is not the one kept")
    meta = orjson.loads(data)
    if (meta.get("version"), meta.get("chunk"), meta.get("words")) != (FORMAT, CHUNK, MAX_SHARDS_PER_WORD) \
            or meta.get("docs") != len(last.keys) or not meta.get("t") \
            or not all(isinstance(n, str) and _NAME.fullmatch(n) for n in (*meta["t"], *meta.get("d", ()))):
        raise Stale("the last index has another layout")
    return meta


def check_moved(moved: int, docs: int) -> None:
    """Raise ``Stale`` when writing the index anew costs less than patching ``moved`` of ``docs`` documents."""
    if moved > max(LIMIT * docs, FLOOR):
        raise Stale(f"{moved} documents new, moved or changed")


def prefix(a: Iterable[str], b: Iterable[str]) -> int:
    """The length of the common prefix of ``a`` and ``b`` (read as they come: a ``KeyList`` is never copied whole)."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


Ids = defaultdict[str, tuple[set[int], set[int]]]   # term -> (title ids, other ids)


def _changes(last: Last, new: New, changed: Mapping[str, Doc], p: int) -> tuple[Ids, Ids, set[int]]:
    """The ids to add to and take from each term's postings, and the kept ids whose row changed."""
    adds: Ids = defaultdict(lambda: (set(), set()))
    drops: Ids = defaultdict(lambda: (set(), set()))
    rows: set[int] = set()
    at = {k: i for i, k in enumerate(islice(new.keys, p)) if k in changed}
    for key, (terms, row) in changed.items():
        i = at.get(key)
        if i is None:
            continue   # in the tail, or gone
        now_terms, now_row = new.doc(i)
        if row != now_row:
            rows.add(i)
        for side in (0, 1):
            was, now = set(terms[side]), set(now_terms[side])
            for t in was - now:
                drops[t][side].add(i)
            for t in now - was:
                adds[t][side].add(i)
    by_key = {k: i for i, k in enumerate(islice(new.keys, p, None), p)} if len(last.keys) > p else {}
    for i in range(p, len(last.keys)):   # the last index's documents from p on: taken out
        key = last.keys[i]
        if key in changed:
            terms = changed[key][0]
        elif key in by_key and key not in last.pages:
            terms = new.doc(by_key[key])[0]   # an unchanged author's document, moved
        else:
            raise Stale(f"document {key} of the last index is not known")
        _mark(drops, terms, i)
    for i in range(p, len(new.keys)):
        _mark(adds, new.doc(i)[0], i)
    return adds, drops, rows


def _mark(ids: Ids, terms: Terms, i: int) -> None:
    for side in (0, 1):
        for t in terms[side]:
            ids[t][side].add(i)


def _postings(adds: Ids, drops: Ids) -> dict[str, tuple[tuple[set[int], set[int]], tuple[set[int], set[int]]]]:
    """term -> (ids to add, ids to take) of every term that changes."""
    empty: tuple[set[int], set[int]] = (set(), set())
    return {t: (adds.get(t, empty), drops.get(t, empty)) for t in adds.keys() | drops.keys()}


class _Shards:
    """The last index's term shards, read from ``old`` as the patch needs them."""

    def __init__(self, old: Path, meta: dict) -> None:
        self.old, self.names, self.firsts = old, meta["t"], meta["shards"]
        if len(self.firsts) != len(self.names):
            raise Stale("the last index has another layout")
        self._keys = [order(f) for f in self.firsts]
        self._read: dict[int, dict[str, list[list[int]]]] = {}

    def read(self, j: int) -> dict[str, list[list[int]]]:
        if j not in self._read:
            self._read[j] = self._load(self.names[j], self.firsts[j])
        return self._read[j]

    def _load(self, name: str, first: str) -> dict[str, list[list[int]]]:
        shard = _read(self.old / "t", name)
        if not isinstance(shard, dict) or not shard or next(iter(shard)) != first:
            raise Stale(f"shard {name} of the last index is not as its meta.json says")
        return shard

    def patched(self, changes: Mapping[str, tuple]) -> tuple[list[str], list[File]]:
        """The new shards' first terms and files (bytes, or the name of an unchanged one)."""
        at: defaultdict[int, list[str]] = defaultdict(list)
        for t in changes:
            key = order(t)
            j = max(bisect_right(self._keys, key) - 1, 0)
            at[j].append(t)
            if j and key == self._keys[j]:
                at[j - 1]   # a shard's first entry changed: whether it fits in the shard before it may too
        firsts: list[str] = []
        files: list[File] = []
        j = 0
        while j < len(self.names):
            if j not in at:
                firsts.append(self.firsts[j])
                files.append(self.names[j])
                j += 1
                continue
            j = self._cut(j, at, changes, firsts, files)
        return firsts, files

    def _cut(self, j: int, at: Mapping[int, list[str]], changes: Mapping[str, tuple], firsts: list[str],
             files: list[File]) -> int:
        """Cut the shards again from shard ``j`` until a cut falls on an unchanged shard's start;
        returns that shard's number (or the count: to the end)."""
        packer = Packer()
        while True:
            for term, data in _entries(self.read(j), at.get(j, ()), changes):
                packer.add(term, data)
            j += 1
            if j == len(self.names):
                break
            if j not in at and packer.cuts_before(delta_entry(self.firsts[j], self.read(j)[self.firsts[j]])):
                break
        packer.flush()
        for first, data in packer.out:
            firsts.append(first)
            files.append(data)
        return j


def _ids(deltas: list[list[int]]) -> tuple[list[int], list[int]]:
    return list(accumulate(deltas[0])), list(accumulate(deltas[1]))


def _entries(shard: Mapping[str, list[list[int]]], terms: Iterable[str],
             changes: Mapping[str, tuple]) -> list[tuple[str, bytes]]:
    """The entries of a shard of the last index with the ``changes`` of its ``terms`` made, in term order."""
    mended = {t: _mend(shard.get(t), *changes[t]) for t in terms}
    out = []
    for term in sorted(shard.keys() | mended.keys(), key=order):
        if term not in mended:
            out.append((term, delta_entry(term, shard[term])))
        elif mended[term][0] or mended[term][1]:
            out.append((term, entry(term, *mended[term])))
    return out


def _mend(deltas: list[list[int]] | None, add: tuple[set[int], set[int]],
          drop: tuple[set[int], set[int]]) -> tuple[list[int], list[int]]:
    ids = _ids(deltas) if deltas is not None else ([], [])
    return tuple(sorted(set(ids[s]).difference(drop[s]).union(add[s])) for s in (0, 1))   # type: ignore[return-value]
