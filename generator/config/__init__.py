"""Load and validate ``site.yaml``, ``content/authors/*.yaml`` and ``content/pages/*.md``.

A package split by job: ``schema`` declares every key once (type, default, bounds, help);
``check`` validates a YAML mapping against a table; ``site``, ``authors``, ``sources``,
``records`` and ``pages`` turn checked values into typed objects, and each source kind declares
its keys and value in its own module under ``kinds/`` (``kind``); ``json_schema`` and
``docs`` make the editor schema and docs/configuration.md from the same tables.
This module re-exports the public names, so ``from generator.config import load_site`` works.
"""

from __future__ import annotations

from generator.config.authors import AuthorConfig, Filters, load_authors
from generator.config.kind import Source, SourceKind
from generator.config.kinds.arxiv import ArxivSource       # the three first kinds' values, for callers of before;
from generator.config.kinds.feed import FeedSource         # a kind's value is its module's (config/kinds/)
from generator.config.kinds.records import RecordsSource
from generator.config.pages import MAX_PAGE_BYTES, PageSource, load_pages
from generator.config.records import RECORD
from generator.config.schema import (
    ARXIV_API,
    AUTHOR,
    DEFAULT_OUTPUT_DIR,
    FETCH,
    FILTERS,
    LINK_KINDS,
    LINKS,
    PAGE,
    SCHEMA_DIR,
    SITE,
    Key,
    Table,
)
from generator.config.site import FetchPolicy, SiteConfig, load_site
from generator.core.model import Link, Person, Record, record_key, title_digest

# The allowed keys of each mapping, as messages list them (derived from the tables).
SITE_KEYS = SITE.names
FETCH_KEYS = FETCH.names
AUTHOR_KEYS = AUTHOR.names
FILTER_KEYS = FILTERS.names
RECORD_KEYS = RECORD.names
PAGE_KEYS = PAGE.names

__all__ = [
    "ARXIV_API", "AUTHOR", "AUTHOR_KEYS", "DEFAULT_OUTPUT_DIR",
    "FETCH", "FETCH_KEYS", "FILTERS", "FILTER_KEYS", "LINKS", "LINK_KINDS", "MAX_PAGE_BYTES", "PAGE",
    "PAGE_KEYS", "RECORD", "RECORD_KEYS", "SCHEMA_DIR", "SITE", "SITE_KEYS",
    "ArxivSource", "AuthorConfig", "FeedSource", "FetchPolicy", "Filters", "Key", "Link", "PageSource",
    "Person", "Record", "RecordsSource", "SiteConfig", "Source", "SourceKind", "Table", "load_authors", "load_pages",
    "load_site", "record_key", "title_digest",
]
