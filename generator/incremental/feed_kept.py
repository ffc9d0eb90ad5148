"""The feeds' entry ids, kept from the last build while nothing they follow from changed.

``feed_ids.resolve`` reads the feeds' memory (9 MB of JSON at 1,000 x 100) and looks at the key
and venue of every record: 0.15-0.25 s of a rebuild here, for an answer that is nearly always
"as before" (no new record, none just published). That answer follows from the memory's bytes
and, per author in site order, its records' keys and whether each has a venue, all of which
``subject_order.order_digest`` covers (with more). So when the memory is unchanged and ``resolve``
left it unchanged, its answer (the ids the feeds show and the announcements) is kept in the
parsed-input cache (generator.incremental.parsed: versioned by the code, checksummed, safe to
delete) under the digest of those; a build with the same digest takes it without reading the
memory. A build whose memory changes (a new paper, one just published) resolves it in full and
keeps nothing: the next build reads the memory it wrote.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from generator.assemble.feed_ids import Announcement, FeedIds, read, resolve
from generator.core.model import Author
from generator.core.paths import FEED_MEMORY
from generator.incremental.subject_order import site_key

if TYPE_CHECKING:
    from generator.incremental.inputs import Inputs
    from generator.incremental.parsed import ParsedInputs

KIND = "feed-ids"


def feed_ids(root: Path, authors: Sequence[Author], orders: Sequence[bytes], inputs: Inputs,
             parsed: ParsedInputs, made: Callable[[], FeedIds] | None = None) -> FeedIds:
    """``feed_ids.resolve(feed_ids.read(root), authors)``, or what ``made`` makes (the same,
    over the index: generator.index.feeds), kept while the memory's bytes and each author's
    ``order_digest`` (``orders``, in site order) are what they were."""
    key = site_key(authors, orders)
    memory = inputs.file_digest(root / FEED_MEMORY)
    if key is not None and memory is not None:   # (no memory yet: the answer changes it, so none is kept)
        key += memory
        hit = parsed.lookup(KIND, "site", key)
        kept = _taken(hit[0]) if hit is not None else None
        if kept is not None:
            return kept
    answer = made() if made is not None else resolve(read(root), authors)
    if key is not None and memory is not None and not answer.changed:
        parsed.put(KIND, "site", key, (dict(answer.ids), answer.announced))
    return answer


def _taken(kept: object) -> FeedIds | None:
    """The kept answer, or None when it is not of that shape."""
    if not (isinstance(kept, tuple) and len(kept) == 2 and isinstance(kept[0], dict) and isinstance(kept[1], tuple)):
        return None
    ids, announced = kept
    if not all(type(k) is str and type(v) is str for k, v in ids.items()) \
            or not all(type(a) is Announcement for a in announced):
        return None
    return FeedIds(ids, announced)
