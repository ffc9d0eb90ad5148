"""The pipeline's steps: load -> read cache -> assemble -> plan jobs -> run jobs -> write.

Each step is one small function, called in order by ``run`` (as in MkDocs' build), and the
preview (generator.serve.live) calls the same ones. Everything is gathered before the first byte is
written, and the files are made in a staging folder swapped in at the end (generator.write.output),
so a bad author file, a corrupt cache or a template error fails the run with ``output/``
exactly as it was. Jobs whose inputs did not change since the last build are reused
(generator.render.jobs). A build never touches the network: fetched records come from
``content/cache/`` only.
"""

from __future__ import annotations

import functools
import logging
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from generator.assemble import feed_ids
from generator.render import jobs
from generator.render.digest import Digester
from generator.assemble.site import assemble
from generator.buildinfo import BuildResult, Clock
from generator.config import load_site
from generator.config.site import domain_mismatch
from generator.core.paths import TOOL_DIR
from generator.assemble.site import lists_every_record
from generator.core.errors import SiteError, plural
from generator.core.files import build_lock
from generator.render.i18n import language_warning
from generator.incremental import feed_kept, hollow
from generator.incremental.parsed import ParsedInputs
from generator.incremental.prelink import Prelink, Staging
from generator.incremental.snapshot import load_authors
from generator.incremental.subject_jobs import SubjectJobs
from generator.incremental.subject_order import listings, subjects
from generator.index import feeds as index_feeds, lazy
from generator.index.db import Index
from generator.index.site import Indexer, site_orders
from generator.write.output import write_site
from generator.write.parallel import Pool, check_unique, forks
from generator.render.pages import iter_tasks
from generator.render import remake
from generator.render.apart import plan_apart
from generator.write.search import Kept, search_tasks
from generator.store.reader import Store, read_all, unfetched_warning
from generator.core.taxonomy import load_taxonomy
from generator.render.themes import make_environment, static_dirs, theme_problems

if TYPE_CHECKING:
    import jinja2

    from generator.config import SiteConfig
    from generator.core.model import Record, SiteModel
    from generator.incremental.inputs import Inputs
    from generator.incremental.snapshot import Authors
    from generator.write.sitesize import SiteSize


log = logging.getLogger(__name__)

# A step that writes the planned jobs in place of ``_run`` (generator.write.shard.Writer): given the
# pool, the configuration, the model, the inputs, the jobs, the folder, and ``hollow.fill``; returns
# (bytes written, the folder's size, jobs run) as ``_run`` does.
Write = Callable[["Pool", "SiteConfig", "SiteModel", "Inputs", "Sequence[jobs.Job]", Path, Callable[[], int]],
                 "tuple[int, SiteSize, int]"]


def run(root: Path, clock: Clock, inputs: Inputs, target: Path | None, *, base_url: str | None,
        out_dir: Path | None, strict: bool, search: bool, workers: int | None, reuse: bool,
        write: Write | None = None) -> BuildResult:
    """Steps 1-6 of a build (``generator.build.build``, once it knows something changed).
    ``write``: a step that writes the planned jobs instead of step 6 (a shard's:
    generator.write.shard), given what ``_run`` is."""
    options = {"base_url": base_url, "search": search}
    scratch = None if reuse else tempfile.TemporaryDirectory(prefix="authorsite-no-reuse-")
    parsed = ParsedInputs(root) if scratch is None else ParsedInputs.empty(Path(scratch.name))
    prelink: Prelink | None = None
    index: Index | None = None
    kept: list[tuple[Record, ...]] = []   # each author's records: those loaded hollow, let go at the end
    with Pool(workers) as pool:
        try:
            prelink = _prelink(root, target, pool.workers) if reuse else None
            config = load_config(root, base_url, parsed, helper=pool.workers > 1)
            clock.stage("load config")
            index = _index(config, Path(scratch.name) if scratch is not None else None)
            authors, warnings = _read_cache(config, strict, parsed, inputs, pool.workers, index)
            kept = [a.records for a in authors.authors] if index is None else []
            clock.stage(f"read cache ({authors.assembled} authors assembled)")
            site = _assemble(config, authors, parsed, inputs, index)
            clock.stage("assemble")
            target = (out_dir or config.output_path).resolve()
            planned, pool.remake = _plan(config, site, authors, options, parsed, target if reuse else None, index)
            del authors   # (what only planning reads, let go before the render processes fork: see _plan)
            clock.stage("plan jobs")
            fill = functools.partial(hollow.fill, kept)
            total, size, rendered = _run(pool, config, planned, target, inputs.digest, clock, prelink, fill, reuse,
                                         lambda: _remember(root, site, inputs)) if write is None else \
                write(pool, config, site, inputs, planned, target, fill)
        finally:
            if prelink is not None:
                prelink.stop()
            log.debug("kept records never read here: %d", hollow.unread(kept))
            hollow.forget(kept)
            if index is not None:
                index.close()
                lazy.forget()
            if scratch is not None:
                scratch.cleanup()
    log.debug("parsed inputs: %d reused, %d parsed, %d stale entries removed", parsed.hits, parsed.misses,
              parsed.prune() if reuse else 0)
    for name, seconds in clock.stages:
        log.debug("  %-22s %6.2f s", name, seconds)
    if write is None:   # (a shard says its own)
        log.debug("%d jobs rendered, %d reused", rendered, len(planned) - rendered)
    return BuildResult(
        out_dir=target, files=sum(1 for _, _, folder in jobs.outline(planned) if not folder), bytes=total,
        authors=len(site.authors),
        records=sum(len(a.records) for a in site.authors), subjects=len(site.subjects),
        warnings=tuple(warnings), seconds=clock.seconds(), stages=tuple(clock.stages),
        rendered=rendered, reused=len(planned) - rendered, size=size, host=config.host)


