"""Assemble the site model from configuration and the cache store. Pure: no I/O.

Per author: typed-in records, plus fetched records that pass the author's filters;
merged when they are the same work (same arXiv id, same DOI, or same normalised
title and year: the preprint and the published version become one record with
both links); sorted newest first. Across authors: a subject index (canonical arXiv
codes only) and, for every record, which profiled authors list it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from typing import Iterable

from generator.config import AuthorConfig, SiteConfig
from generator.filters import decide, normalize_name
from generator.markup import markdown_to_html
from generator.model import Author, Page, Record, SiteModel, Subject, title_digest
from generator.sources.registry import kind_of
from generator.store import Store
from generator.taxonomy import Taxonomy


def assemble(config: SiteConfig, store: Store, taxonomy: Taxonomy,
             authors: tuple[Author, ...] | None = None) -> SiteModel:
    """The site model. ``authors``: each author of ``config`` already assembled (``assemble_author``;
    the preview keeps those whose inputs did not change)."""
    if authors is None:
        authors = tuple(assemble_author(a, store, taxonomy) for a in config.authors)
    record_authors: dict[str, list[str]] = defaultdict(list)
    for a in authors:
        for r in a.records:
            record_authors[r.key].append(a.slug)
    people: dict[str, str] = {}
    for acfg in config.authors:
        for name in (acfg.name, *acfg.aliases):
            people.setdefault(normalize_name(name), acfg.slug)
    pages = tuple(
        Page(name=p.name, title=p.title, body_html=markdown_to_html(p.body), description=p.description,
             weight=p.weight, in_nav=p.in_nav)
        for p in config.pages
    )
    return SiteModel(
        title=config.title, description=config.description, base_url=config.base_url,
        language=config.language, authors=authors, subjects=_subjects(authors, taxonomy), pages=pages,
        record_authors={k: tuple(v) for k, v in record_authors.items()}, paginate=config.paginate,
        cname=config.cname, extra=config.extra, people=people,
        feed_size=config.feed_size,
    )


def kept_records(author: AuthorConfig, store: Store) -> list[Record]:
    """Typed-in records and the fetched ones the filters keep, before merging."""
    out: list[Record] = []
    for source in author.sources:
        kind = kind_of(source)
        records = kind.records(source, store.entry(author.slug, source))
        if kind.cache_key(source) is None:      # typed in: always kept
            out.extend(records)
            continue
        cats = kind.categories(source)
        out.extend(r for r in records if decide(author, r, cats).kept)
    return out


def merge_records(records: Iterable[Record]) -> list[Record]:
    """One record per work: same arXiv id, DOI, or normalised title + year. First seen wins,
    gaps filled from the others (so a typed-in record gains the fetched id, dates, links)."""
    merged: list[Record] = []
    index: dict[str, int] = {}
    for r in records:
        keys = _identity_keys(r)
        hit = next((index[k] for k in keys if k in index), None)
        if hit is None:
            index.update({k: len(merged) for k in keys})
            merged.append(r)
            continue
        combined = _combine(merged[hit], r)
        merged[hit] = combined
        index.update({k: hit for k in _identity_keys(combined)})
    return merged


def _identity_keys(r: Record) -> tuple[str, ...]:
    keys = [f"t:{title_digest(r.title, r.year)}"]
    if r.arxiv_id:
        keys.append(f"a:{r.arxiv_id}")
    if r.doi:
        keys.append(f"d:{r.doi.lower()}")
    return tuple(keys)


def _combine(a: Record, b: Record) -> Record:
    """Prefer the arXiv record's fields (it has ids and dates), fill gaps from the other."""
    first, second = (b, a) if (b.arxiv_id and not a.arxiv_id) else (a, b)
    if first.arxiv_id and second.arxiv_id == first.arxiv_id and (second.version or 0) > (first.version or 0):
        first, second = second, first
    changes = {}
    for f in dataclasses.fields(Record):
        if f.name in ("key", "order"):
            continue
        mine = getattr(first, f.name)
        if mine in (None, "", ()):
            other = getattr(second, f.name)
            if other not in (None, "", ()):
                changes[f.name] = other
    changes["order"] = min(a.order, b.order)
    key = f"arxiv:{first.arxiv_id}" if first.arxiv_id else first.key
    return dataclasses.replace(first, key=key, **changes)


def sort_newest_first(records: Iterable[Record]) -> list[Record]:
    """Year descending, then date descending; undated records keep their source order."""
    out = sorted(records, key=lambda r: (r.published or ""), reverse=True)
    out.sort(key=lambda r: -(r.year or 0))
    return out


def assemble_author(a: AuthorConfig, store: Store, tax: Taxonomy) -> Author:
    """One author: kept records merged and sorted, with their subject and year counts."""
    records = sort_newest_first(merge_records(kept_records(a, store)))
    subj = Counter(code for r in records for code in r.subjects[:1])
    years = Counter(r.year for r in records if r.year)
    return Author(
        slug=a.slug, name=a.name, affiliation=a.affiliation, bio_html=markdown_to_html(a.bio) if a.bio else "",
        links=a.links, records=tuple(records),
        subjects=tuple(sorted(subj.items(), key=lambda kv: (-kv[1], kv[0]))),
        years=tuple(sorted(years.items(), reverse=True)), template=a.template,
    )


def _subjects(authors: tuple[Author, ...], tax: Taxonomy) -> tuple[Subject, ...]:
    by_code: dict[str, dict[str, Record]] = defaultdict(dict)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for a in authors:
        for r in a.records:
            for code in r.subjects:
                by_code[code].setdefault(r.key, r)
                counts[code][a.slug] += 1
    out = []
    for code, recs in by_code.items():
        cat = tax.get(code)
        if cat is None:
            continue
        out.append(Subject(
            code=code, name=cat.name, archive=cat.archive, archive_name=cat.archive_name, group=cat.group,
            group_name=cat.group_name, records=tuple(sort_newest_first(recs.values())),
            authors=tuple(sorted(counts[code].items(), key=lambda kv: (-kv[1], kv[0]))),
        ))
    return tuple(sorted(out, key=lambda s: (tax.group_rank(s.group), s.code.casefold())))
