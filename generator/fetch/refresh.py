"""The order, batching and time budget of ``authorsite fetch``: a refresh whose cost follows new papers.

Asking every author's query once per run costs a request per author (50 minutes for
1,000 authors at arXiv's 3 s). Instead, arXiv sources that already have a cache are
asked together, several queries OR-ed into one request (``refresh_batch``), newest first,
back to the time each was last refreshed; an author's own query is asked again (through
``fetch``'s per-source path, with all its rules) only when a record of that batch is new
to that author's cache and may belong to it (``refresh_match``). With nothing new, a run
costs one request per batch. Sources without a cache, feeds, and queries that cannot be
matched locally are fetched one by one, as before, and so is every source of a site with
fewer than ``MIN_BATCH`` batchable queries.

Sources are taken least recently refreshed first, and with a budget (``fetch --budget``)
the run stops before a piece of work whose estimated time would pass it; what is left is
reported and goes first next time, so every author is refreshed within a few runs.

When each source was last refreshed is kept in ``.authorsite/refresh.json``, not in the
cache envelope: writing the time into the committed cache files would rewrite all of them
on every run, where a run with nothing new must leave the cache (and the git history)
untouched. The state file is local (restored by CI's cache); without it, a source counts as
refreshed when its cache file last changed (``fetched_at``), which is never later than the
truth, so a lost state costs some pages, never a paper.
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Sequence

from generator.store import cache
from generator.config import AuthorConfig, SiteConfig, Source
from generator.config.sources import kind_of
from generator.core.files import atomic_write
from generator.core.model import Record
from generator.fetch.refresh_batch import fetch_batch, pack
from generator.fetch.refresh_match import AuthorTerm, RecordIndex, author_terms
from generator.sources.arxiv import endpoint_url
from generator.sources.http import FetchError
from generator.sources.outcome import SourceResult
from generator.sources.registry import FetchContext
from generator.store.reader import Store

log = logging.getLogger(__name__)

STATE_FORMAT = 1
MARGIN = timedelta(days=14)   # arXiv announces a paper days (on hold: weeks) after its submission time
# Fewer queries than this are asked one by one: a batch would save under half a minute, and an
# author's own query (as every fetch asked before batching) also finds what a cache lacks from
# before its last refresh, which a batch, reaching back only to that refresh, cannot.
MIN_BATCH = 10
_NEVER = datetime.min.replace(tzinfo=timezone.utc)

FetchOne = Callable[[SiteConfig, str, Source, FetchContext, Store, Callable[[], datetime]],
                    "tuple[SourceResult, Store]"]


@dataclass(frozen=True, slots=True)
class Item:
    """One fetched source of one author, with what the plan needs to know about it."""

    slug: str
    source: Source
    state_key: str                     # "<slug>/<cache key>"
    last: datetime | None              # last refreshed (state file, else the cache's fetched_at)
    query: str | None = None           # an arXiv query that may share a batch
    terms: tuple[AuthorTerm, ...] = ()
    known: tuple[tuple[str, int | None], ...] = ()   # (key, version) cached
    cached: bool = True                # a cache file was read (else this is a first fetch)


@dataclass(frozen=True, slots=True)
class Unit:
    """One piece of work: a batch of arXiv queries, or one source on its own."""

    items: tuple[Item, ...]
    batched: bool

    @property
    def oldest(self) -> datetime:
        return min((i.last or _NEVER) for i in self.items)


@dataclass
class Budget:
    """Wall-clock seconds for the run; work is started only when its estimate fits."""

    seconds: float | None
    delay: float
    started: float = field(default_factory=time.monotonic)

    def allows(self, requests: int, done: int) -> bool:
        if self.seconds is None:
            return True
        elapsed = time.monotonic() - self.started
        per_request = max(self.delay, elapsed / done) if done else self.delay + 1.0
        return elapsed + requests * per_request <= self.seconds


def state_path(root: Path) -> Path:
    return root / ".authorsite" / "refresh.json"


def load_state(root: Path) -> dict[str, str]:
    """``state_key -> refreshed at``; an unreadable file is a state lost (a warning, then fetched_at)."""
    path = state_path(root)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
        if data.get("format") != STATE_FORMAT:
            raise ValueError(f"format {data.get('format')!r} is not {STATE_FORMAT}")
        return {str(k): str(v) for k, v in data["refreshed"].items()}
    except (OSError, ValueError, KeyError, AttributeError, TypeError) as exc:
        log.warning("%s: unreadable (%s); each source counts as refreshed when its cache file last changed",
                    path, exc)
        return {}


def save_state(root: Path, state: dict[str, str]) -> None:
    doc = {"format": STATE_FORMAT, "refreshed": dict(sorted(state.items()))}
    atomic_write(state_path(root), (json.dumps(doc, indent=1) + "\n").encode("utf-8"))


def parse_time(text: str | None) -> datetime | None:
    try:
        return datetime.strptime(text or "", "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def plan_items(authors: Sequence[AuthorConfig], store: Store, state: dict[str, str]) -> list[Item]:
    """Every fetched source, least recently refreshed first (ties in author order). Pure."""
    items: list[Item] = []
    for a in authors:
        for s in a.sources:
            kind = kind_of(s)
            key = kind.cache_key(s)
            if key is None:
                continue
            entry = store.entry(a.slug, s)
            state_key = f"{a.slug}/{key}"
            last = parse_time(state.get(state_key)) or (parse_time(entry.fetched_at) if entry else None)
            query = kind.description(s).get("query") if kind.key == "arxiv" and entry else None
            terms = author_terms(query) if query else None
            if entry is None or last is None or terms is None:
                items.append(Item(a.slug, s, state_key, last, cached=entry is not None))
            else:
                items.append(Item(a.slug, s, state_key, last, query, terms,
                                  tuple((r.key, r.version) for r in entry.records)))
    order = {id(i): n for n, i in enumerate(items)}
    return sorted(items, key=lambda i: (i.last or _NEVER, order[id(i)]))


def plan_units(items: Sequence[Item], pack: Callable[[list[Item]], list[list[Item]]]) -> list[Unit]:
    """Batchable items packed into batches (``pack`` keeps each URL short), the rest alone;
    oldest first. A group smaller than ``MIN_BATCH`` is asked query by query. Pure."""
    groups = pack([i for i in items if i.query is not None])
    units = [Unit((i,), False) for i in items if i.query is None]
    units += [Unit(tuple(g), True) for g in groups if len(g) >= MIN_BATCH]
    units += [Unit((i,), False) for g in groups if len(g) < MIN_BATCH for i in g]
    return sorted(units, key=lambda u: u.oldest)


def new_for(item: Item, index: RecordIndex) -> tuple[Record, ...]:
    """The batch's records that may belong to this item and are new to its cache (or a newer version)."""
    known = dict(item.known)
    out = []
    for r in index.may_belong(item.terms):
        if r.key in known:
            old = known[r.key]
            if old is None or r.version is None or r.version <= old:
                continue
        out.append(r)
    return tuple(out)


