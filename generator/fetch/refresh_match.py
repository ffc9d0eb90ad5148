"""Which arXiv queries can share a batched request, and which new records may belong to one. Pure.

``fetch`` finds what is new for many authors with one request, ``(q1) OR (q2) OR ...``,
and then asks an author's own query again only where a new record may belong to it.
That second step needs a local answer to "could this record match this query?" which
must never say no where arXiv says yes (a missed paper), while a wrong yes only costs
one confirming request. So a query is batched only when its matches are bounded by its
``au:`` terms: au and cat terms joined by AND/OR and parentheses, where a ``cat:`` term
is only ever AND-ed (``au:"A" AND cat:cs.DB``) and there is no ANDNOT. Anything else
(``ti:``, bare words, ANDNOT, OR with a category) is fetched on its own, as before.

Name matching follows arXiv's author index (reference/arxiv-api.md, "Author search"):
per author, whitespace tokens, dots and commas removed, accents folded, lower case.
``au:"Bin Cui"`` needs every word in one author's name; ``au:Cui,B`` the surname and a
forename starting with the rest. The local answer widens that only by also splitting
hyphenated words; it does not guess that "B. Cui" is "Bin Cui", because arXiv does not
either (``au:"Bin Cui"`` misses "B. Cui"), and every such guess costs a request: in the
bench corpus, initials read both ways made "Grace A. Yang" a candidate for every query
whose two words start with an a.
A query with ``_`` inside an ``au:`` term is not batched: arXiv's adapter turns ``_`` into
a space only when the au term is the first term of the whole query, so inside a batch
it would mean something else.
"""

from __future__ import annotations

import fnmatch
import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

from generator.core.model import ET_AL, Record

_TOKEN = re.compile(r'\s*(\(|\)|[A-Za-z_]+:"[^"]*"|[A-Za-z_]+:[^\s()"]+|"[^"]*"|[^\s()]+)')
_OPERATORS = ("AND", "OR", "ANDNOT", "NOT")


@dataclass(frozen=True, slots=True)
class AuthorTerm:
    """One ``au:`` term: the words that must be in one author's name; ``surname`` set for the
    comma form (``au:Cui,Bin``: surname ``cui``, then ``words`` holds the forename prefix)."""

    words: tuple[str, ...]
    surname: str | None = None


def fold(text: str) -> str:
    """Lower case, accents removed, dots and commas as spaces (arXiv's author analyser)."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return plain.lower().replace(".", " ").replace(",", " ")


def tokenize(query: str) -> tuple[str, ...] | None:
    """The query's tokens, or None when it does not split cleanly (an unbalanced quote)."""
    out: list[str] = []
    pos = 0
    text = query.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            return None
        out.append(m.group(1))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return tuple(out)


def author_terms(query: str) -> tuple[AuthorTerm, ...] | None:
    """The au: terms of a query that may share a batch, or None when it must be fetched alone."""
    tokens = tokenize(query)
    if not tokens or not _balanced(tokens):
        return None
    terms: list[AuthorTerm] = []
    has_or = has_cat = False
    for tok in tokens:
        if tok in ("(", ")", "AND"):
            continue
        if tok == "OR":
            has_or = True
        elif tok in _OPERATORS or ":" not in tok:
            return None            # ANDNOT/NOT, or a bare word (arXiv reads it as all:word)
        else:
            field, _, value = tok.partition(":")
            if field == "cat":
                has_cat = True
            elif field != "au" or "_" in value:
                return None
            else:
                term = _author_term(value)
                if term is None:
                    return None
                terms.append(term)
    if not terms or (has_cat and has_or):
        return None
    return tuple(terms)


def _balanced(tokens: Sequence[str]) -> bool:
    depth = 0
    for tok in tokens:
        depth += (tok == "(") - (tok == ")")
        if depth < 0:
            return False
    return depth == 0


def _author_term(value: str) -> AuthorTerm | None:
    quoted = value.startswith('"')
    text = fold(value.strip('"')) if quoted else value.lower()
    if not quoted and "," in text:           # au:cui,bin - several authors with ';' are all required
        first = text.split(";")[0]
        surname, _, forename = first.partition(",")
        surname, forename = fold(surname).strip(), fold(forename).strip()
        if not surname or " " in surname:
            return None
        return AuthorTerm(words=(forename,) if forename else (), surname=surname)
    words = tuple(fold(text).split())
    if not words or any(w[0] in "*?" for w in words):
        return None                          # arXiv refuses a leading wildcard; keep such a query alone
    return AuthorTerm(words=words)


def name_words(name: str) -> frozenset[str]:
    """The words of one author name as arXiv indexes them, plus the parts of hyphenated ones."""
    words = fold(name).split()
    return frozenset(words) | frozenset(p for w in words for p in w.split("-") if p)


def _word_matches(word: str, names: frozenset[str], prefix: bool = False) -> bool:
    if word in names:
        return True
    wild = "*" in word or "?" in word
    if not wild and not prefix:
        return False
    return any((wild and fnmatch.fnmatchcase(n, word)) or (prefix and n.startswith(word)) for n in names)


def term_matches(term: AuthorTerm, names: frozenset[str]) -> bool:
    """Could arXiv match this au: term against one author with these ``name_words``?
    (Never no where arXiv says yes.)"""
    if term.surname is not None:
        return _word_matches(term.surname, names) and all(_word_matches(w, names, prefix=True) for w in term.words)
    return all(_word_matches(w, names) for w in term.words)


class RecordIndex:
    """The records of one batched answer, by the words of their authors' names, so that finding the
    records that may belong to each of a thousand queries does not compare every pair."""

    def __init__(self, records: Sequence[Record]) -> None:
        self.records = tuple(records)
        self.names: list[tuple[frozenset[str], ...]] = []
        self.open: set[int] = set()          # authors cut short: may belong to anyone
        self.by_word: dict[str, set[int]] = {}
        self.by_letter: dict[str, set[int]] = {}
        for i, r in enumerate(self.records):
            people = tuple(name_words(p.name) for p in r.authors)
            self.names.append(people)
            if not people or any(p.name == ET_AL for p in r.authors):
                self.open.add(i)
            for words in people:
                for w in words:
                    self.by_word.setdefault(w, set()).add(i)
                    self.by_letter.setdefault(w[0], set()).add(i)

    def _candidates(self, word: str) -> set[int]:
        """Records with a name word that ``word`` may match: itself; for a pattern (never starting
        with a wildcard, see author_terms), any word with its first letter."""
        if "*" not in word and "?" not in word:
            return self.by_word.get(word, set())
        return self.by_letter.get(word[:1], set())

    def may_belong(self, terms: Sequence[AuthorTerm]) -> list[Record]:
        """The records that could be results of a query with these au: terms, in answer order."""
        found = set(self.open)
        for t in terms:
            anchor = t.surname if t.surname is not None else (t.words[0] if t.words else "")
            for i in self._candidates(anchor) - found:
                if any(term_matches(t, words) for words in self.names[i]):
                    found.add(i)
        return [self.records[i] for i in sorted(found)]


def may_belong(terms: Sequence[AuthorTerm], record: Record) -> bool:
    """Could ``record`` be a result of the query whose au: terms are ``terms``?"""
    return bool(RecordIndex([record]).may_belong(terms))
