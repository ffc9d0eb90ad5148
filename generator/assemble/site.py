"""Assemble the site model from configuration and the cache store. Pure: no I/O.

Per author: typed-in records, plus fetched records that pass the author's filters;
merged when they are the same work (``merge``: the preprint and the published version
become one record with every link; the author's ``separate`` pairs stay apart);
sorted newest first; citation counts only when the site turns them on. Across authors: a subject index (canonical arXiv
codes only) and, for every record, which profiled authors list it.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections import Counter, defaultdict
from typing import Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from generator.config import AuthorConfig, SiteConfig
from generator.config.accent import dark_variant
from generator.assemble.feed_ids import FeedIds, Memory, resolve
from generator.config.schema import LAB_AUTHORS
from generator.config.sources import kind_of
from generator.assemble.filters import decide, normalize_name
from generator.core.latex import tex_to_text
from generator.assemble.markup import markdown_to_html
from generator.assemble.matching import summary_digest, tagged
from generator.assemble.merge import merge_records
from generator.assemble.papers import collisions
from generator.core.model import Author, Page, Record, SiteModel, Subject
from generator.store.reader import Store
from generator.core.taxonomy import Category, Taxonomy


def assemble(config: SiteConfig, store: Store, taxonomy: Taxonomy,
             authors: tuple[Author, ...] | None = None, subjects: tuple[Subject, ...] | None = None,
             listed: tuple[Mapping[str, tuple[str, ...]], tuple[Record, ...]] | None = None,
             feeds: Memory | FeedIds | None = None) -> SiteModel:
    """The site model. ``authors``: each author of ``config`` already assembled (``assemble_author``;
    the preview keeps those whose inputs did not change); ``subjects``: ``subjects_of(authors)``,
    and ``listed``: (``record_authors(authors)``, ``newest(authors, config.feed_size)``), made
    already (a build takes them from the last build when it can, generator.incremental.subject_order);
    ``feeds``: what the feeds published before (generator.assemble.feed_ids), whose entry ids they
    keep, or those ids already resolved (a build takes them from the last build when it can,
    generator.incremental.feed_kept)."""
    if authors is None:
        authors = tuple(assemble_author(a, store, taxonomy, config.citations) for a in config.authors)
    if listed is None:
        listed = record_authors(authors), newest(authors, config.feed_size)
    people: dict[str, str] = {}
    for acfg in config.authors:
        for name in (acfg.name, *acfg.aliases):
            people.setdefault(normalize_name(name), acfg.slug)
    base_path = urlsplit(config.base_url).path or "/"
    pages = tuple(
        Page(name=p.name, title=tex_to_text(p.title), body_html=markdown_to_html(p.body, base_path),
             description=p.description, weight=p.weight, in_nav=p.in_nav)
        for p in config.pages
    )
    papers = _papers(config)
    return SiteModel(
        title=config.title, description=config.description, base_url=config.base_url,
        language=config.language, authors=authors, subjects=subjects if subjects is not None else subjects_of(authors, taxonomy), pages=pages,
        record_authors=listed[0], paginate=config.paginate,
        cname=config.cname, extra=config.extra, people=people,
        feed_size=config.feed_size, authors_shown=config.authors_shown, venues=config.venues, groups=_groups(config),
        accent=(config.accent, dark_variant(config.accent)) if config.accent else None,
        repository=config.repository, papers=papers, paper_keys=collisions(listed[0]) if papers else {},
        newest=listed[1], feeds=resolve(feeds, authors) if isinstance(feeds, Memory) else feeds,
        publications=_lab_size(config.publications, config), venue_names=config.venue_names,
        search_abstracts=_lab_size(config.search.abstracts, config),
    )


def record_authors(authors: Iterable[Author]) -> dict[str, tuple[str, ...]]:
    """For every record key, the profiled authors who list it, in site order."""
    listing: dict[str, list[str]] = defaultdict(list)
    for a in authors:
        for r in a.records:
            listing[r.key].append(a.slug)
    return {k: tuple(v) for k, v in listing.items()}


def newest(authors: Iterable[Author], count: int) -> tuple[Record, ...]:
    """The ``count`` newest records of all ``authors``, each once by key: the copy of the last
    author who lists it, in the place of the first (copies of one key are usually equal)."""
    unique = {r.key: r for a in authors for r in a.records}.values()
    return tuple(heapq.nlargest(count, unique, key=_newest_key))   # sort_newest_first(...)[:count], as documented


def _papers(config: SiteConfig) -> bool:
    """Whether the site has a page per paper (``papers``): as site.yaml says, else on a lab's
    site (``_lab_size``) or wherever the host has no wall (``host: s3``)."""
    return _lab_size(config.papers, config) or (config.papers is None and config.host == "s3")


def lists_every_record(config: SiteConfig) -> bool:
    """Whether a page of the site reads every record at once: the lab's list (``publications``),
    the paper pages (which of a key's copies each shows), the venues' index."""
    return _papers(config) or _lab_size(config.publications, config) or config.venues


def _groups(config: SiteConfig) -> tuple[str, ...]:
    """site.yaml's groups, else the authors' groups in the order they first appear."""
    return config.groups or tuple(dict.fromkeys(a.group for a in config.authors if a.group))


def _lab_size(setting: bool | None, config: SiteConfig) -> bool:
    """Whether the site has the lab's list (``publications``), a page per paper (``papers``) or
    abstracts in its search (``search.abstracts``): as site.yaml says, else when it has at most
    ``LAB_AUTHORS`` authors (a lab's site; a larger one would list tens of thousands of works on
    one page, its paper pages pass GitHub Pages' 1 GB, and abstracts make its search index half
    as large again for a few words that titles lack: bench/README.md)."""
    if setting is not None:
        return setting
    return len(config.authors) <= LAB_AUTHORS


def kept_records(author: AuthorConfig, store: Store) -> list[Record]:
    """Typed-in records and the fetched ones the filters keep, before merging, each with why it is
    the author's (``Record.match``, generator.assemble.matching)."""
    out: list[Record] = []
    include = frozenset(author.include)
    for source in author.sources:
        kind = kind_of(source)
        records = kind.records(source, store.records(author.slug, source))
        if kind.cache_key(source) is None:      # typed in: always kept
            out.extend(tagged(records, kind.match(source)))
            continue
        cats = kind.categories(source)
        out.extend(tagged((r for r in records if decide(author, r, cats).kept), kind.match(source), include))
    return out


def _newest_key(r: Record) -> tuple[int, str]:
    return r.year or 0, r.published or ""


def sort_newest_first(records: Iterable[Record]) -> list[Record]:
    """Year descending, then date descending; undated records keep their source order (a
    reversed sort keeps equal items in their order)."""
    return sorted(records, key=_newest_key, reverse=True)


def assemble_author(a: AuthorConfig, store: Store, tax: Taxonomy, citations: str | None = None) -> Author:
    """One author: kept records merged and sorted, with their subject and year counts."""
    merged = _with_extra_links(merge_records(kept_records(a, store), a.separate), a.extra_links)
    records = sort_newest_first(_cited(merged, citations))
    # Every subject of a record (primary and cross-lists), as the page's filter counts them (issue 15).
    subj = Counter(code for r in records for code in dict.fromkeys(r.subjects))
    years = Counter(r.year for r in records if r.year)
    return Author(
        slug=a.slug, name=a.name, affiliation=a.affiliation, bio_html=markdown_to_html(a.bio) if a.bio else "",
        links=a.links, records=tuple(records),
        subjects=tuple(sorted(subj.items(), key=lambda kv: (-kv[1], kv[0]))),
        years=tuple(sorted(years.items(), reverse=True)), template=a.template,
        photo=a.photo, role=a.role, group=a.group, pinned=_pinned(records, a.pinned), member=a.member,
        name_native=a.name_native, name_native_lang=a.name_native_lang, matched=summary_digest(records),
    )


def _ids(r: Record) -> set[str]:
    """The ids a user may name a record by: its key, arXiv id and DOI (case-folded)."""
    found = {r.key.casefold()}
    if r.arxiv_id:
        found.add(r.arxiv_id.casefold())
    if r.doi:
        found |= {r.doi.casefold(), f"doi:{r.doi}".casefold()}
    return found


def _pinned(records: list[Record], wanted: tuple[str, ...]) -> tuple[Record, ...]:
    """The records named in ``pinned``, in the order given; ids that name no record are skipped."""
    out: list[Record] = []
    for rid in wanted:
        r = next((r for r in records if rid.casefold() in _ids(r)), None)
        if r is not None and r not in out:
            out.append(r)
    return tuple(out)


def _with_extra_links(records: list[Record], extra: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]) -> list[Record]:
    """Records with the author file's ``extra_links`` added (a kind the record has keeps its own URL)."""
    if not extra:
        return records
    out = []
    for r in records:
        ids = _ids(r)
        added = [link for rid, links in extra if rid.casefold() in ids for link in links]
        kinds = {k for k, _ in r.links}
        new = [(k, u) for k, u in dict(added).items() if k not in kinds]
        out.append(dataclasses.replace(r, links=r.links + tuple(new)) if new else r)
    return out