def load_config(root: Path, base_url: str | None, parsed: ParsedInputs | None = None,
                helper: bool = False) -> SiteConfig:
    config = load_site(root, base_url=base_url, parsed=parsed, helper=helper)
    if not config.authors:
        raise SiteError("no authors configured", path="content/authors/",
                        hint="add one with 'authorsite new-author NAME'")

    problems = theme_problems(config)
    if problems:
        raise SiteError.from_problems(problems)
    return config


def _index(config: SiteConfig, scratch: Path | None) -> Index | None:
    """The build's index of records (generator.index): in ``.authorsite/`` (in ``scratch`` with
    --no-reuse), for a site of more than ``INDEX_FROM`` authors (``FLAT``), unless it has a page
    that lists every record at once (the lab's list, paper pages, venues: ``lists_every_record``),
    whose build holds them all anyway."""
    wanted = FLAT if FLAT is not None else len(config.authors) > INDEX_FROM
    if not wanted or lists_every_record(config):
        return None
    return Index((scratch or config.root / TOOL_DIR) / "index.sqlite")


# A build of a site of more than INDEX_FROM authors reads its records from the index
# (generator.index): its memory stays flat with the site's size. A smaller site holds them in
# memory: faster (at 1,000 x 100, a cold build 23 s against 44 s, a one-author rebuild 1.2 s
# against 2.9 s) for 875 MB against 487 MB (docs/scale.md). FLAT: True or False builds every
# site one way (the tests build both, byte for byte); None: by size.
INDEX_FROM = 1500
FLAT: bool | None = None


def _read_cache(config: SiteConfig, strict: bool, parsed: ParsedInputs, inputs: Inputs,
                workers: int = 1, index: Index | None = None) -> tuple[Authors, list[str]]:
    """Every author, assembled from its cache files or kept from the last build when they and
    its configuration are unchanged (generator.incremental.snapshot); the cache's warnings and notes are
    logged, its sources never fetched only with -v (``check`` lists them). ``--strict`` reads the whole cache (the lint reads it) and refuses the same warnings
    as ``check --strict`` (check.site_warnings)."""
    indexer = Indexer(index) if index is not None else None
    authors = load_authors(config, inputs, parsed, workers, indexer, indexer.kept if indexer is not None else None)
    try:
        warnings = _strict_warnings(config, parsed) if strict else [*authors.warnings, *domain_mismatch(config),
                                                                         *language_warning(config.root, config.language)]
        for w in warnings:
            log.warning("%s", w)
        if not strict:
            for note in unfetched_warning(authors.unfetched):
                log.debug("note: %s", note)
        if strict and warnings:
            raise SiteError(f"{plural(len(warnings), 'warning')} and --strict is on", hint="see the warnings above")
    except BaseException:
        hollow.forget([a.records for a in authors.authors])   # (the build lets go of them once it is over)
        raise
    return authors, warnings


def _strict_warnings(config: SiteConfig, parsed: ParsedInputs) -> list[str]:
    from generator.check import site_warnings   # (--strict only: it loads the lint and link checker, 25 ms)

    return site_warnings(config, read_all(config, parsed=parsed), with_lint=True)


