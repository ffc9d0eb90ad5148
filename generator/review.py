"""``authorsite review SLUG``: which fetched records an author keeps or drops, and why.

Name disambiguation is done by hand: the maintainer reads this list, then adds ids
to ``include``/``exclude`` or tightens the filters. Every cached record of each
fetched source is shown with the verdict and the rule of ``filters.decide`` (the
same function the build uses, so the list cannot disagree with the site); typed-in
records are always kept. Reading the cache only (through ``store``, with the same
warning as the build for a file it cannot read): no network.
"""

from __future__ import annotations

import difflib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from generator import cache
from generator.config import AuthorConfig, SiteConfig, Source
from generator.errors import SiteError
from generator.filters import Verdict, decide
from generator.model import Record
from generator.sources.records import TYPED_IN
from generator.sources.registry import kind_of
from generator.store import Store, read_all

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
    return AuthorReview(author, review_sources(config, author, store))


def review_sources(config: SiteConfig, author: AuthorConfig, store: Store) -> tuple[SourceReview, ...]:
    """Pure: judge the records of every source of the author, in the order of the author file."""
    out: list[SourceReview] = []
    for source in author.sources:
        kind = kind_of(source)
        records = kind.records(source, store.entry(author.slug, source))
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
    fetched, typed = review.fetched, review.typed_in
    kept = sum(v.kept for v in fetched)
    lines.append(f"\n{len(fetched)} fetched record(s): {kept} KEPT, {len(fetched) - kept} DROPPED; "
                 f"{len(typed)} typed in (kept)")
    return lines


def _line(v: Verdict) -> str:
    r = v.record
    ident = f"{r.arxiv_id}v{r.version}" if r.arxiv_id and r.version else (r.arxiv_id or r.doi or "-")
    title = _printable(r.title)
    title = title if len(title) <= 60 else title[:59] + "…"
    return f"  {'KEPT' if v.kept else 'DROPPED':7}  {_printable(ident):18}  {r.year or '----'}  {title:60}  {v.rule}"


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
