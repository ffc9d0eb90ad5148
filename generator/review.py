"""``authorsite review SLUG``: which fetched records an author keeps or drops, and why; which
records of several sources were merged into one, and which were kept apart, and why.

Name disambiguation is done by hand: the maintainer reads this list, then adds ids
to ``include``/``exclude`` or tightens the filters. Every cached record of each
fetched source is shown with the verdict and the rule of ``filters.decide`` (the
same function the build uses, so the list cannot disagree with the site); typed-in
records are always kept. The kept records then go through ``merge.merge`` (the build's own
merge, with the author's ``separate`` pairs): each merged record is listed with the sources that
gave it and the reason of each join ("same DOI 10.1/x", "title+year"), then every match refused
(and why), then similar titles of one year that were not matched, so a wrong merge can be undone
with ``separate`` and a missed one spotted. Before those, every record of the page with how it was
matched (by an identifier, or by name only, generator.assemble.matching), as the page and the CSL-JSON say. Reading the cache only (through ``store``, with the same
warning as the build for a file it cannot read): no network.
"""

from __future__ import annotations

import difflib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from generator.store import cache
from generator.assemble import matching
from generator.assemble.site import kept_records
from generator.config import AuthorConfig, SiteConfig, Source
from generator.config.kinds.records import TYPED_IN
from generator.config.sources import kind_of
from generator.core.errors import SiteError
from generator.assemble.filters import Verdict, decide
from generator.assemble.merge import Decision, Merged, handle, handles, merge, normalize_title
from generator.core.model import Record
from generator.store.reader import Store, read_all

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SourceReview:
    label: str
    cache_path: str | None          # None for typed-in records
    status: str                     # "fetched 2026-…", "not fetched yet", "unreadable: …", "typed in"
    verdicts: tuple[Verdict, ...]

    @property
    def kept(self) -> int:
        return sum(v.kept for v in self.verdicts)


@dataclass(frozen=True, slots=True)
class AuthorReview:
    author: AuthorConfig
    sources: tuple[SourceReview, ...]
    merged: Merged = Merged((), ())

    @property
    def fetched(self) -> tuple[Verdict, ...]:
        return tuple(v for s in self.sources if s.cache_path is not None for v in s.verdicts)

    @property
    def typed_in(self) -> tuple[Verdict, ...]:
        return tuple(v for s in self.sources if s.cache_path is None for v in s.verdicts)


def review_author(config: SiteConfig, slug: str) -> AuthorReview:
    """Read the author's cache files and judge every record."""
    author = next((a for a in config.authors if a.slug == slug), None)
    if author is None:
        known = [a.slug for a in config.authors]
        close = difflib.get_close_matches(slug, known, n=1)
        guess = f"did you mean '{close[0]}'? " if close else ""
        raise SiteError(f"no author '{slug}' in content/authors/",
                        hint=f"{guess}authors: {', '.join(known) or 'none'}")
    store = read_all(config, (slug,))
    for warning in store.warnings:
        log.warning("%s", warning)
    return AuthorReview(author, review_sources(config, author, store),
                        merge(kept_records(author, store), author.separate))


def review_sources(config: SiteConfig, author: AuthorConfig, store: Store) -> tuple[SourceReview, ...]:
    """Pure: judge the records of every source of the author, in the order of the author file."""
    out: list[SourceReview] = []
    for source in author.sources:
        kind = kind_of(source)
        records = kind.records(source, store.records(author.slug, source))
        path = cache.cache_file(config.cache_path, author.slug, source)
        if path is None:
            out.append(SourceReview(kind.review_text(source), None, TYPED_IN,
                                    tuple(Verdict(r, True, TYPED_IN) for r in records)))
            continue
        cats = kind.categories(source)
        verdicts = tuple(decide(author, r, cats) for r in _newest_first(records))
        out.append(SourceReview(kind.review_text(source), _rel(path, config.root),
                                _status(store, author.slug, source), verdicts))
    return tuple(out)


def format_review(review: AuthorReview) -> list[str]:
    """Lines for the terminal: a block per source, then the counts."""
    a = review.author
    lines = [f"{a.name} ({a.path})"]
    for s in review.sources:
        if s.cache_path is None:
            lines.append(f"\n{len(s.verdicts)} typed-in record(s) from {a.path}, always kept:")
        else:
            lines.append(f"\n{s.label}: {s.cache_path}, {s.status}; {len(s.verdicts)} record(s), "
                         f"{s.kept} kept, {len(s.verdicts) - s.kept} dropped")
        for v in s.verdicts:
            lines.append(_line(v))
    lines.extend(format_matches(review.merged))
    lines.extend(format_merges(review.merged))
    lines.extend(f"\nseparate: [{x}, {y}] in {a.path} names no record of this author; check the ids"
                 for x, y in unused_separate(a.separate, review.merged))
    fetched, typed = review.fetched, review.typed_in
    kept = sum(v.kept for v in fetched)
    lines.append(f"\n{len(fetched)} fetched record(s): {kept} KEPT, {len(fetched) - kept} DROPPED; "
                 f"{len(typed)} typed in (kept)")
    return lines


