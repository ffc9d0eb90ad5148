"""Data-quality lint for ``authorsite check``: problems a user can read and fix.

Pure: works on the loaded configuration and the cache store. Each finding names the
author file (and the record) and says what to do.
"""

from __future__ import annotations

import re
from collections import defaultdict

from generator.assemble import kept_records
from generator.config import AuthorConfig, SiteConfig
from generator.model import title_digest
from generator.sources.registry import kind_of
from generator.store import Store
from generator.taxonomy import Taxonomy

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
            typed += len(kind.records(s, None))
        else:
            sources += 1
            entry = store.entry(a.slug, s)
            fetched += len(entry.records) if entry else 0
    return sources, fetched, typed


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
        seen: dict[str, str] = {}
        by_id: dict[str, int] = defaultdict(int)
        for r in records:
            label = f"{a.path}: record '{r.title[:60]}'"
            digest = title_digest(r.title, r.year)
            if digest in seen and seen[digest] == r.key:
                findings.append(f"{label} is listed twice; remove one copy")
            seen.setdefault(digest, r.key)
            if r.arxiv_id:
                by_id[r.arxiv_id] += 1
            if not r.abstract:
                findings.append(f"{label} has no abstract")
            if _unbalanced_math(r.title) or _unbalanced_math(r.abstract):
                findings.append(f"{label} has unbalanced math ($ or braces); it is shown as written")
            for code in r.subjects:
                if taxonomy.get(code) is None:
                    findings.append(f"{label} has an unknown subject '{code}'")
        for arxiv_id, n in sorted(by_id.items()):
            if n > 1:
                findings.append(f"{a.path}: arXiv {arxiv_id} appears {n} times in the sources")
    return findings
