"""Data-quality lint for ``authorsite check``: problems a user can read and fix.

Pure: works on the loaded configuration and cache entries. Each finding names the
author file (and the record) and says what to do.
"""

from __future__ import annotations

import re
from collections import defaultdict

from generator.assemble import CachedSources, kept_records
from generator.config import ArxivSource, FeedSource, RecordsSource, SiteConfig
from generator.model import title_digest
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


def lint(config: SiteConfig, cached: CachedSources, taxonomy: Taxonomy) -> list[str]:
    findings: list[str] = []
    for a in config.authors:
        entries = cached.get(a.slug, ())
        records = kept_records(a, entries)
        fetched = sum(len(e.records) for e in entries if e is not None)
        fetched_sources = [s for s in a.sources if isinstance(s, (ArxivSource, FeedSource))]
        typed = sum(len(s.records) for s in a.sources if isinstance(s, RecordsSource))
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