def format_matches(merged: Merged) -> list[str]:
    """How each record on the page was matched (generator.assemble.matching), by name only first: those
    may be a namesake's. Each record by the id that ``exclude:`` and the "Not mine?" link name."""
    order = {matching.NAME: 0, matching.CONFIRMED: 1, matching.IDENTIFIER: 2}
    records = sorted((g.record for g in merged.groups), key=lambda r: order.get(matching.basis(r.match), 3))
    if not records:
        return []
    named = sum(matching.is_name_only(r) for r in records)
    lines = [f"\nHow each record was matched ({named} by name only; 'exclude' drops a namesake's):"]
    for r in records:
        label = (matching.basis(r.match) or "unknown").upper()
        lines.append(f"  {label:10}  {_printable(matching.record_id(r)):18}  {r.year or '----'}  "
                     f"{_short(r.title):60}  {matching.words(r.match)}")
    return lines


def format_merges(merged: Merged) -> list[str]:
    """The merged records with their sources and reasons, the refused matches, similar titles."""
    lines: list[str] = []
    groups = [g for g in merged.groups if len(g.parts) > 1]
    if groups:
        lines.append(f"\n{len(groups)} record(s) merged from several sources ('separate' undoes a wrong one):")
    for g in groups:
        lines.append(f"  {_ident(g.record):18}  {g.record.year or '----'}  {_short(g.record.title)}")
        lines.append(f"    from {', '.join(g.record.origins)}")
        lines.extend(f"    {_name(d.a)} + {_name(d.b)}: {d.reason}" for d in g.decisions)
    apart = [*merged.apart, *similar_titles(merged)]
    if apart:
        lines.append(f"\n{len(apart)} pair(s) kept apart:")
    for d in apart:
        lines.append(f"  {_name(d.a)} / {_name(d.b)}: {d.reason}")
        lines.append(f"    {_short(d.a.title)!r} / {_short(d.b.title)!r}")
    return lines


def unused_separate(separate: Sequence[tuple[str, str]], merged: Merged) -> list[tuple[str, str]]:
    """The ``separate`` pairs of which one id or both name no record (a typo, or a record gone)."""
    known = {h for g in merged.groups for p in g.parts for h in handles(p)}
    return [(x, y) for x, y in separate if handle(x) not in known or handle(y) not in known]


def similar_titles(merged: Merged) -> list[Decision]:
    """Records of one year left in different groups whose titles start alike (Part I / Part II,
    an erratum, an extended version): shown so the reader sees they were judged different."""
    by_start: dict[tuple[int | None, str], list[tuple[int, str, Record]]] = {}
    for n, g in enumerate(merged.groups):
        for p in g.parts:
            norm = normalize_title(p.title)
            by_start.setdefault((p.year, " ".join(norm.split()[:2])), []).append((n, norm, p))
    out: list[Decision] = []
    for (_, start), members in sorted(by_start.items(), key=lambda kv: (kv[0][0] or 0, kv[0][1])):
        seen: set[tuple[int, int]] = set()
        for i, (ga, ta, a) in enumerate(members):
            for gb, tb, b in members[i + 1:]:
                if start and ga != gb and (ga, gb) not in seen and ta != tb and \
                        difflib.SequenceMatcher(None, ta, tb).ratio() >= 0.8:
                    seen.add((ga, gb))
                    out.append(Decision(a, b, "similar titles, not the same work (titles differ)", False))
    return out


def _name(r: Record) -> str:
    label = r.origins[0] if len(r.origins) == 1 else r.source
    return f"{_printable(label)} {_printable(r.key)}"


def _short(title: str) -> str:
    title = _printable(title)
    return title if len(title) <= 60 else title[:59] + "…"


def _ident(r: Record) -> str:
    ident = f"{r.arxiv_id}v{r.version}" if r.arxiv_id and r.version else (r.arxiv_id or r.doi or "-")
    return _printable(ident)


def _line(v: Verdict) -> str:
    r = v.record
    return f"  {'KEPT' if v.kept else 'DROPPED':7}  {_ident(r):18}  {r.year or '----'}  {_short(r.title):60}  {v.rule}"


def _printable(text: str) -> str:
    """A hand-edited cache could hold terminal escapes: show them, never send them."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def _newest_first(records: Sequence[Record]) -> list[Record]:
    out = sorted(records, key=lambda r: r.key)
    out.sort(key=lambda r: r.published or "", reverse=True)
    return out


def _status(store: Store, slug: str, source: Source) -> str:
    entry = store.entry(slug, source)
    if entry is not None:
        return f"fetched {entry.fetched_at or 'at an unknown time'}"
    problem = store.problem(slug, source)
    return f"unreadable: {problem.reason}" if problem else "not fetched yet (run 'authorsite fetch')"


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
