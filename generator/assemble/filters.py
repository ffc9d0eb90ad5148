"""Name disambiguation: which fetched records an author keeps, and by which rule.

Typed-in records are always kept (the user wrote them). Fetched records go
through, in order: ``exclude`` (drop), ``include`` (keep, whatever follows), the
source's own ``categories``, then the author's ``filters`` (categories, since,
until, coauthors). ``decide`` returns the verdict and the rule, which is what
``authorsite review`` prints.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from generator.config import AuthorConfig
from generator.core.model import Record


@dataclass(frozen=True, slots=True)
class Verdict:
    record: Record
    kept: bool
    rule: str


@functools.lru_cache(maxsize=65536)
def normalize_name(name: str) -> str:
    """Case-, accent- and punctuation-insensitive form of a person's name."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w]+", " ", text.casefold()).split())


def decide(author: AuthorConfig, record: Record, source_categories: tuple[str, ...] = ()) -> Verdict:
    """Keep or drop one fetched record for one author, naming the rule that decided."""
    if record.arxiv_id and record.arxiv_id in author.exclude:
        return Verdict(record, False, f"exclude: {record.arxiv_id}")
    if record.arxiv_id and record.arxiv_id in author.include:
        return Verdict(record, True, f"include: {record.arxiv_id}")
    if source_categories and not set(record.subjects) & set(source_categories):
        return Verdict(record, False, f"source categories: none of {', '.join(record.subjects) or 'no subject'} "
                                      f"in {', '.join(source_categories)}")
    f = author.filters
    if f.categories and not set(record.subjects) & set(f.categories):
        return Verdict(record, False, f"filters.categories: none of {', '.join(record.subjects) or 'no subject'} "
                                      f"in {', '.join(f.categories)}")
    if f.since is not None and (record.year or 0) < f.since:
        return Verdict(record, False, f"filters.since: {record.year} is before {f.since}")
    if f.until is not None and (record.year or 9999) > f.until:
        return Verdict(record, False, f"filters.until: {record.year} is after {f.until}")
    if f.coauthors:
        names = {normalize_name(p.name) for p in record.authors}
        wanted = [c for c in f.coauthors if normalize_name(c) in names]
        if not wanted:
            return Verdict(record, False, f"filters.coauthors: none of {', '.join(f.coauthors)} among the authors")
    return Verdict(record, True, "kept: passes every filter")
