"""A fake arXiv *search*: a responder for ``fakearxiv.FakeArxiv`` that answers any author query over a corpus.

``fakearxiv.Corpus`` pages one fixed list whatever the query; a batched refresh sends
``(au:"A") OR (au:"B") ...``, so this responder evaluates the query the way arXiv's
author index does (reference/arxiv-api.md, "Author search"): ``au:"Bin Cui"`` needs every
word in one author's name (words lower-cased, accents folded, dots and commas dropped),
``au:cui,b`` the surname plus a forename starting with the rest, ``au:word`` one word;
``cat:`` a category; AND, OR, ANDNOT and parentheses (AND binds tighter than OR). Results
are sorted like arXiv (``sortBy`` lastUpdatedDate or submittedDate, descending) and paged by
``start``/``max_results``. An inverted index keeps a query over the 81,000 records of the
bench corpus fast. ``fixed`` answers given au: terms with given records instead (the bench
corpus assigns records to authors by its own rule, which a name search would not reproduce;
a real cache came from arXiv's own answers). Written independently of ``generator.fetch.refresh_match`` on purpose: the
tests check that module against this one.

Also importable outside pytest (bench/run.py): it needs only ``atomgen`` and ``generator.core.model``.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from typing import Sequence
from xml.sax.saxutils import escape

from atomgen import entry_xml, feed_xml

from generator.core.model import Record

_TOKEN = re.compile(r'\s*(\(|\)|\w+:"[^"]*"|\w+:[^\s()]+|[^\s()]+)')


def words(name: str) -> list[str]:
    text = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return text.lower().replace(".", " ").replace(",", " ").split()


class Search:
    """The responder: ``Search(records)``; ``add(record)`` puts a new paper on arXiv; ``errors`` lists
    queries it could not parse (answered with arXiv's error entry, HTTP 400)."""

    def __init__(self, records: Sequence[Record], fixed: dict[str, set[str]] | None = None) -> None:
        self.fixed = fixed or {}             # an au: term -> the keys it answers (a corpus's own caches)
        self.records: list[Record] = []
        self.position: dict[str, int] = {}
        self.by_word: dict[str, set[int]] = {}
        self.by_cat: dict[str, set[int]] = {}
        self.xml: dict[int, str] = {}
        self.lock = threading.Lock()
        self.errors: list[str] = []
        for r in records:
            self.add(r)

    def add(self, record: Record) -> None:
        with self.lock:
            n = len(self.records)
            self.records.append(record)
            self.position[record.key] = n
            for p in record.authors:
                for w in words(p.name):
                    self.by_word.setdefault(w, set()).add(n)
            for c in record.subjects:
                self.by_cat.setdefault(c, set()).add(n)

    def __call__(self, path: str, params: dict[str, str]):  # noqa: ANN204 - a fakearxiv.Reply
        from fakearxiv import Reply

        try:
            hits = self.evaluate(params.get("search_query", ""))
        except ValueError as exc:
            self.errors.append(str(exc))
            return Reply(_error_feed(str(exc)), status=400)
        field = "published" if params.get("sortBy") == "submittedDate" else "updated"
        order = sorted(hits, key=lambda i: (getattr(self.records[i], field) or "", self.records[i].key),
                       reverse=params.get("sortOrder", "descending") == "descending")
        start, size = int(params.get("start", "0")), int(params.get("max_results", "10"))
        return Reply(feed_xml([self._entry(i) for i in order[start:start + size]], total=len(order),
                              start=start, per_page=size))

    def evaluate(self, query: str) -> set[int]:
        tokens = [m.group(1) for m in _TOKEN.finditer(query)]
        if not tokens:
            raise ValueError("empty query")
        result, rest = self._or(tokens)
        if rest:
            raise ValueError(f"unexpected {rest[0]!r}")
        return result

    def _or(self, tokens: list[str]) -> tuple[set[int], list[str]]:
        left, tokens = self._and(tokens)
        while tokens and tokens[0] == "OR":
            right, tokens = self._and(tokens[1:])
            left = left | right
        return left, tokens

    def _and(self, tokens: list[str]) -> tuple[set[int], list[str]]:
        left, tokens = self._atom(tokens)
        while tokens and tokens[0] in ("AND", "ANDNOT"):
            op = tokens[0]
            right, tokens = self._atom(tokens[1:])
            left = left & right if op == "AND" else left - right
        return left, tokens

    def _atom(self, tokens: list[str]) -> tuple[set[int], list[str]]:
        if not tokens:
            raise ValueError("query ends too early")
        if tokens[0] == "(":
            inner, rest = self._or(tokens[1:])
            if not rest or rest[0] != ")":
                raise ValueError("unbalanced parenthesis")
            return inner, rest[1:]
        field, sep, value = tokens[0].partition(":")
        if not sep:
            raise ValueError(f"no field in {tokens[0]!r}")
        if tokens[0] in self.fixed:
            keys = self.fixed[tokens[0]]
            return {self.position[k] for k in keys if k in self.position}, tokens[1:]
        if field == "cat":
            return set(self.by_cat.get(value, ())), tokens[1:]
        if field != "au":
            raise ValueError(f"the fake knows only au: and cat:, not {field}:")
        return self._author(value), tokens[1:]

    def _author(self, value: str) -> set[int]:
        if not value.startswith('"') and "," in value:
            surname, _, forename = value.lower().partition(",")
            candidates = self.by_word.get(surname, set())
            return {i for i in candidates if any(
                surname in words(p.name) and any(w.startswith(forename) for w in words(p.name))
                for p in self.records[i].authors)}
        wanted = words(value.strip('"'))
        if not wanted:
            raise ValueError("empty author")
        candidates = set.intersection(*(self.by_word.get(w, set()) for w in wanted))
        return {i for i in candidates if any(set(wanted) <= set(words(p.name)) for p in self.records[i].authors)}

    def _entry(self, i: int) -> str:
        if i not in self.xml:
            r = self.records[i]
            self.xml[i] = entry_xml(r.arxiv_id or "", r.version or 1, title=r.title, summary=r.abstract or "x",
                                    authors=tuple(p.name for p in r.authors), published=r.published or "",
                                    updated=r.updated, categories=r.subjects or ("cs.DB",), doi=r.doi,
                                    journal_ref=r.journal_ref, comment=r.comment)
        return self.xml[i]


def _error_feed(message: str) -> bytes:
    entry = ("  <entry>\n    <id>https://arxiv.org/api/errors#bad_query</id>\n    <title>Error</title>\n"
             f"    <summary>{escape(message)}</summary>\n  </entry>\n")
    return feed_xml([entry], total=1, per_page=1)
