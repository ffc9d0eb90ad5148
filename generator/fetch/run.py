"""``authorsite fetch``: every author's arXiv queries and feeds -> ``content/cache/``.

The rule is *never lose data*. A source's cache file is replaced only by accepted
pages, and only by a superset of what it held: fetched records are merged into the
cached ones (new ids added, changed ones replaced, a newer cached version never
downgraded), nothing is ever removed. A fetch that fails after its retries leaves the
file byte-identical and the run goes on with a warning; the build then uses the cache.
A paged fetch that fails part-way keeps the complete pages before the bad one, marks
the file ``incomplete`` (where to resume) and counts as failed; the next fetch resumes
there. The run's exit status (``exit_status``) is 3 when a source failed or stopped
part-way, 4 when the API refused a query as written (README.md, "Exit codes").

A file whose records did not change is not rewritten at all, so ``fetched_at`` is
the time its content last changed and a scheduled fetch with nothing new leaves
the committed cache (and the git history) untouched. A missing or unreadable cache
file is simply a first fetch. The cache is read through ``generator.store.reader`` (the same reader
and warnings as the build); each kind's own fetching is ``SourceKind.fetch``.

All sources share one ``HttpClient``: the delay between requests holds across
authors, and there is never more than one connection.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from generator.store import cache
from generator.config import AuthorConfig, SiteConfig, Source
from generator.config.sources import kind_of
from generator.core.errors import EXIT_OK, EXIT_OUTPUT, EXIT_REFUSED, EXIT_UPSTREAM, SiteError
from generator.core.model import Record
from generator.core.files import build_lock
from generator.store.record_json import to_json
from generator.fetch.refresh import refresh_sources
from generator.sources.http import ClientPolicy, FetchError, HttpClient
from generator.sources.outcome import PartialFetch, SourceResult, fetched_parts
from generator.sources import registry
from generator.sources.registry import FetchContext
from generator.store.reader import Store, read_all

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FetchReport:
    results: tuple[SourceResult, ...]
    left: tuple[str, ...] = ()       # sources the --budget left for the next run (refresh.py)

    @property
    def failed(self) -> tuple[SourceResult, ...]:
        return tuple(r for r in self.results if r.error)

    @property
    def requests(self) -> int:
        return sum(r.requests for r in self.results)

    @property
    def exit_status(self) -> int:
        """4 if a query was refused (fix the author file), else 3 if a source failed or stopped
        part-way (an outage: the cache was kept), else 0."""
        if any(r.refused for r in self.results):
            return EXIT_REFUSED
        return EXIT_UPSTREAM if self.failed else EXIT_OK


def fetch_site(config: SiteConfig, *, only: Sequence[str] = (), environ: Mapping[str, str] | None = None,
               client: HttpClient | None = None,
               now: Callable[[], datetime] = lambda: datetime.now(timezone.utc),
               budget: float | None = None) -> FetchReport:
    """Fetch every fetched source of every author (or of the ``only`` slugs) into the cache."""
    env = os.environ if environ is None else environ
    authors = [a for a in config.authors if not only or a.slug in only]
    policy = config.fetch
    for a in authors:   # refuse an impolite setting before the first request, not half-way
        for s in a.sources:
            registry.check(s, policy, env, a.path)
    own = client is None
    http = client or HttpClient(
        ClientPolicy(delay_seconds=policy.delay_seconds, timeout_seconds=policy.timeout_seconds,
                     retries=policy.retries, retry_after_cap=policy.retry_after_cap),
        contact=config.contact)
    try:
        # One fetch at a time per site; then temporary files of a killed earlier run can go.
        with build_lock(config.root, "fetch"):
            for stale in cache.remove_stale_temps(config.cache_path):
                log.info("removed %s (left by an interrupted fetch)", _rel(stale, config.root))
            return _fetch_authors(config, authors, FetchContext(http, policy, env), now, budget)
    finally:
        if own:
            http.close()


def _fetch_authors(config: SiteConfig, authors: Sequence[AuthorConfig], context: FetchContext,
                   now: Callable[[], datetime], budget: float | None) -> FetchReport:
    """Order, batching and budget are refresh.py's; each source on its own goes through _fetch_source."""
    store = read_all(config, {a.slug for a in authors}, whole_files=True)
    for warning in store.warnings:   # an unreadable file is a first fetch
        log.warning("%s", warning)

    def fetch_one(*args: Any) -> tuple[SourceResult, Store]:  # noqa: ANN401
        res, new_store = _fetch_source(*args)
        _log_result(res)
        return res, new_store
    done = refresh_sources(config, authors, context, store, now, fetch_one, budget)
    return FetchReport(done.results, done.left)