def _assemble(config: SiteConfig, authors: Authors, parsed: ParsedInputs, inputs: Inputs,
              index: Index | None = None) -> SiteModel:
    """The site-wide parts of the model (who lists which record, subjects, people, the feeds'
    entry ids) around the authors; each subject's records in the last build's order, and the
    feeds' ids as it resolved them, when nothing they follow from changed
    (generator.incremental.subject_order, feed_kept)."""
    tax = load_taxonomy()
    orders = [p.order for p in authors.parts]
    if index is not None:   # (asked of the index: generator.index.site)
        made, listed = site_orders(index, [a.slug for a in config.authors], tax, config.feed_size)
    else:
        made = subjects(authors.authors, orders, tax, parsed)
        listed = listings(authors.authors, orders, config.feed_size, parsed)
    flat = (lambda: index_feeds.resolve(index, config.root)) if index is not None else None   # (issue 42)
    feeds = feed_kept.feed_ids(config.root, authors.authors, orders, inputs, parsed, flat)
    site = assemble(config, Store(), tax, authors.authors, made, listed, feeds)
    log.debug("assembled %s, %s", plural(len(site.authors), "author"), plural(len(site.subjects), "subject"))
    return site


def _plan(config: SiteConfig, site: SiteModel, authors: Authors, options: dict[str, object],
          parsed: ParsedInputs, out: Path | None,
          index: Index | None = None) -> tuple[Sequence[jobs.Job], remake.Remake | None]:
    """Every job of the build, the search index's included when ``options`` ask for it, with the
    digests the last build made kept where they hold (``Authors.seed``, ``keep_digests``). The
    digester's memos (a digest per record) and the authors' parts live only here: held until the
    render processes fork, each process counted them again (a one-record rebuild at 1,000 x 100
    peaked at 422 MB for the build's processes together, 379 MB with them let go). Over the
    index the jobs are kept thin, and made again to run (generator.render.remake): the Remake."""
    digester = Digester(site)
    # (over the index, its records' digests are the index's: none kept here)
    last = authors.seed(digester, parsed) if index is None else {}
    common = jobs.common_digest(config.root, site, options, config.theme, digester)   # (once: 15 ms)
    search = bool(options["search"])
    searched = plan_search(config, site, options, digester, parsed, out, common) if search else _no_search(parsed)
    env = make_environment(config.root, config.theme)
    if index is not None:   # (planned in a process of its own, its jobs all thin: generator.render.apart)
        index.db.commit()    # (what assemble wrote: the plan's process writes the listing digests)
        SubjectJobs.mark(parsed)   # (the plan's process reads and writes them)

        def plan() -> list[jobs.Job]:
            made = plan_site(config, site, options, search, digester, env, parsed=parsed, searched=searched,
                             common=common, thin=True)
            index.db.commit()   # (the joined digests the plan made, for the next build)
            return made
        return plan_apart(plan, searched), remake.Remake(env, site, load_taxonomy(), config.root)
    planned = plan_site(config, site, options, search, digester, env, parsed=parsed, searched=searched,
                        common=common)
    authors.keep_digests(digester, parsed, last)
    return planned, None


def plan_site(config: SiteConfig, site: SiteModel, options: dict[str, object], search: bool,
              digester: Digester | None = None, env: jinja2.Environment | None = None,
              pages: bool = True, parsed: ParsedInputs | None = None,
              searched: list[jobs.Job] | None = None, out: Path | None = None,
              common: bytes | None = None, thin: bool = False) -> list[jobs.Job]:
    """Every output of the site as a job: pages, feeds, exports, and the search index (``searched``:
    its job, planned already by ``plan_search``). The preview passes its digester and Jinja
    environment (templates compiled once) from one plan to the next, and plans the search index
    apart (``pages=False``), once the pages are in place. ``common``: ``jobs.common_digest``, if made.
    ``thin``: its file jobs kept thin (``jobs.plan_jobs``), for a plan made apart."""
    env = env or make_environment(config.root, config.theme)
    digester = digester or Digester(site)
    common = common or jobs.common_digest(config.root, site, options, config.theme, digester)
    kept = SubjectJobs.plan(site, digester, common, parsed) if parsed is not None and pages else None
    tasks = iter_tasks(env, site, load_taxonomy(), root=config.root) if pages else iter(())
    planned = jobs.plan_jobs(tasks, site, common, digester, kept.known if kept is not None else None,
                             thin=thin)
    if kept is not None:
        kept.keep(parsed, planned)   # type: ignore[arg-type]
    if search:
        planned += searched if searched is not None else plan_search(config, site, options, digester, parsed, out)
    check_unique([j.task for j in planned])
    return planned