def expected_requests(unit: Unit, page_size: int, max_results: int) -> int:
    """A first fetch may page through everything; anything else usually takes one request."""
    item = unit.items[0]
    if not unit.batched and not item.cached:
        return max(1, min(20, math.ceil(max_results / page_size)))
    return 1


def parse_budget(text: str) -> float:
    """``20m``, ``90s``, ``1.5h`` or plain seconds -> seconds (ValueError if it is none of these)."""
    raw = text.strip().lower()
    scale = {"s": 1.0, "m": 60.0, "h": 3600.0}.get(raw[-1:], None)
    number = raw[:-1] if scale else raw
    value = float(number) * (scale or 1.0)   # ValueError for text that is not a number
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{text!r} is not a positive time")
    return value


@dataclass(frozen=True, slots=True)
class Outcome:
    results: tuple[SourceResult, ...]
    left: tuple[str, ...]              # "slug: label" of each source left for the next run


def refresh_sources(config: SiteConfig, authors: Sequence[AuthorConfig], context: FetchContext, store: Store,
                    now: Callable[[], datetime], fetch_one: FetchOne, budget: float | None = None) -> Outcome:
    """Refresh the authors' sources: least recently refreshed first, arXiv queries in batches,
    within ``budget`` seconds (None: all). ``fetch_one`` is fetch's own per-source path."""
    size = context.policy.page_size
    state = load_state(config.root)
    items = plan_items(authors, store, state)
    endpoint = endpoint_url(context.policy, context.environ) if any(i.query for i in items) else ""
    units = plan_units(items, lambda xs: pack(xs, lambda i: i.query or "", endpoint, size))
    batches = [u for u in units if u.batched]
    log.info("refresh: %d source(s); %d in %d batched request(s), %d on their own", len(items),
             sum(len(u.items) for u in batches), len(batches), len(units) - len(batches))
    run = _Run(config, context, store, now, fetch_one, Budget(budget, context.policy.delay_seconds),
               state, endpoint)
    run.all(units)
    if run.left:
        log.warning("budget reached: %d source(s) left for the next run, which takes them first",
                    len(run.left))
    return Outcome(tuple(run.results), tuple(run.left))


