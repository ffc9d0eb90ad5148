"""What a source kind's ``fetch`` can hand back besides a plain list of records.

A paged source (an arXiv query) can end in three ways, and ``fetch`` must tell them
apart to keep the never-lose-data rule:

- complete: a plain sequence of records, or ``Fetched`` when it also knows that the
  query matched more than ``fetch.max_results`` (the cache then remembers the limit,
  so raising it later backfills);
- in part: ``PartialFetch``, a ``FetchError`` that carries the records of the complete
  pages before the page that stayed bad, and where to resume (``model.Incomplete``);
  ``fetch`` merges them, marks the cache file incomplete and reports the source failed;
- not at all: a plain ``FetchError``; the cache is left as it was.

Kinds that are not paged (feeds) keep returning a plain sequence and raising ``FetchError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from generator.core.model import Incomplete, Record
from generator.sources.http import FetchError


@dataclass(frozen=True, slots=True)
class Fetched:
    """A complete fetch, and the limit that cut it short (None: every match was fetched)."""

    records: tuple[Record, ...]
    max_results: int | None = None


class PartialFetch(FetchError):
    """The fetch stopped part-way: ``records`` are those of the complete pages before ``incomplete``."""

    def __init__(self, cause: FetchError, records: Sequence[Record], incomplete: Incomplete) -> None:
        super().__init__(cause.url, cause.reason, cause.attempts, hint=cause.hint, refused=cause.refused,
                         unresolved=cause.unresolved)
        self.records = tuple(records)
        self.incomplete = incomplete


def fetched_parts(result: Sequence[Record] | Fetched | None) -> tuple[tuple[Record, ...], int | None]:
    """(records, max_results) of whatever a kind's ``fetch`` returned."""
    if isinstance(result, Fetched):
        return result.records, result.max_results
    return tuple(result or ()), None


@dataclass(frozen=True, slots=True)
class SourceResult:
    """What ``fetch`` did with one source of one author (a row of its report)."""

    slug: str
    label: str                 # e.g. arXiv 'au:"Bin Cui"' or feed https://...
    path: str                  # the cache file, relative to the site root
    requests: int
    new: int = 0
    updated: int = 0
    records: int = 0           # in the cache after this run
    written: bool = False
    error: str | None = None
    refused: bool = False      # the API refused the query as written: a mistake in the author file
    incomplete: Incomplete | None = None   # stopped part-way: the pages before were kept
    offline: bool = False      # the host name did not resolve (no network, or a wrong address)
    had_cache: bool = True     # a cache file was there before (a failed source keeps it)