def plan_search(config: SiteConfig, site: SiteModel, options: dict[str, object], digester: Digester,
                parsed: ParsedInputs | None, out: Path | None = None, common: bytes | None = None) -> list[jobs.Job]:
    """The search index's job. Given the build's ``parsed`` cache, it indexes only the authors
    whose documents changed (generator.write.search.Kept), and patches the last index in the output
    folder ``out`` when it can (generator.incremental.search_patch)."""
    common = common or jobs.common_digest(config.root, site, options, config.theme, digester)
    return jobs.plan_jobs(search_tasks(site, digester, parsed, out), site, common, digester)


def _no_search(parsed: ParsedInputs) -> list[jobs.Job]:
    """No search index job; the documents kept for it are kept for the next build that makes one."""
    Kept.hold(parsed)
    return []


def _prelink(root: Path, target: Path | None, workers: int) -> Prelink | None:
    """On a rebuild, the last build's files linked into a staging folder by a forked process
    while this build loads (generator.incremental.prelink); None otherwise."""
    return None if target is None else Prelink.start(root, target, workers)


def _remember(root: Path, site: SiteModel, inputs: Inputs) -> str:
    """Once the output is swapped in: the feeds' memory of the ids they published written
    (generator.assemble.feed_ids), when it changed; the inputs digest the manifest records with it."""
    if site.feeds is None or site.feeds.memory is None:
        return inputs.digest
    wrote, digest = feed_ids.save(root, site.feeds.memory)   # (streamed: over the index, never held whole)
    index_feeds.written(site.feeds.memory, digest)
    if not wrote or digest is None:
        return inputs.digest
    log.debug("wrote %s", feed_ids.MEMORY)
    return inputs.with_memory_digest(digest)


def _run(pool: Pool, config: SiteConfig, planned: Sequence[jobs.Job], target: Path, inputs: str,
         clock: Clock, prelink: Prelink | None = None,
         fill: Callable[[], int] = int, reuse: bool = True,
         swapped: Callable[[], str] | None = None) -> tuple[int, SiteSize, int]:
    """Reuse what is unchanged, run the rest into staging, swap it in, then write the manifest. Returns (bytes written,
    the output's size, jobs run); ``reuse=False``: the last build's manifest is not read, so
    every job runs. ``fill`` reads the build's hollow records (generator.incremental.hollow)
    when many jobs run, before the render processes fork. ``swapped``: called once the output is
    swapped in, before the manifest is written; the inputs digest to record (``_remember``)."""
    path = jobs.manifest_path(config.root, target)
    rendered = [0]
    manifest: jobs.Manifest | None = None
    staged = Staging(prelink)

    def produce(staging: Path) -> int:
        # The manifest is read under the build lock, then deleted: until the new build is swapped
        # in and its manifest written there is none, so a kill in between costs a full rebuild, never a stale page.
        started = time.perf_counter()
        log.debug("staging ready after %.2f s", started - clock.start)
        reuse, run = jobs.split(planned, manifest, target, staged.missing)
        path.unlink(missing_ok=True)
        staged.place(staging, target, manifest, reuse, run)
        rendered[0] = len(run)
        log.debug("reused jobs linked in %.2f s", time.perf_counter() - started)
        log.debug("rendering %d of %d jobs (%d unchanged, reused) with %d process%s...", len(run), len(planned),
                 len(reuse), pool.workers, "es" if pool.workers > 1 else "")
        if len(run) * 20 > len(planned) and forks(run.tasks(), pool.workers):
            log.debug("%d hollow records filled", fill())   # once, before the processes fork: not in each
        written = pool.run(run.tasks(), staging)
        log.debug("jobs run at %.2f s", time.perf_counter() - clock.start)
        clock.stage(f"run jobs ({pool.workers} process{'es' if pool.workers > 1 else ''}, "
                    f"{len(reuse)} reused)")
        return written

    with build_lock(config.root), staged.skeleton(target, planned, pool.workers):
        manifest = jobs.Manifest.read(path) if reuse else None
        total, size = write_site(produce, static_dirs(config.root, config.theme), target, site_root=config.root,
                                 seed=functools.partial(staged.seed, manifest, target),
                                 normalize=functools.partial(staged.normalize, planned))
        clock.stage("swap")
        recorded = swapped() if swapped is not None else inputs
        jobs.Manifest(recorded, {rel: digest for rel, digest, _ in jobs.outline(planned)}).write(path)
    return total, size, rendered[0]
