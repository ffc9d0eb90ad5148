"""The index step: each author, once assembled, written to the index and let go; the site-wide
orders asked of it.

``Indexer`` is called with each author's part as the build makes or keeps it
(generator.incremental.snapshot.load_authors): an author whose part key the index holds already
keeps its rows (nothing of it is read), any other has its records written; either way the part
goes on with its records as an ``AuthorRecords`` of the index, so the build holds no record of
its own from then on. ``site_orders`` makes what ``assemble.site.assemble`` takes made already
(the subjects, who lists each record, the newest records) by queries, in the orders
``assemble.site`` defines (tests/index/ checks them equal).
"""

from __future__ import annotations

import dataclasses
import pickle
from collections import defaultdict
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from generator.assemble import matching
from generator.assemble.site import subject
from generator.core.model import Record, Subject
from generator.incremental import hollow
from generator.incremental.values import values_of
from generator.index import orders
from generator.index.db import Index
from generator.index.lazy import AuthorRecords, AuthorRows, Listed, PartCounts, RowRecords, SubjectRecords, one_record

if TYPE_CHECKING:
    from generator.core.taxonomy import Taxonomy


class Indexer:
    """Writes each author's records to ``index`` and gives its part back with them lazy."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def __call__(self, part: Any, key: bytes) -> Any:  # noqa: ANN401   (an AuthorPart)
        a = part.author
        where = {id(r): i for i, r in enumerate(a.records)}
        pinned = tuple(where[id(r)] for r in a.pinned)   # (assemble_author pins the author's own records)
        # (an author the index holds already comes from ``kept``, never here)
        bare = dataclasses.replace(part, author=dataclasses.replace(a, records=(), pinned=()), contents=())
        # (with the counts: how its records were matched, which data.json shows: lazy.matched)
        counts = (a.subjects, a.years, (len(a.records), matching.summary(a.records)))
        self.index.put(a.slug, key, a.records, part.contents, map(values_of, a.records),
                       pickle.dumps((bare, pinned), protocol=pickle.HIGHEST_PROTOCOL), counts)
        hollow.forget([a.records])
        return self._lazy(part, len(a.records), pinned)

    def kept(self, slug: str, key: bytes) -> Any:  # noqa: ANN401   (an AuthorPart, or None)
        """The part of the author ``slug`` made of ``key`` as the index holds it, its records the
        index's: none of them is read (nor the parsed cache's entry, whose records' fields a
        kept author would load to be let go: at 5,000 authors, 300 MB the process kept)."""
        found = self.index.kept(slug, key)
        try:
            bare, pinned = pickle.loads(found[1]) if found is not None else (None, ())
        except Exception:   # noqa: BLE001   (damaged: the author is made again, and written anew)
            return None
        if bare is None or getattr(bare.author, "slug", None) != slug or \
                not all(type(i) is int and 0 <= i < found[0] for i in pinned):   # type: ignore[index]
            return None
        return self._lazy(bare, found[0], pinned)   # type: ignore[index]

    def _lazy(self, part: Any, n: int, pinned: Sequence[int]) -> Any:  # noqa: ANN401
        a = part.author
        author = dataclasses.replace(a, records=AuthorRecords(self.index, a.slug, 0, n),
                                     pinned=RowRecords(self.index, AuthorRows(a.slug, pinned)),
                                     subjects=PartCounts(self.index, a.slug, "subjects"),
                                     years=PartCounts(self.index, a.slug, "years"))
        return dataclasses.replace(part, author=author, contents=())   # (the index holds them)


def site_orders(index: Index, slugs: Sequence[str], tax: Taxonomy,
                feed_size: int) -> tuple[tuple[Subject, ...], tuple[Mapping[str, tuple[str, ...]], tuple[Record, ...]]]:
    """(the subjects, (who lists each record, the ``feed_size`` newest records)), as
    ``assemble.site.subjects_of``, ``record_authors`` and ``newest`` make them, from ``index``
    for the authors ``slugs`` in site order."""
    index.site(slugs)
    counts = orders.derive(index, feed_size)
    out = []
    for code, n in counts.items():
        cat = tax.get(code)
        if cat is not None:
            out.append(subject(code, cat, SubjectRecords(index, code, 0, n), orders.subject_authors(index, code)))
    subjects = tuple(sorted(out, key=lambda s: (tax.group_rank(s.group), s.code.casefold())))
    newest = tuple(one_record(index, slug, pos) for slug, pos in orders.newest(index))
    return subjects, (Listed(index), newest)


def indexed_rows(index: Index, authors: Sequence[Any]) -> dict[str, Sequence[Record]]:
    """Per author, the records indexed under it for search (``render.search_docs.indexed_records``:
    each record under the first author who lists it), lazy: its own records when all are its."""
    others: dict[str, set[int]] = defaultdict(set)   # (a fifth of the records at 1,000 x 100)
    for slug, pos in index.not_first():
        others[slug].add(pos)
    out: dict[str, Sequence[Record]] = {}
    for a in authors:
        skip = others.get(a.slug)
        out[a.slug] = a.records if not skip else \
            RowRecords(index, AuthorRows(a.slug, (pos for pos in range(len(a.records)) if pos not in skip)))
    return out
