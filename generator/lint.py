"""Data-quality lint for ``authorsite check``: problems a user can read and fix.

Pure: works on the loaded configuration and the cache store. Each finding names the
author file (and the record) and says what to do.
"""

from __future__ import annotations

import re
from collections import Counter

from generator.assemble.site import kept_records
from generator.config import AuthorConfig, SiteConfig
from generator.config.sources import kind_of
from generator.assemble.merge import merge
from generator.core.model import Record, title_digest
from generator.store.reader import Store
from generator.core.taxonomy import Taxonomy

_MATH = re.compile(r"(?<!\\)\$")


def _unbalanced_math(text: str) -> bool:
    if len(_MATH.findall(text)) % 2:
        return True
    depth = 0
    for c in re.sub(r"\\[{}]", "", text):
        depth += (c == "{") - (c == "}")
        if depth < 0:
            return True
    return depth != 0


def _counts(a: AuthorConfig, store: Store) -> tuple[int, int, int]:
    """(fetched sources, fetched records cached for them, typed-in records) of one author."""
    sources = fetched = typed = 0
    for s in a.sources:
        kind = kind_of(s)
        if kind.cache_key(s) is None:
            typed += len(kind.records(s, ()))
        else:
            sources += 1
            entry = store.entry(a.slug, s)
            fetched += len(entry.records) if entry else 0
    return sources, fetched, typed


def _expects_abstract(p: Record) -> bool:
    """Whether a record's source normally gives an abstract: arXiv, feeds and typed-in records do
    (their records carry no ``origins``); DBLP, ORCID and OpenAlex (which set ``origins``) seldom do,
    and the author can do nothing about it there."""
    return not p.origins


def _record_findings(a: AuthorConfig, r: Record, parts: tuple[Record, ...], taxonomy: Taxonomy) -> list[str]:
    """One merged record's problems. Records of DBLP, ORCID and OpenAlex often have no abstract and
    repeat an arXiv id (DBLP's CoRR copy): nothing the author can fix, so only a merged record that
    still has no abstract and has a part from a source that normally gives one is reported."""
    findings: list[str] = []
    label = f"{a.path}: record '{r.title[:60]}'"
    own = [p for p in parts if _expects_abstract(p)]       # typed-in, arXiv and feed records
    if len(own) > len({(p.key, title_digest(p.title, p.year)) for p in own}):
        findings.append(f"{label} is listed twice; remove one copy")
    ids = Counter(p.arxiv_id for p in own if p.arxiv_id)
    findings.extend(f"{a.path}: arXiv {i} appears {n} times in the sources" for i, n in sorted(ids.items()) if n > 1)
    if not r.abstract and own:
        findings.append(f"{label} has no abstract")
    if _unbalanced_math(r.title) or _unbalanced_math(r.abstract):
        findings.append(f"{label} has unbalanced math ($ or braces); it is shown as written")
    for code in r.subjects:
        if taxonomy.get(code) is None:
            findings.append(f"{label} has an unknown subject '{code}'")
    return findings


def lint(config: SiteConfig, store: Store, taxonomy: Taxonomy) -> list[str]:
    findings: list[str] = []
    for a in config.authors:
        records = kept_records(a, store)
        fetched_sources, fetched, typed = _counts(a, store)
        if fetched and len(records) == typed:
            findings.append(f"{a.path}: the filters drop all {fetched} fetched records; "
                            f"run 'authorsite review {a.slug}' to see which rule")
        if not records and not fetched_sources:
            findings.append(f"{a.path}: no sources and no records; add an arxiv query or records")
        for group in merge(records, a.separate).groups:   # what the page shows: one record per work
            findings.extend(_record_findings(a, group.record, group.parts, taxonomy))
    return findings
