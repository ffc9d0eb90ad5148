"""The ``feed:`` source kind: any Atom or RSS feed, cached as ``feed-<sha1(url)>.json``.

Acceptance and parsing are ``sources.feed``'s (named by ``fetcher``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Sequence

from generator.core import ids
from generator.config.kind import SourceKind, source_class
from generator.config.schema import HTTP_PATTERN, HTTP_URL, Key, Table

if TYPE_CHECKING:
    from generator.core.model import Record

FEED = Table("feed", (
    Key("url", "text", "the Atom or RSS feed's address", required=True, check=ids.safe_url, expect=HTTP_URL,
        pattern=HTTP_PATTERN),
    Key("label", "text", "the source name shown with its records", default="Feed"),
), help="An Atom or RSS feed fetched by 'authorsite fetch'.")

FeedSource = source_class("FeedSource", FEED, __name__)


class FeedKind(SourceKind):
    schema = FEED
    config_type = FeedSource
    name = "feed"
    heading = "an Atom or RSS feed"
    example = "{url: 'https://example.org/jane/feed.xml', label: Blog}"
    fetcher = "generator.sources.feed:fetch"
    checker = "generator.sources.feed:check"

    def records(self, source: FeedSource, cached: Sequence[Record]) -> tuple[Record, ...]:
        """The cached records under the feed's current label (it may have changed since the fetch)."""
        label = source.label
        return tuple(dataclasses.replace(r, source=label) if label and r.source != label else r
                     for r in cached)


KIND = FeedKind()
