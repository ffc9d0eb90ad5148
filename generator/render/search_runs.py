"""The search index made in runs, like an external sort: its memory bounded, not grown with the site.

Two things of a whole index used to be held at once in the render process that writes it: every
paper's document (its terms and result row) to number them, and every term's postings to cut
the term shards. At 5,000 authors x 100 records that was about 700 MB, at 20,000 it would be
near 3 GB (issue 42). Both are now made in runs:

* ``ordered``: the documents, as they come (author by author), sorted into the index's order
  (``search_docs.in_order``: date, then key from the last) in runs of at most ``DOCS`` held in
  memory; past it a run is written, sorted, to a temporary file and the runs are merged.
* ``Postings``: a document's terms added in id order. While fewer than ``RUN`` postings are held
  they stay in memory; past it the run held is written, its terms sorted, and memory starts
  again. ``sorted`` gives every term in the index's order (``search_index.order``) with its
  postings, ascending: the runs merged (a term's postings from an earlier run, which holds
  lower ids, come first).

A run's file is unlinked from the start (``tempfile.TemporaryFile``): a killed build leaves none
behind. A site smaller than a run never writes one and does what it did before, in memory; a
larger one makes the same bytes from its runs (tests/render/test_search_runs.py).
"""

from __future__ import annotations

import heapq
import pickle
import tempfile
from collections import defaultdict
from itertools import chain, groupby
from operator import itemgetter
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator, Sequence

RUN = 1_000_000   # postings held before the run is written out (about 40 MB as lists of integers)
DOCS = 50_000     # documents held before they are written out, sorted (about 1.3 KB each with their terms)
_BLOCK = 1024     # documents, or postings, pickled together in a run's file (what a merge holds of each run)

Entry = tuple[str, list[int], list[int]]   # a term, the documents with it in the title, in their other text


class _Newest:
    """A document's place in the index's order: by date, then by key from the last (keys are unique)."""

    __slots__ = ("date", "key")

    def __init__(self, doc: Sequence[Any]) -> None:
        self.date, self.key = doc[0], doc[1]

    def __lt__(self, other: _Newest) -> bool:
        return self.date < other.date if self.date != other.date else self.key > other.key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Newest) and (self.date, self.key) == (other.date, other.key)

    __hash__ = None   # type: ignore[assignment]


def in_order(docs: list[Any]) -> list[Any]:
    """Documents (date, key, ...) oldest first (date, then key from the last), sorted in place: the
    document ids after the free pages'. A new paper is most often the newest, so it takes the next
    id and the others keep theirs (generator.incremental.search_patch); search.js ranks the higher
    id first among equal scores, that is the newest paper, then the one of the first key."""
    docs.sort(key=itemgetter(1), reverse=True)
    docs.sort(key=itemgetter(0))   # stable: the key breaks ties
    return docs


def ordered(docs: Iterable[Sequence[Any]], tmp: Path | None = None) -> Iterator[Sequence[Any]]:
    """``docs`` (date, key, ...) in ``in_order``'s order, holding at most ``DOCS`` of them at a time
    (the runs' files in the folder ``tmp``, else the system's)."""
    run = DOCS
    runs: list[IO[bytes]] = []
    held: list[Any] = []
    for doc in docs:
        held.append(doc)
        if len(held) >= run:
            runs.append(_spill(in_order(held), tmp))
            held = []
    if not runs:
        yield from in_order(held)
        return
    if held:
        runs.append(_spill(in_order(held), tmp))
    del held
    try:
        yield from heapq.merge(*map(_read, runs), key=_Newest)
    finally:
        for f in runs:
            f.close()


class Postings:
    """A document's terms added in id order; every term's postings back in ``order`` (``sorted``)."""

    def __init__(self, order: Callable[[str], bytes], tmp: Path | None = None) -> None:
        self.order, self.tmp, self.run = order, tmp, RUN
        self.held = 0
        self.titles: defaultdict[str, list[int]] = defaultdict(list)
        self.others: defaultdict[str, list[int]] = defaultdict(list)
        self.runs: list[IO[bytes]] = []

    def add(self, doc: int, terms: tuple[Iterable[str], Iterable[str]]) -> None:
        """Document ``doc``'s terms (``search_index.term_sets``), ids ascending from one call to the next."""
        in_title, in_other = terms
        n = 0
        for t in in_title:
            self.titles[t].append(doc)
            n += 1
        for t in in_other:
            self.others[t].append(doc)
            n += 1
        self.held += n
        if self.held >= self.run:
            self.runs.append(_spill(self._entries(), self.tmp, _postings))
            self.titles, self.others, self.held = defaultdict(list), defaultdict(list), 0

    def sorted(self) -> Iterator[Entry]:
        """Every term in order with its postings; the runs written are read once, then closed."""
        if not self.runs:
            yield from self._entries()
            return
        if self.held:
            self.runs.append(_spill(self._entries(), self.tmp, _postings))
            self.titles, self.others, self.held = defaultdict(list), defaultdict(list), 0
        order = self.order
        try:
            merged = heapq.merge(*map(_read, self.runs), key=lambda e: order(e[0]))
            for term, same in groupby(merged, key=itemgetter(0)):
                _, title, other = next(same)
                rest = list(same)   # (the same term in later runs: higher ids. New lists: a run's
                if rest:            # empty ones are one object, as pickled)
                    title = [*title, *chain.from_iterable(e[1] for e in rest)]
                    other = [*other, *chain.from_iterable(e[2] for e in rest)]
                yield term, title, other
        finally:
            for f in self.runs:
                f.close()
            self.runs = []

    def _entries(self) -> list[Entry]:
        none: list[int] = []
        terms = sorted(self.titles.keys() | self.others.keys(), key=self.order)
        return [(t, self.titles.get(t, none), self.others.get(t, none)) for t in terms]


def _spill(items: list[Any], tmp: Path | None, size: Callable[[Any], int] = lambda _: 1) -> IO[bytes]:
    """``items`` written to a temporary file in ``tmp`` in blocks of ``_BLOCK`` at most (by
    ``size``: a term's postings count, each), read back by ``_read`` a block at a time."""
    f = tempfile.TemporaryFile(prefix="authorsite-search-", dir=tmp)
    block: list[Any] = []
    held = 0
    for item in items:
        block.append(item)
        held += size(item)
        if held >= _BLOCK:
            pickle.dump(block, f, protocol=pickle.HIGHEST_PROTOCOL)
            block, held = [], 0
    if block:
        pickle.dump(block, f, protocol=pickle.HIGHEST_PROTOCOL)
    f.seek(0)
    return f


def _postings(e: Entry) -> int:
    return len(e[1]) + len(e[2]) + 1


def _read(f: IO[bytes]) -> Iterator[Any]:
    """The items of a run's file, in its order, a block at a time."""
    while True:
        try:
            block = pickle.load(f)
        except EOFError:
            return
        yield from block