def _fetch_source(config: SiteConfig, slug: str, source: Source, context: FetchContext, store: Store,
                  now: Callable[[], datetime]) -> tuple[SourceResult, Store]:
    """Fetch one source, merge into its cache entry, write it; the store then holds what was written."""
    kind = kind_of(source)
    path = cache.cache_file(config.cache_path, slug, source)
    assert path is not None
    rel = _rel(path, config.root)
    label = kind.label(source)
    log.info("%s: fetching %s", slug, label)
    cached = store.entry(slug, source)
    old = cached.records if cached else ()
    http = context.client
    before = http.requests
    partial: PartialFetch | None = None
    try:
        fetched, asked = fetched_parts(registry.fetch(source, replace(context, entry=cached), old))
    except PartialFetch as exc:   # the complete pages before the bad one: keep them, resume there
        partial, (fetched, asked) = exc, (exc.records, cached.max_results if cached else None)
    except FetchError as exc:
        return _failed(config, slug, source, label, rel, exc, http.requests - before, old, cached is not None), store
    merged, new, updated = merge_fetched(old, fetched)
    entry = cache.CacheEntry(source=kind.description(source), fetched_at=now().strftime("%Y-%m-%dT%H:%M:%SZ"),
                             records=merged, incomplete=partial.incomplete if partial else None, max_results=asked)
    written = False
    if cached is None or new or updated or _envelope(cached) != _envelope(entry):
        written = _write(path, rel, entry)
        store = store.with_entry(slug, source, entry)
    result = SourceResult(slug, label, rel, http.requests - before, new=new, updated=updated,
                          records=len(merged), written=written)
    if partial is not None:
        result = _partial(result, partial)
    return result, store


def _envelope(entry: cache.CacheEntry) -> tuple[object, ...]:
    """What a cache file says besides its records whose change alone rewrites the file. Not
    ``max_results``: a fetch with nothing new leaves a file untouched (an older file without the
    field still backfills, from the count of records it holds, see ``sources.arxiv``)."""
    return entry.source, entry.incomplete


def _write(path: Path, rel: str, entry: cache.CacheEntry) -> bool:
    try:
        return cache.write_entry(path, entry)
    except OSError as exc:   # disk full, read-only checkout: the old file is still there (atomic write)
        raise SiteError(f"cannot write the cache file: {exc.strerror or exc}", path=rel,
                        hint="the previous cache file was left as it was; free space or fix permissions "
                             "and fetch again", exit_code=EXIT_OUTPUT) from exc


def _partial(result: SourceResult, exc: PartialFetch) -> SourceResult:
    """A source fetched in part: its complete pages were merged and written, the rest comes next time."""
    mark = exc.incomplete
    error = (f"stopped at {mark.next_start} of {mark.total} ({exc.reason}); kept the pages before it "
             f"and marked the cache incomplete: the next fetch resumes there")
    log.warning("%s: %s could only be fetched in part: %s", result.slug, result.label, error)
    return replace(result, error=error, incomplete=mark)


def _failed(config: SiteConfig, slug: str, source: Source, label: str, rel: str, exc: FetchError, requests: int,
            old: Sequence[Record], had_cache: bool) -> SourceResult:
    """A source that could not be fetched: its cache is kept as it was. A query the upstream
    refused is not an outage: the message names the author file and line to fix."""
    error = str(exc.reason)
    if exc.refused:
        author = next(a for a in config.authors if a.slug == slug)
        error = (f"{author.path}:{source.line}: {label} could not be fetched: the query was refused: "
                 f"{exc.reason}; fix the query there")
    kept = (f"kept {rel} as it was (the build uses it)" if had_cache else
            "nothing was cached from it before, so the build uses the author's other sources")
    log.warning("%s: %s; %s", slug, error if exc.refused else f"{label} could not be fetched: {exc.message}", kept)
    return SourceResult(slug, label, rel, requests, records=len(old), error=error, refused=exc.refused,
                        offline=exc.unresolved, had_cache=had_cache)