class _Run:
    """The mutable side of one refresh: the store as written so far, results, state, budget."""

    def __init__(self, config: SiteConfig, context: FetchContext, store: Store, now: Callable[[], datetime],
                 fetch_one: FetchOne, budget: Budget, state: dict[str, str], endpoint: str) -> None:
        self.config, self.context, self.store, self.now = config, context, store, now
        self.fetch_one, self.budget, self.state, self.endpoint = fetch_one, budget, state, endpoint
        self.results: list[SourceResult] = []
        self.left: list[str] = []
        self.first_request = context.client.requests
        self.valid = {f"{a.slug}/{kind_of(s).cache_key(s)}" for a in config.authors for s in a.sources}

    def all(self, units: Sequence[Unit]) -> None:
        policy = self.context.policy
        for n, unit in enumerate(units):
            if not self._affords(expected_requests(unit, policy.page_size, policy.max_results)):
                self.left += [self._name(i) for u in units[n:] for i in u.items]
                return
            if unit.batched:
                self._batch(unit)
            else:
                self._alone(unit.items[0], self._stamp())
            self._save()

    def _affords(self, requests: int) -> bool:
        return self.budget.allows(requests, self.context.client.requests - self.first_request)

    def _stamp(self) -> str:
        return self.now().strftime("%Y-%m-%dT%H:%M:%SZ")

    def _name(self, item: Item) -> str:
        return f"{item.slug}: {kind_of(item.source).label(item.source)}"

    def _alone(self, item: Item, stamp: str) -> None:
        res, self.store = self.fetch_one(self.config, item.slug, item.source, self.context, self.store, self.now)
        self.results.append(res)
        if not res.error:
            self.state[item.state_key] = stamp

    def _batch(self, unit: Unit) -> None:
        stamp = self._stamp()
        before = self.context.client.requests
        queries = [i.query or "" for i in unit.items]
        try:
            found = fetch_batch(self.context.client, self.endpoint, queries, unit.oldest - MARGIN,
                                self.context.policy, self.context.policy.page_size)
        except FetchError as exc:
            self.results.append(self._batch_row(unit, self.context.client.requests - before, str(exc.reason)))
            if exc.refused:   # one query the API refuses spoils the batch: each on its own names the culprit
                for item in unit.items:
                    if self._affords(1):
                        self._alone(item, self._stamp())
                    else:
                        self.left.append(self._name(item))
            return
        self.results.append(self._batch_row(unit, found.requests, None))
        index = RecordIndex(found.records)
        for item in unit.items:
            if found.reached and not new_for(item, index):
                self.results.append(self._covered(item))
                self.state[item.state_key] = stamp
            elif self._affords(1):
                self._alone(item, stamp)     # confirm with the author's own query, as a fetch always did
            else:
                self.left.append(self._name(item))

    def _batch_row(self, unit: Unit, requests: int, error: str | None) -> SourceResult:

        first = unit.items[0].slug
        label = f"arXiv batch of {len(unit.items)} queries ({first} ...)"
        return SourceResult("(batch)", label, "", requests, error=error)

    def _covered(self, item: Item) -> SourceResult:

        path = cache.cache_file(self.config.cache_path, item.slug, item.source)
        rel = path.relative_to(self.config.root).as_posix() if path and path.is_relative_to(self.config.root) \
            else str(path)
        return SourceResult(item.slug, kind_of(item.source).label(item.source), rel, 0, records=len(item.known))

    def _save(self) -> None:
        try:
            save_state(self.config.root, {k: v for k, v in self.state.items() if k in self.valid})
        except OSError as exc:   # the caches are written; only the order of the next run suffers
            log.warning("cannot write %s (%s); the next run may ask arXiv for more pages",
                        state_path(self.config.root), exc.strerror or exc)