def _cited(records: list[Record], citations: str | None) -> list[Record]:
    """Citation counts are shown (pages, CSL-JSON) only when the site turns them on
    (``citations: openalex``); otherwise they are dropped here, so no output shows them."""
    if citations:
        return records
    return [dataclasses.replace(r, citations=None, citations_date=None) if r.citations is not None else r
            for r in records]


def subjects_of(authors: Sequence[Author], tax: Taxonomy) -> tuple[Subject, ...]:
    """Every subject of the authors' records (arXiv's taxonomy), its records newest first (each
    once: the first author's copy that lists it there), and how many records each author has in it."""
    by_code: dict[str, dict[str, Record]] = defaultdict(dict)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for a in authors:
        for r in a.records:
            for code in dict.fromkeys(r.subjects):   # (a code a record lists twice counts once, as its author's)
                by_code[code].setdefault(r.key, r)
                counts[code][a.slug] += 1
    out = []
    for code, recs in by_code.items():
        cat = tax.get(code)
        if cat is None:
            continue
        out.append(subject(code, cat, tuple(sort_newest_first(recs.values())),
                           tuple(sorted(counts[code].items(), key=lambda kv: (-kv[1], kv[0])))))
    return tuple(sorted(out, key=lambda s: (tax.group_rank(s.group), s.code.casefold())))


def subject(code: str, cat: Category, records: tuple[Record, ...], authors: tuple[tuple[str, int], ...]) -> Subject:
    """The subject ``code`` named as arXiv's taxonomy names it (``cat``), with its records and authors."""
    return Subject(code=code, name=cat.name, archive=cat.archive, archive_name=cat.archive_name, group=cat.group,
                   group_name=cat.group_name, records=records, authors=authors)