def merge_fetched(cached: Sequence[Record], fetched: Sequence[Record]) -> tuple[tuple[Record, ...], int, int]:
    """Cached records plus the fetched ones: (records sorted by key, new count, updated count). Pure.

    Nothing cached is ever dropped; a fetched record replaces its cached copy when it
    differs, unless it is an older version (arXiv's index can lag behind itself).
    """
    by_key = {r.key: r for r in cached}
    new = updated = 0
    for r in fetched:
        r = replace(r, order=0)
        old = by_key.get(r.key)
        if old is None:
            new += 1
        elif old.version and r.version and r.version < old.version:
            continue
        elif to_json(old) != to_json(r):
            updated += 1
        else:
            continue
        by_key[r.key] = r
    return tuple(sorted(by_key.values(), key=lambda r: r.key)), new, updated


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _log_result(r: SourceResult) -> None:
    if r.error:
        return
    log.info("%s: %s: %d request%s, %d new, %d updated, %d cached%s", r.slug, r.label, r.requests,
             "" if r.requests == 1 else "s", r.new, r.updated, r.records, "" if r.written else " (unchanged)")


def summary_table(report: FetchReport) -> list[str]:
    """The end-of-run table: one line per author and source."""
    head = ("author", "source", "requests", "new", "updated", "records", "status")
    rows = [(r.slug, _short(r.label, 48), str(r.requests), str(r.new), str(r.updated), str(r.records), _status(r))
            for r in report.results]
    widths = [max(len(x[i]) for x in (head, *rows)) for i in range(len(head))]
    numeric = {2, 3, 4, 5}

    def fmt(row: tuple[str, ...]) -> str:
        return "  ".join(c.rjust(w) if i in numeric else c.ljust(w)
                         for i, (c, w) in enumerate(zip(row, widths))).rstrip()

    partial = sum(1 for r in report.results if r.incomplete)
    total = (f"{len(report.results)} source(s), {report.requests} request(s), "
             f"{sum(r.new for r in report.results)} new, {sum(r.updated for r in report.results)} updated, "
             f"{len(report.failed)} failed" + (f" ({partial} in part: incomplete, resumed next time)"
                                               if partial else "")
             + (f", {len(report.left)} left for the next run" if report.left else ""))
    left = [f"left for the next run, which takes them first: {', '.join(report.left[:20])}"
            + (f" and {len(report.left) - 20} more" if len(report.left) > 20 else "")] if report.left else []
    return [fmt(head), *(fmt(r) for r in rows), total, *left]


def _status(r: SourceResult) -> str:
    if r.incomplete:
        return (f"INCOMPLETE at {r.incomplete.next_start} of {r.incomplete.total}, pages before kept: "
                + _short(r.error or "", 40))
    if r.error:
        head = ("REFUSED, fix the author file" if r.refused else
                "FAILED, cache kept" if r.had_cache else "FAILED, nothing cached yet")
        return f"{head}: {_short(r.error.split(' (', 1)[0], 60)}"   # the reason; its details are above
    return "written" if r.written else "unchanged"


def _short(text: str, n: int) -> str:
    """``text`` in at most ``n`` characters, cut between words (never mid-word) with an ellipsis:
    the whole message is in the warning above the table."""
    if len(text) <= n:
        return text
    cut = text[: n - 1]
    if not text[n - 1].isspace():   # else the cut is between words already
        at = max(cut.rfind(" "), cut.rfind("/"))   # a word's end, or a URL's path segment's
        cut = cut[: at + (cut[at] == "/")] if at >= n // 2 else cut   # (one long word: cut it)
    return cut.rstrip(" ,;:(") + "…"
