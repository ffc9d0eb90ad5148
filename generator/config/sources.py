"""The ``sources:`` list of an author file: one entry per source, each of one kind.

``SOURCE_SCHEMAS`` maps each kind's YAML key (``arxiv``, ``feed``, ``records``, ``orcid``,
``dblp``, ``openalex``) to the
table of its keys; the source registry points at it, the JSON Schema and the docs page
are made from it. ``read_sources`` checks the list and builds one source value per entry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from generator import ids
from generator.config.check import Checker, checked_text, describe, read_table
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

ORCID_ID_PATTERN = ids.ORCID_ID_PATTERN
DBLP_PID_PATTERN = r"[0-9a-z]{1,8}/[0-9A-Za-z_-]{1,64}"
DBLP_GIVEN_PATTERN = rf"(?:https?://dblp\.org/pid/)?{DBLP_PID_PATTERN}(?:\.xml|\.html)?"   # what the file may say
OPENALEX_AUTHOR_PATTERN = r"(?:https?://openalex\.org/)?[Aa][0-9]{4,12}"


check_orcid_id = ids.check_orcid_id


def check_dblp_pid(text: str) -> str | None:
    """A DBLP person id such as ``12/3456`` or ``95/7448-1`` (also taken from a dblp.org/pid/ URL)."""
    pid = re.sub(r"^https?://dblp\.org/pid/", "", text.strip()).removesuffix(".xml").removesuffix(".html")
    return pid if re.fullmatch(DBLP_PID_PATTERN, pid) else None


def check_openalex_author(text: str) -> str | None:
    """An OpenAlex author id (``A5023888391``, also from its https://openalex.org/ URL), upper-case A."""
    if not re.fullmatch(OPENALEX_AUTHOR_PATTERN, text.strip()):
        return None
    return "A" + text.strip().rsplit("/", 1)[-1][1:]


ORCID = Table("orcid", (
    Key("id", "text", "the author's ORCID iD; its check digit is verified", required=True, check=check_orcid_id,
        expect="an ORCID iD such as 0000-0002-1825-0097", pattern=ORCID_ID_PATTERN),
), help="The public works of an ORCID record (ORCID's public API v3.0; ORCID_API_URL overrides its address). "
        "A lone text is the iD.", shorthand="id")

DBLP = Table("dblp", (
    Key("pid", "text", "the author's DBLP person id, as in https://dblp.org/pid/12/3456", required=True,
        check=check_dblp_pid, expect="a DBLP person id such as 12/3456", pattern=DBLP_GIVEN_PATTERN),
), help="A DBLP person record (dblp.org/pid/PID.xml; DBLP_URL overrides its address). A lone text is the pid.",
   shorthand="pid")

OPENALEX = Table("openalex", (
    Key("author", "text", "the author's OpenAlex id", required=True, check=check_openalex_author,
        expect="an OpenAlex author id such as A5023888391", pattern=OPENALEX_AUTHOR_PATTERN),
), help="An author's works in OpenAlex, with citation counts (OPENALEX_API_URL overrides its address; "
        "the API key is read from the environment variable OPENALEX_API_KEY, never from a file). "
        "A lone text is the author id.", shorthand="author")

SOURCE_SCHEMAS: dict[str, Table] = {"arxiv": ARXIV, "feed": FEED, "records": RECORD,
                                    "orcid": ORCID, "dblp": DBLP, "openalex": OPENALEX}


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


@dataclass(frozen=True, slots=True)
class OrcidSource:
    id: str                   # the bare iD, check digit verified
    line: int = 1


@dataclass(frozen=True, slots=True)
class DblpSource:
    pid: str
    line: int = 1


@dataclass(frozen=True, slots=True)
class OpenAlexSource:
    author: str               # A followed by digits
    line: int = 1


Source = ArxivSource | FeedSource | RecordsSource | OrcidSource | DblpSource | OpenAlexSource


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


_BUILD: dict[str, Callable[[Any, int], Source | None]] = {
    "arxiv": _arxiv, "feed": _feed,
    "orcid": lambda v, line: OrcidSource(v["id"], line) if v["id"] else None,
    "dblp": lambda v, line: DblpSource(v["pid"], line) if v["pid"] else None,
    "openalex": lambda v, line: OpenAlexSource(v["author"], line) if v["author"] else None,
}
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
        given = checked_text(ck, table[table.shorthand], value.strip(), where, line)   # the same check as in full
        return None if given is None else {key.name: key.default for key in table.keys} | {table.shorthand: given}
    m = ck.mapping(value, where, line)
    return None if m is None else read_table(ck, m, table, where)
