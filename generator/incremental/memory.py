"""What the preview keeps in memory between edits (``authorsite serve``): speed only.

``LiveSite`` (generator.serve.live) runs the pipeline's own steps on each edit: ``load_config`` (or
``config.load_authors``), ``store.reader.read_all``, ``assemble.assemble_author`` and ``assemble``,
``build.plan_site``. What it may skip is decided here, and only here, from what the watcher
said changed:

- ``config``: the last configuration when only cache files changed; only the author files
  that changed parsed again when nothing but author files changed;
- ``store``: the last store when only author files changed and every author reads the sources
  it read (a name, an affiliation edited): it is what reading the cache again would give;
- ``author``: an author as assembled before, while its configuration and its cache entries are
  the very same objects;
- ``site``: the last model's site-wide parts (the subject index, who lists which record) when no
  author's records, name or aliases changed and the site's settings are the same;
- ``edited``: which authors an edit made anew, so their own pages are written first.

``serve --no-reuse`` keeps nothing (``LiveSite(reuse=False)``): every edit loads, reads,
assembles and renders the whole site, into the same bytes (tests/serve/test_serve_live.py).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Callable

from generator.assemble import feed_ids
from generator.assemble.site import assemble, assemble_author
from generator.config import load_authors

if TYPE_CHECKING:
    from generator.config import AuthorConfig, SiteConfig
    from generator.incremental.parsed import ParsedInputs
    from generator.core.model import Author, SiteModel
    from generator.store.reader import Store
    from generator.core.taxonomy import Taxonomy

_AUTHORS = "content/authors/"


class Memory:
    """The preview's last configuration, store, model and assembled authors."""

    def __init__(self) -> None:
        self.config: SiteConfig | None = None
        self.store: Store | None = None
        self.site: SiteModel | None = None
        self._authors: dict[str, tuple[AuthorConfig, tuple[object, ...], Author, str | None]] = {}

    def remember(self, config: SiteConfig, store: Store, site: SiteModel) -> None:
        self.config, self.store, self.site = config, store, site
        self._authors = {a.slug: self._authors[a.slug] for a in config.authors if a.slug in self._authors}

    def config_for(self, stale: set[str] | None, whole: bool, load: Callable[[], SiteConfig],
                   parsed: ParsedInputs | None) -> SiteConfig:
        """The configuration: ``load()`` (all of it), or only the author files that changed."""
        if whole or self.config is None or stale is None:
            return load()
        if not any(p.startswith(_AUTHORS) for p in stale):
            return self.config
        config = self.config
        authors = load_authors(config.root, parsed, {a.path: a for a in config.authors if a.path not in stale},
                               groups=config.groups)   # (as load_site reads them: 'group' is checked against them)
        return dataclasses.replace(config, authors=authors) if authors else load()   # none: reported as a build does

    def store_for(self, config: SiteConfig, stale: set[str] | None) -> Store | None:
        """The last store, when only author files changed and every author reads the sources it read."""
        old = self.config
        if stale is None or self.store is None or old is None or not all(p.startswith(_AUTHORS) for p in stale):
            return None
        if [(a.slug, a.sources) for a in config.authors] != [(a.slug, a.sources) for a in old.authors]:
            return None
        return self.store

    def author(self, a: AuthorConfig, store: Store, tax: Taxonomy, citations: str | None) -> Author:
        """``assemble_author``'s author, kept while its configuration and cache entries are the same."""
        hit = self._authors.get(a.slug)
        if hit is not None and hit[3] != citations:
            hit = None                            # site.yaml's citations setting changed: every author again
        if hit is not None and hit[0] is a and store is self.store:
            return hit[2]                         # the same configuration, reading the same cache
        entries = tuple(store.entry(a.slug, s) for s in a.sources)
        if hit is not None and len(hit[1]) == len(entries) and all(x is y for x, y in zip(hit[1], entries)) \
                and hit[0] == a:
            return hit[2]
        author = assemble_author(a, store, tax, citations)
        self._authors[a.slug] = (a, entries, author, citations)
        return author

    def site_for(self, config: SiteConfig, store: Store, tax: Taxonomy, authors: tuple[Author, ...]) -> SiteModel:
        """``assemble``'s model; its site-wide parts kept when nothing they are made of changed."""
        old, old_config = self.site, self.config
        if old is not None and old_config is not None and len(old.authors) == len(authors) \
                and dataclasses.replace(config, authors=()) == dataclasses.replace(old_config, authors=()) \
                and all(a.slug == b.slug and a.records == b.records for a, b in zip(authors, old.authors)) \
                and [(a.name, a.aliases) for a in config.authors] == [(a.name, a.aliases) for a in old_config.authors]:
            return dataclasses.replace(old, authors=authors)
        return assemble(config, store, tax, authors, feeds=feed_ids.read(config.root))

    def edited(self, site: SiteModel) -> set[str] | None:
        """The authors made anew by this update (unchanged ones are the same objects), or None when
        authors were added, removed or reordered (their files' paths are then planned anew)."""
        old = self.site
        if old is None or [a.slug for a in old.authors] != [a.slug for a in site.authors]:
            return None
        return {a.slug for a, b in zip(site.authors, old.authors) if a is not b}
