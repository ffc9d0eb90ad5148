"""The source kinds: one protocol, one class per kind, found here by config type or YAML key.

A source kind (an arXiv query, a feed, typed-in records, an ORCID iD, a DBLP person,
an OpenAlex author) is everything the rest of the pipeline needs to know about one kind of
entry under an author's ``sources:``: its YAML key and schema, the cache file it
is kept in, how it is named in messages and in ``review``, how it is fetched, and
which records it contributes. Build, fetch, review, check and lint ask the kind
(``kind_of(source)``) and never switch over source types themselves, so a new kind
is one new module plus one line in ``BUILT_IN`` below.

Kinds are looked up by ``type(source)``, not ``isinstance``: every config dataclass
has exactly one kind. The kind modules import their fetching code (httpx, feedparser)
only inside ``check``/``fetch``, so a build, which never fetches, does not pay for
importing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence

from generator.sources.arxiv_kind import ArxivKind
from generator.sources.dblp_kind import DblpKind
from generator.sources.feed_kind import FeedKind
from generator.sources.openalex_kind import OpenAlexKind
from generator.sources.orcid_kind import OrcidKind
from generator.sources.records import RecordsKind

if TYPE_CHECKING:
    from generator.cache import CacheEntry
    from generator.config import FetchPolicy
    from generator.config.schema import Table
    from generator.model import Record
    from generator.sources.http import HttpClient
    from generator.sources.outcome import Fetched


@dataclass(frozen=True, slots=True)
class FetchContext:
    """What a kind's ``fetch`` may use: the one shared HTTP client, the site's fetch policy,
    the environment (``ARXIV_API_URL`` and the like), and the source's cache entry."""

    client: HttpClient
    policy: FetchPolicy
    environ: Mapping[str, str]
    entry: CacheEntry | None = None     # the source's cache entry, per source (where a paged fetch stopped)


class SourceKind(Protocol):
    """One kind of source. ``source`` is always an instance of ``config_type``."""

    key: str                  # the YAML key under sources: ("arxiv", "feed", "records")
    config_type: type         # the config dataclass this kind handles

    @property
    def schema(self) -> Table:
        """The config table declaring the keys under ``key`` (validation, the JSON Schema and the
        docs are derived from it); sources.kindbase.KindBase gives it."""
        ...

    def cache_key(self, source: Any) -> str | None:  # noqa: ANN401
        """The cache file stem under content/cache/<slug>/, or None when nothing is fetched."""
        ...

    def label(self, source: Any) -> str:  # noqa: ANN401
        """Short name in fetch progress lines and the summary table."""
        ...

    def description(self, source: Any) -> dict[str, Any]:  # noqa: ANN401
        """What a cache file stores as ``source`` (a changed description rewrites the file)."""
        ...

    def review_text(self, source: Any) -> str:  # noqa: ANN401
        """How ``review`` and the cache notes name the source."""
        ...

    def categories(self, source: Any) -> tuple[str, ...]:  # noqa: ANN401
        """The source's own category filter (arXiv codes), () for none."""
        ...

    def match(self, source: Any) -> str:  # noqa: ANN401
        """Why the source's records are on the author's page, as ``generator.matching`` spells it:
        ``identifier:orcid`` (the source names the author by an identifier) or ``name:arxiv-query``."""
        ...

    def check(self, source: Any, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:  # noqa: ANN401
        """Refuse a setting that must not be fetched (too fast for arXiv) before the first request."""
        ...

    def fetch(self, source: Any, context: FetchContext,  # noqa: ANN401
              cached: Sequence[Record]) -> Sequence[Record] | Fetched | None:
        """The records fetched now (given those cached); None for a kind that is not fetched.
        Raises ``sources.http.FetchError`` when the source cannot be fetched (``sources.outcome``:
        ``Fetched`` and ``PartialFetch`` for a paged source)."""
        ...

    def records(self, source: Any, entry: CacheEntry | None) -> tuple[Record, ...]:  # noqa: ANN401
        """The records this source contributes, before the author's filters."""
        ...


BUILT_IN: tuple[SourceKind, ...] = (ArxivKind(), FeedKind(), RecordsKind(), OrcidKind(), DblpKind(), OpenAlexKind())

# The lookup tables: filled once from BUILT_IN; ``register`` exists for tests and is not a plugin system.
_BY_TYPE: dict[type, SourceKind] = {}
_BY_KEY: dict[str, SourceKind] = {}


def register(kind: SourceKind) -> None:
    """Add a kind; its YAML key and config type must be new."""
    if kind.key in _BY_KEY or kind.config_type in _BY_TYPE:
        raise ValueError(f"a source kind for {kind.key!r} / {kind.config_type.__name__} is already registered")
    _BY_KEY[kind.key] = kind
    _BY_TYPE[kind.config_type] = kind


def unregister(kind: SourceKind) -> None:
    """Remove a kind added with ``register`` (a test's clean-up)."""
    if _BY_KEY.get(kind.key) is kind:
        del _BY_KEY[kind.key]
        del _BY_TYPE[kind.config_type]


def kind_of(source: object) -> SourceKind:
    """The kind that handles this config value."""
    try:
        return _BY_TYPE[type(source)]
    except KeyError:
        raise TypeError(f"no source kind handles {type(source).__name__}") from None


def kind_for_key(key: str) -> SourceKind:
    """The kind of a YAML key under ``sources:`` (KeyError if there is none)."""
    return _BY_KEY[key]


def kinds() -> tuple[SourceKind, ...]:
    """Every registered kind, built-in ones first."""
    return tuple(_BY_KEY.values())


for _kind in BUILT_IN:
    register(_kind)
