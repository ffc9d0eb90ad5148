"""The ``arxiv:`` source kind: one arXiv API query per source, cached as ``arxiv-<sha1(query)>.json``,
or a list of ids (``arxiv: {ids: [...]}``), cached as ``arxiv-ids-<sha1(ids)>.json``.

Both forms give records keyed ``arxiv:<id>``, so a paper found by a query and named by id is
one record. The paging, resuming, acceptance and parsing are ``sources.arxiv``'s (named by
``fetcher``).
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping, Sequence

from generator.config.kind import SourceKind, source_class
from generator.config.schema import Key, Table

ARXIV = Table("arxiv", (
    Key("query", "text", "an arXiv API search query, such as au:\"Bin Cui\" (give this or ids)", default=""),
    Key("ids", "arxiv_ids", "arXiv ids fetched as they are, such as papers the query misses under a name variant "
        "(quote them; give this or query)", default=()),
    Key("categories", "categories", "keep only results in these arXiv subjects", default=()),
), help="An arXiv API query, or a list of arXiv ids; 'authorsite fetch' stores the results in "
        "content/cache/SLUG/. A lone text is the query.", shorthand="query")

ArxivSource = source_class("ArxivSource", ARXIV, __name__)


class ArxivKind(SourceKind):
    schema = ARXIV
    config_type = ArxivSource
    name = "arXiv"
    heading = "an arXiv query"
    example = "{query: 'au:\"Jane Doe\"', categories: [cs.LG]}"
    fetcher = "generator.sources.arxiv:fetch"
    checker = "generator.sources.arxiv:check"

    def build(self, values: Mapping[str, Any], line: int) -> ArxivSource | None:
        if values["ids"]:     # sorted, no duplicates: the same ids in another order are the same source
            return ArxivSource(ids=tuple(sorted(set(values["ids"]))), categories=values["categories"], line=line)
        return ArxivSource(query=values["query"], categories=values["categories"], line=line) \
            if values["query"] else None

    def rule(self, values: Mapping[str, Any]) -> str | None:
        """Exactly one of query and ids (a refused id was reported already and leaves ids empty)."""
        if values["query"] and values["ids"]:
            return "has both 'query' and 'ids': give each in its own '- arxiv:' entry"
        if not values["query"] and not values["ids"]:
            return "needs 'query' (an arXiv search) or 'ids' (a list of quoted arXiv ids)"
        return None

    def cache_key(self, source: ArxivSource) -> str:
        if source.ids:
            return "arxiv-ids-" + hashlib.sha1(",".join(source.ids).encode()).hexdigest()[:10]
        return "arxiv-" + hashlib.sha1(source.query.encode()).hexdigest()[:10]

    def label(self, source: ArxivSource) -> str:
        return f"arXiv ids {_ids_text(source.ids)}" if source.ids else f"arXiv {source.query!r}"

    def description(self, source: ArxivSource) -> dict[str, Any]:
        if source.ids:
            return {"type": "arxiv", "ids": list(source.ids)}
        return {"type": "arxiv", "query": source.query}

    def review_text(self, source: ArxivSource) -> str:
        return f"arXiv ids {_ids_text(source.ids)}" if source.ids else f"arXiv query {source.query!r}"

    def match(self, source: ArxivSource) -> str:
        return "identifier:arxiv-ids" if source.ids else "name:arxiv-query"

    def categories(self, source: ArxivSource) -> tuple[str, ...]:
        return source.categories


def _ids_text(arxiv_ids: Sequence[str]) -> str:
    shown = ", ".join(arxiv_ids[:3])
    return shown + (f" and {len(arxiv_ids) - 3} more" if len(arxiv_ids) > 3 else "")


KIND = ArxivKind()
