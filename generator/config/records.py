"""Records typed into an author file (``- records: [...]``) become ``model.Record`` values.

``RECORD`` declares the fields of one typed-in record; ``to_record`` turns the checked
values into the same ``Record`` a fetched arXiv entry becomes, so the rest of the
pipeline never knows where a record came from.
"""

from __future__ import annotations

from typing import Any

from generator.core import ids
from generator.config.schema import HTTP_PATTERN, HTTP_URL, RECORD_LINKS, Key, Table, record_links
from generator.core.model import Person, Record, record_key

DOI_PATTERN = r"(?:[Hh][Tt][Tt][Pp][Ss]?://(?:dx\.)?doi\.org/|[Dd][Oo][Ii]:)?10\.[0-9]{4,9}/[^\s\"<>]{1,300}"

RECORD = Table("records", (
    Key("title", "text", "the record's title (LaTeX math allowed)", required=True),
    Key("year", "int", "the year it appeared", required=True, lo=1900, hi=2100),
    Key("abstract", "text", "the abstract (line breaks become spaces)", default=""),
    Key("subjects", "categories", "arXiv subjects, the first one is the primary subject", default=()),
    Key("authors", "texts", "the authors' names, in order", default=()),
    Key("arxiv_id", "arxiv_id", "its arXiv id, if it has one (quote it)"),
    Key("doi", "text", "its DOI", check=ids.normalize_doi, expect="a DOI such as 10.1145/3299869.3319893",
        pattern=DOI_PATTERN),
    Key("url", "text", "a link to the record", check=ids.safe_url, expect=HTTP_URL, pattern=HTTP_PATTERN),
    Key("journal_ref", "text", "where it was published (journal, conference)"),
    Key("comment", "text", "a short note shown with the record"),
    Key("venue", "text", "the published venue, such as VLDB 2025"),
    Key("source", "text", "the label shown with the record, such as Journal or Workshop (when absent: none is "
        "shown; its arXiv id says an arXiv record)"),
    Key("published", "date", "the date it appeared, such as 2024-05-31"),
    Key("links", "section", "links shown with the record: code, slides, video, project, poster",
        table=RECORD_LINKS, expect="a mapping of link kinds to URLs"),
), help="Records typed in by hand: a list of mappings, one per record.", many=True)


def to_record(v: dict[str, Any], order: int) -> Record | None:
    """The record, or None when its title or year was refused (the problem is recorded)."""
    title, year = v["title"], v["year"]
    if title is None or year is None:
        return None
    subjects = v["subjects"]
    return Record(
        key=record_key(v["arxiv_id"], v["doi"], title, year),
        title=" ".join(title.split()), year=year, source=v["source"] or _label(v), arxiv_id=v["arxiv_id"],
        authors=tuple(Person(a) for a in v["authors"]), abstract=" ".join(v["abstract"].split()),
        published=v["published"], updated=v["published"],
        primary_subject=subjects[0] if subjects else None, subjects=tuple(dict.fromkeys(subjects)),
        doi=v["doi"], journal_ref=v["journal_ref"], comment=v["comment"], url=v["url"], order=order,
        venue=v["venue"], links=record_links(v["links"]),
    )


def _label(v: dict[str, Any]) -> str:
    """The label of a record that names no source: it is arXiv's only when it gives an arXiv id;
    else 'Manual', which pages never show (generator.assemble.venue_badge.badge)."""
    return "arXiv" if v["arxiv_id"] else MANUAL


MANUAL = "Manual"
