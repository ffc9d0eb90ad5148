"""The ``sources:`` list of an author file: one entry per source, each of one kind.

``SOURCE_SCHEMAS`` maps each kind's YAML key (``arxiv``, ``feed``, ``records``) to the
table of its keys; the source registry points at it, the JSON Schema and the docs page
are made from it. ``read_sources`` checks the list and builds one source value per entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from generator import ids
from generator.config.check import Checker, describe, read_table
from generator.config.records import RECORD, to_record
from generator.config.schema import HTTP_PATTERN, HTTP_URL, Key, Table
from generator.model import Record
from generator.yamlfile import YList, YMap

ARXIV = Table("arxiv", (
    Key("query", "text", "an arXiv API search query, such as au:\"Bin Cui\" (give this or ids)", default=""),
    Key("ids", "arxiv_ids", "arXiv ids fetched as they are, such as papers the query misses under a name variant "
        "(quote them; give this or query)", default=()),
    Key("categories", "categories", "keep only results in these arXiv subjects", default=()),
), help="An arXiv API query, or a list of arXiv ids; 'authorsite fetch' stores the results in "
        "content/cache/SLUG/. A lone text is the query.", shorthand="query")

FEED = Table("feed", (
    Key("url", "text", "the Atom or RSS feed's address", required=True, check=ids.safe_url, expect=HTTP_URL,
        pattern=HTTP_PATTERN),
    Key("label", "text", "the source name shown with its records", default="Feed"),
), help="An Atom or RSS feed fetched by 'authorsite fetch'.")

SOURCE_SCHEMAS: dict[str, Table] = {"arxiv": ARXIV, "feed": FEED, "records": RECORD}


@dataclass(frozen=True, slots=True)
class ArxivSource:
    query: str = ARXIV.default("query")            # a search; or
    categories: tuple[str, ...] = ARXIV.default("categories")
    line: int = 1
    ids: tuple[str, ...] = ARXIV.default("ids")    # papers named by id (sorted, no duplicates)


@dataclass(frozen=True, slots=True)
class FeedSource:
    url: str
    label: str = FEED.default("label")
    line: int = 1


@dataclass(frozen=True, slots=True)
class RecordsSource:
    records: tuple[Record, ...]
    line: int = 1


Source = ArxivSource | FeedSource | RecordsSource


def _arxiv(v: dict[str, Any], line: int) -> ArxivSource | None:
    if v["ids"]:
        return ArxivSource(ids=tuple(sorted(set(v["ids"]))), categories=v["categories"], line=line)
    return ArxivSource(query=v["query"], categories=v["categories"], line=line) if v["query"] else None


def _arxiv_rule(v: dict[str, Any]) -> str | None:
    """Exactly one of query and ids (a refused id was reported already and leaves ids empty)."""
    if v["query"] and v["ids"]:
        return "has both 'query' and 'ids': give each in its own '- arxiv:' entry"
    if not v["query"] and not v["ids"]:
        return "needs 'query' (an arXiv search) or 'ids' (a list of quoted arXiv ids)"
    return None


def _feed(v: dict[str, Any], line: int) -> FeedSource | None:
    return FeedSource(url=v["url"], label=v["label"], line=line) if v["url"] else None


_BUILD: dict[str, Callable[[Any, int], Source | None]] = {"arxiv": _arxiv, "feed": _feed}
_RULES: dict[str, Callable[[dict[str, Any]], str | None]] = {"arxiv": _arxiv_rule}   # across keys of one entry


def read_sources(ck: Checker, m: YMap, key: Key, where: str) -> tuple[Source, ...]:
    """The author's ``sources`` list (a ``check.read_table`` reader for the type ``sources``)."""
    if key.name not in m or m[key.name] is None:
        return ()
    seq = m[key.name]
    if not isinstance(seq, YList):
        ck.err(m.lines[key.name], f"'{key.name}' must be a list (lines starting with '- '), found {describe(seq)}")
        return ()
    out = []
    for i, item in enumerate(seq):
        src = _read_entry(ck, item, f"{key.name}[{i}]", seq.lines[i])
        if src is not None:
            out.append(src)
    return tuple(out)


def _read_entry(ck: Checker, item: Any, where: str, line: int) -> Source | None:  # noqa: ANN401
    sm = ck.mapping(item, where, line)
    if sm is None:
        return None
    names = tuple(SOURCE_SCHEMAS)
    kinds = [k for k in sm if k in SOURCE_SCHEMAS]
    ck.keys(sm, names, where)
    if len(kinds) != 1:
        one_of = ", ".join(names)
        if len(sm) and not [k for k in sm if k not in SOURCE_SCHEMAS]:
            ck.err(sm.line, f"'{where}' must have exactly one of {one_of}; found {', '.join(map(str, kinds))}")
        elif not sm:
            ck.err(sm.line, f"'{where}' is empty: give one of {one_of}")
        return None
    kind = kinds[0]
    return _read_kind(ck, kind, sm[kind], f"{where}.{kind}", sm.lines[kind])


def _read_kind(ck: Checker, kind: str, value: Any, where: str, line: int) -> Source | None:  # noqa: ANN401
    table = SOURCE_SCHEMAS[kind]
    if table.many:
        if not isinstance(value, YList):
            ck.err(line, f"'{where}' must be a list of {kind}, found {describe(value)}")
            return None
        found = (_read_one(ck, item, table, f"{where}[{i}]", value.lines[i]) for i, item in enumerate(value))
        records = (to_record(v, i) if v is not None else None for i, v in enumerate(found))
        return RecordsSource(records=tuple(r for r in records if r is not None), line=line)
    seen = len(ck.problems)
    values = _read_one(ck, value, table, where, line)
    if values is None:
        return None
    rule = _RULES.get(kind)
    broken = rule(values) if rule else None
    if broken and len(ck.problems) == seen:     # not again when its keys were refused already
        ck.err(line, f"'{where}' {broken}")
    return None if broken else _BUILD[kind](values, line)


def _read_one(ck: Checker, value: Any, table: Table, where: str, line: int) -> dict[str, Any] | None:  # noqa: ANN401
    if table.shorthand and isinstance(value, str) and value.strip():
        return {key.name: key.default for key in table.keys} | {table.shorthand: value.strip()}
    m = ck.mapping(value, where, line)
    return None if m is None else read_table(ck, m, table, where)
