"""What a source kind declares: the base class every kind module under ``config/kinds/`` fills in.

A source kind (an arXiv query, a feed, typed-in records, an ORCID iD, a DBLP person, an
OpenAlex author) is one entry type under an author's ``sources:``. Its module declares, in one
place: its keys (a ``schema.Table``, from which the validation, the JSON Schema, the docs and
its typed config value are made), how the checked values become that value (``build``, with
``rule`` for what no single key can say), its name in messages, ``review`` and its cache file,
and the fetch code that fills its cache (``fetcher``). ``config.kinds`` registers it by one line.

The module is read when the configuration is loaded, before anything is fetched, so it imports
nothing of the fetch stage: ``fetcher`` and ``checker`` *name* their functions ("module:function")
and ``sources.registry`` imports them when a fetch runs. So loading the configuration (and a
build, which never fetches) imports neither the HTTP client nor a parser.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence

from generator.config.schema import Table
from generator.config.typed import config_class

if TYPE_CHECKING:
    from generator.core.model import Record


class Source(Protocol):
    """A source's typed value (one per kind: ``SourceKind.config_type``), as the pipeline sees it."""

    @property
    def line(self) -> int:
        """The line of its entry in the author file."""
        ...


def source_class(name: str, table: Table, module: str) -> type:
    """The frozen config value of a kind: one attribute per key of ``table`` (keyword arguments),
    plus ``line``, the line of the entry in the author file (``typed.config_class``)."""
    return config_class(name, table, module, tail=(("line", "int", 1),),
                        doc=f"One '{table.title}' entry under an author's sources (its keys: config.kinds).")


class SourceKind:
    """One kind of source. A kind module sets the class attributes and overrides what differs."""

    schema: Table                 # its keys, under the YAML key ``schema.title``
    config_type: type             # the typed value of one entry (``source_class(...)`` made from ``schema``)
    name: str                     # how progress lines name it ("ORCID"): ``label`` is "<name> <value>"
    heading: str                  # what docs/configuration.md says it is ("an ORCID record's works")
    example: str                  # one entry's value in YAML, for the docs' example
    fetcher: str | None = None    # "module:function" fetching it (``sources.registry.fetch``); None: never fetched
    checker: str | None = None    # "module:function" refusing a setting before the first request, if any

    @property
    def key(self) -> str:
        """The YAML key under ``sources:`` ("arxiv", "feed", "records")."""
        return self.schema.title

    def ident(self, source: Any) -> str:  # noqa: ANN401
        """The value that names the source: its shorthand key's, else its first key's."""
        return str(getattr(source, self.schema.shorthand or self.schema.keys[0].name))

    # ------------------------------------------------------------------ from the checked values

    def build(self, values: Any, line: int) -> Any:  # noqa: ANN401
        """The config value of one entry's checked values (``check.read_table``; for a ``many``
        table, the list of each item's values, None where an item was refused), or None when a
        required key was refused (the problem was recorded)."""
        if any(key.required and not values[key.name] for key in self.schema.keys):
            return None
        return self.config_type(**values, line=line)

    def rule(self, values: Mapping[str, Any]) -> str | None:
        """What is wrong across the keys of one entry ("has both 'query' and 'ids'"), or None."""
        return None

    # ------------------------------------------------------------------ how the pipeline names it

    def cache_key(self, source: Any) -> str | None:  # noqa: ANN401
        """The cache file stem under content/cache/<slug>/, or None when nothing is fetched."""
        if self.fetcher is None:
            return None
        return f"{self.key}-" + hashlib.sha1(self.ident(source).encode()).hexdigest()[:10]

    def label(self, source: Any) -> str:  # noqa: ANN401
        """Short name in fetch progress lines and the summary table."""
        return f"{self.name} {self.ident(source)}"

    def review_text(self, source: Any) -> str:  # noqa: ANN401
        """How ``review`` and the cache notes name the source."""
        return self.label(source)

    def description(self, source: Any) -> dict[str, Any]:  # noqa: ANN401
        """What a cache file stores as ``source`` (a changed description rewrites the file)."""
        values = {key.name: getattr(source, key.name) for key in self.schema.keys}
        return {"type": self.key} | {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}

    def match(self, source: Any) -> str:  # noqa: ANN401
        """Why the source's records are on the author's page, as ``generator.assemble.matching`` spells it:
        ``identifier:orcid`` (the source names the author by an identifier) or ``name:arxiv-query``."""
        return f"identifier:{self.key}"

    def categories(self, source: Any) -> tuple[str, ...]:  # noqa: ANN401
        """The source's own category filter (arXiv codes), () for none."""
        return ()

    def records(self, source: Any, cached: Sequence[Record]) -> Sequence[Record]:  # noqa: ANN401
        """The records this source contributes, before the author's filters. ``cached``: the records of
        its cache file (``Store.records``), () when it has none."""
        return cached
