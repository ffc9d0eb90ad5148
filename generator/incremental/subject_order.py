"""Each subject's records in order, kept from the last build while what orders them is unchanged.

``assemble.subjects_of`` sorts every subject's records newest first (244,000 listed at 1,000
x 100: about 0.7 s of a rebuild). What it makes depends on nothing but each author's slug, in
site order, and per record, in the author's order: its key, year, first-version date and
subjects (``order_digest``, made with each author's part, generator.incremental.snapshot). A rebuild that
changes none of them (an author's affiliation or bio, a title, an abstract) takes each
subject's records from the last build's positions, (author, record) pairs kept in the
parsed-input cache (generator.incremental.parsed: versioned by the code, checksummed, safe to delete)
under the digest of those fields; any other build sorts them anew and keeps the positions.
The records taken are this build's own objects, so a changed title is shown. Who lists each
record and the site feed's newest records (``listings``) follow from the same fields, and are
kept under the same key (with the feed's size): 0.1 s of a rebuild at 1,000 x 100.
"""

from __future__ import annotations

import hashlib
import marshal
from array import array
from operator import getitem
from typing import TYPE_CHECKING, Sequence

from generator.assemble.site import newest, record_authors, subject, subjects_of
from generator.core.model import Author, Record, Subject

if TYPE_CHECKING:
    from generator.incremental.parsed import ParsedInputs
    from generator.core.taxonomy import Taxonomy

KIND = "subject-order"
LISTINGS = "site-listings"

# Per subject, in site order: (code, the (author, record) positions of its records as a flat
# array of ints, its authors' counts).
Positions = tuple[tuple[str, bytes, tuple[tuple[str, int], ...]], ...]
Listings = tuple[dict[str, tuple[str, ...]], tuple[Record, ...]]   # (who lists each record, the newest)


def order_digest(records: Sequence[Record]) -> bytes:
    """What places an author's records in the subjects (each one's key, year, date and subjects),
    and whether each has a venue: with the keys, what the feeds' entry ids follow from
    (generator.incremental.feed_kept)."""
    fields = tuple([(r.key, r.year, r.published, r.subjects, bool(r.venue)) for r in records])
    return hashlib.sha256(marshal.dumps(fields, 2)).digest()


def subjects(authors: Sequence[Author], orders: Sequence[bytes], tax: Taxonomy,
             parsed: ParsedInputs | None) -> tuple[Subject, ...]:
    """``assemble.subjects_of(authors)``; from the last build's positions when ``orders`` (each
    author's ``order_digest``) are what they were."""
    key = site_key(authors, orders)
    if parsed is None or key is None:
        return subjects_of(authors, tax)
    hit = parsed.lookup(KIND, "site", key)
    made = _taken(hit[0], authors, tax) if hit is not None else None
    if made is None:
        made = subjects_of(authors, tax)
        parsed.put(KIND, "site", key, _positions(made, authors))
    return made


def listings(authors: Sequence[Author], orders: Sequence[bytes], feed_size: int,
             parsed: ParsedInputs | None) -> Listings:
    """(``assemble.record_authors(authors)``, ``assemble.newest(authors, feed_size)``): who lists
    each record and the site feed's records follow from what orders them too (each author's
    slug, in site order, and its records' keys, years and dates), so they are kept with the same
    key (the feed's records as (author, record) positions: this build's objects are taken)."""
    key = site_key(authors, orders)
    if parsed is None or key is None:
        return record_authors(authors), newest(authors, feed_size)
    key += b"%d" % feed_size
    hit = parsed.lookup(LISTINGS, "site", key)
    taken = _listings_taken(hit[0], authors) if hit is not None else None
    if taken is None:
        taken = record_authors(authors), newest(authors, feed_size)
        parsed.put(LISTINGS, "site", key, (taken[0], _places(taken[1], authors)))
    return taken


def _places(records: Sequence[Record], authors: Sequence[Author]) -> bytes:
    """The (author, record) position of each of ``records``, a flat array of ints."""
    where = _where(authors)
    return array("i", [n for r in records for n in where[id(r)]]).tobytes()


def _where(authors: Sequence[Author]) -> dict[int, tuple[int, int]]:
    """Each record object's (author, record) position, its first."""
    where: dict[int, tuple[int, int]] = {}
    for i, a in enumerate(authors):
        for j, r in enumerate(a.records):
            where.setdefault(id(r), (i, j))
    return where


def _at(flat: object, authors: Sequence[Author]) -> tuple[Record, ...] | None:
    """The records at the (author, record) positions of a kept flat array, or None when they
    cannot be these authors' (not an array of pairs, or out of range)."""
    pos = _ints(flat) if isinstance(flat, bytes) else None
    if pos is None:
        return None
    records = [a.records for a in authors]
    try:
        return tuple(map(getitem, map(records.__getitem__, pos[0::2]), pos[1::2]))
    except IndexError:
        return None


def _listings_taken(kept: object, authors: Sequence[Author]) -> Listings | None:
    """``listings`` from ``kept``, or None when it is not of that shape or does not fit these authors."""
    if not (isinstance(kept, tuple) and len(kept) == 2 and isinstance(kept[0], dict) and isinstance(kept[1], bytes)):
        return None
    listed, flat = kept
    if not all(type(k) is str and type(v) is tuple for k, v in listed.items()):
        return None
    newest_records = _at(flat, authors)
    return None if newest_records is None else (listed, newest_records)


def site_key(authors: Sequence[Author], orders: Sequence[bytes]) -> bytes | None:
    """The digest of each author's slug and ``order_digest``, in site order; None when one is not known."""
    if len(orders) != len(authors) or not all(orders):
        return None
    h = hashlib.sha256()
    for a, order in zip(authors, orders):
        h.update(a.slug.encode() + b"\0" + order)
    return h.digest()


def _positions(made: Sequence[Subject], authors: Sequence[Author]) -> Positions:
    where = _where(authors)
    out = []
    for s in made:
        flat = array("i", [n for r in s.records for n in where[id(r)]])
        out.append((s.code, flat.tobytes(), s.authors))
    return tuple(out)


def _taken(kept: object, authors: Sequence[Author], tax: Taxonomy) -> tuple[Subject, ...] | None:
    """The subjects from ``kept`` positions, or None when they do not fit these authors."""
    if not isinstance(kept, tuple):
        return None
    out = []
    for code, flat, counts in kept:
        cat = tax.get(code)
        listed = _at(flat, authors) if cat is not None else None
        if listed is None:
            return None
        out.append(subject(code, cat, listed, counts))
    return tuple(out)


def _ints(flat: bytes) -> array[int] | None:
    """The (author, record) pairs of a kept flat array, or None when it cannot be one."""
    pos = array("i")
    if len(flat) % pos.itemsize:
        return None
    pos.frombytes(flat)
    return None if len(pos) % 2 or min(pos, default=0) < 0 else pos
