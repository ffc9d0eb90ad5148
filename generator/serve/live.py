"""The preview's site, kept in memory between edits (``authorsite serve``).

A CLI build starts from nothing: it reads every input, assembles every author and digests
every job. The preview runs the same steps (``load_config``, ``store.reader.read_all``,
``assemble_author``, ``assemble``, ``plan_site``); what it may skip between edits is decided by
generator.incremental.memory alone (``reuse=False``, serve --no-reuse: nothing is skipped, every
edit rebuilds the whole preview). Told by the watcher which files changed, it
re-reads only those (an author file through the parsed-input cache, a cache file through
``store.reader.read_all(reuse=...)``; an edit of author files that leaves every author's sources as
they were keeps the store as it is), re-assembles only the authors whose inputs changed (the
rest are the same objects), plans with one digester kept across edits (a record's digest is
computed once while the authors listing it stay the same), and renders only the jobs whose
digest differs from what is in the preview folder. When an edit leaves every author's
records as they were (a name, an affiliation, a bio), the site-wide parts of the model
(the subject index, who lists which record) are kept too.

Pages are written in place, each through ``os.replace`` (a request sees the old file or the
new one; the preview folder is private to the server), and announced as they are written, in
serve's order (``later``): after an edit of author files only, those authors' own files (page,
feed, exports: ``render.author_tasks``, planned with the digests the whole plan gives them) are
written and announced first, then every page is planned (``catch_up``: the home page, subject
pages and feeds the edit touched), and the search index is planned and written last
(``plan_later``, ``index_pending``): the edited page does not wait for the rest. A job whose reads
are the very objects of its last plan keeps its digest (``Digester.reads``), so
planning after an edit costs the jobs the edit touched, not every page's context. An edit
elsewhere than the author and cache files (site.yaml, a page) loads the whole configuration
again; one outside content/ (theme, templates, static files, site.yaml), or one the watcher
could not name, also writes a new folder through ``output.write_site`` (static files copied
again), still reusing every job whose digest is unchanged. A failed update changes nothing:
the files it named stay pending for the next one.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Collection, Iterable

from generator.render import jobs
from generator.render.digest import Digester
from generator.buildinfo import Clock
from generator.core.errors import SiteError
from generator.incremental.memory import Memory
from generator.incremental.parsed import ParsedInputs
from generator.write.output import normalize_tree, write_site
from generator.write.parallel import Pool, run_tasks
from generator.pipeline import load_config, plan_site
from generator.serve.preview_files import move_in, remove
from generator.render.pages import author_tasks
from generator.store.reader import read_all
from generator.core.taxonomy import load_taxonomy
from generator.render.themes import make_environment, static_dirs

if TYPE_CHECKING:
    import jinja2

    from generator.config import SiteConfig
    from generator.core.model import SiteModel

log = logging.getLogger(__name__)

_AUTHORS = "content/authors/"
_CONTENT = (_AUTHORS, "content/cache/")     # edits that change authors and records only


@dataclass(frozen=True, slots=True)
class Update:
    """What one update did."""

    rendered: int                                   # jobs run
    reused: int                                     # jobs whose output was already in place
    seconds: float
    stages: tuple[tuple[str, float], ...]
    whole: bool                                     # a new folder (theme, templates, static files), not in place


PagesReady = Callable[[Collection[str] | None], None]   # the output paths just written (None: all of them)


def _nothing(_paths: Collection[str] | None) -> None:
    pass


class _Clock(Clock):
    """The stages of one update, timed, and the update they make."""

    def update(self, rendered: int, planned: int, whole: bool) -> Update:
        return Update(rendered, planned - rendered, self.seconds(), tuple(self.stages), whole)


class LiveSite:
    """One site's model, kept between updates, and the preview folder it is rendered into."""

    def __init__(self, root: Path, base_url: str, out_dir: Path, search: bool = True, reuse: bool = True) -> None:
        self.root, self.base_url, self.out_dir, self.search = root.resolve(), base_url, out_dir, search
        self.options: dict[str, object] = {"base_url": base_url, "search": search}
        # What is kept between edits, for speed only (generator.incremental.memory); reuse=False
        # (serve --no-reuse): nothing, every edit runs the whole pipeline.
        self.reuse = reuse
        self.parsed = ParsedInputs(self.root, keep=("author",)) if reuse else None
        self.memory = Memory()
        self.config: SiteConfig | None = None
        self.site: SiteModel | None = None
        self.outputs: dict[str, str] = {}            # what the preview folder holds: path -> job digest
        self._digester: Digester | None = None
        self._env: jinja2.Environment | None = None    # templates compiled once, until they change
        self._stale: set[str] | None = None          # changed since the last good update (None: anything)
        self.pending: dict[str, jobs.Job] = {}       # the search index to write again: path -> job
        self._later = False                          # this update leaves the rest to catch_up and plan_later
        self._rest: tuple[SiteConfig, SiteModel] | None = None   # the pages left to plan (catch_up)
        self._due: tuple[SiteConfig, SiteModel, list[jobs.Job]] | None = None   # (config, site, pages planned)
        self._lock = threading.Lock()                 # update and index_pending take turns on the folder

    def update(self, changed: Iterable[str] | None, pages_ready: PagesReady = _nothing, later: bool = False) -> Update:
        """Bring the preview's pages up to date. ``changed``: the paths (relative to the root)
        changed since the last call, None when anything may have. ``pages_ready`` is called with the
        output paths written (None: a new folder) once they are in place. The search index to write
        again is left in ``pending`` (``index_pending``), except when a new folder is written.
        ``later`` (serve: the rest waits for the reloaded page to be served): after an edit of
        authors' files only, only those authors' own files (page, feed, exports) are planned and
        written, the rest of the pages by ``catch_up``; the search index is planned by
        ``index_pending``."""
        with self._lock:
            self._later = later
            return self._update(changed, pages_ready)

    @property
    def behind(self) -> bool:
        """Whether the last update left pages to ``catch_up``."""
        return self._rest is not None

    def catch_up(self, pages_ready: PagesReady = _nothing) -> Update | None:
        """Plan every page an update left for later (``later``) and write the changed ones; None
        when none was left."""
        with self._lock:
            rest, self._rest = self._rest, None
            if rest is None:
                return None
            config, site = rest
            clock = _Clock()
            with Pool(1) as pool:
                planned = plan_site(config, site, self.options, False, self._digester, self._env)
                clock.stage("plan pages")
                rendered = self._write_pages(pool, planned, pages_ready)
                clock.stage("render and write")
            self._due = (config, site, planned)
            return clock.update(rendered, len(planned), False)

    def plan_later(self) -> None:
        """Plan the search index an update left for later, and remove the outputs no longer made."""
        with self._lock:
            due, self._due = self._due, None
            if due is not None:
                config, site, planned = due
                with Pool(1):
                    self._settle(planned + plan_site(config, site, self.options, self.search, self._digester,
                                                     self._env, pages=False, parsed=self.parsed, out=self.out_dir))

    def _update(self, changed: Iterable[str] | None, pages_ready: PagesReady) -> Update:
        if changed is None:
            self._stale = None
        elif self._stale is not None:
            self._stale.update(changed)
        stale = self._stale
        clock = _Clock()
        whole = stale is None or not self.outputs or any(not p.startswith(_CONTENT) for p in stale)
        if not self.reuse:
            stale, whole, self.memory, self.outputs, self._digester = None, True, Memory(), {}, None
        memory = self.memory
        with Pool(1) as pool:
            config = memory.config_for(stale, whole, lambda: load_config(self.root, self.base_url, self.parsed),
                                       self.parsed)
            clock.stage("load")
            store = memory.store_for(config, stale) or read_all(
                config, parsed=self.parsed, reuse=None if stale is None else memory.store,
                stale={self.root / p for p in stale or ()})
            for w in (*store.warnings, *store.notes):
                log.warning("%s", w)
            clock.stage("read cache")
            tax = load_taxonomy()
            site = memory.site_for(config, store, tax, tuple(memory.author(a, store, tax, config.citations)
                                                             for a in config.authors))
            clock.stage("assemble")
            rendered, total, looks = self._plan_and_write(pool, config, site, stale, whole, pages_ready, clock.stage)
        memory.remember(config, store, site)
        self.config, self.site, self._stale = config, site, set()
        return clock.update(rendered, total, looks)

    def _plan_and_write(self, pool: Pool, config: SiteConfig, site: SiteModel, stale: set[str] | None, whole: bool,
                        pages_ready: PagesReady, stage: Callable[[str], None]) -> tuple[int, int, bool]:
        """Plan the jobs and bring the folder up to date: (jobs run, jobs planned, a new folder?).
        In place, the pages are planned and written first and the search index planned after
        the reload (its jobs are left pending): an edit's page is not kept waiting for it."""
        self._digester = self._digester or Digester(site)
        if whole or self._env is None:
            self._env = make_environment(config.root, config.theme)
        looks = stale is None or any(not p.startswith("content/") for p in stale)   # theme, static files
        self._due = self._rest = None
        if looks or not self.out_dir.is_dir():
            planned = plan_site(config, site, self.options, self.search, self._digester, self._env)
            stage("plan jobs")
            rendered = self._write_all(pool, config, planned, pages_ready)
            stage("render and write")
            return rendered, len(planned), True
        edited = None if whole or not self._later else self.memory.edited(site)
        if edited is not None:
            planned = self._plan_authors(config, site, edited)
            stage(f"plan {len(edited)} author{'' if len(edited) == 1 else 's'}")
            rendered = self._write_pages(pool, planned, pages_ready)
            stage("render and write")
            self._rest = (config, site)
            return rendered, len(planned), False
        planned = plan_site(config, site, self.options, False, self._digester, self._env)
        stage("plan pages")
        rendered = self._write_pages(pool, planned, pages_ready)
        stage("render and write")
        if self._later:
            self._due = (config, site, planned)
            return rendered, len(planned), False
        search = plan_site(config, site, self.options, self.search, self._digester, self._env, pages=False,
                           parsed=self.parsed, out=self.out_dir)
        self._settle(planned + search)
        stage("plan search")
        return rendered, len(planned) + len(search), False

    def _plan_authors(self, config: SiteConfig, site: SiteModel, slugs: set[str]) -> list[jobs.Job]:
        """These authors' own files as jobs, with the digests the whole plan gives them."""
        assert self._env is not None and self._digester is not None
        tasks = author_tasks(self._env, site, load_taxonomy(), slugs, root=config.root)
        common = jobs.common_digest(config.root, site, self.options, config.theme, self._digester)
        return jobs.plan_jobs(tasks, site, common, self._digester)

    def _write_all(self, pool: Pool, config: SiteConfig, planned: list[jobs.Job], pages_ready: PagesReady) -> int:
        """A new preview folder (static files copied again), reusing the unchanged jobs' files."""
        reuse, run = jobs.split(planned, jobs.Manifest("", self.outputs), self.out_dir)

        def produce(staging: Path) -> int:
            made: set[str] = set()
            for job in reuse:
                jobs.link_job(job, self.out_dir, staging, made)
            return pool.run(run.tasks(), staging)

        self.outputs, self.pending = {}, {}
        write_site(produce, static_dirs(config.root, config.theme), self.out_dir, site_root=config.root)
        self.outputs = {j.rel_path: j.digest for j in planned}
        pages_ready(None)
        return len(run)

    def _write_pages(self, pool: Pool, planned: list[jobs.Job], pages_ready: PagesReady) -> int:
        """Render the changed pages aside and move each into the preview folder."""
        run = [j for j in planned if self.outputs.get(j.rel_path) != j.digest]
        incoming = Path(tempfile.mkdtemp(prefix=".incoming-", dir=self.out_dir.parent))
        try:
            self._render_into(pool, run, incoming)
        except OSError as exc:
            raise SiteError(f"cannot write the preview: {exc.strerror or exc}", path=exc.filename) from exc
        finally:
            shutil.rmtree(incoming, ignore_errors=True)
        pages_ready(frozenset(j.rel_path for j in run))
        return len(run)

    def _settle(self, planned: list[jobs.Job]) -> None:
        """Remove the outputs no longer planned; leave the changed search index in ``pending``
        (any left from before are changed still)."""
        self.pending = {j.rel_path: j for j in planned if j.folder and self.outputs.get(j.rel_path) != j.digest}
        try:
            for rel in set(self.outputs) - {j.rel_path for j in planned}:
                remove(self.out_dir, rel)
                del self.outputs[rel]
        except OSError as exc:
            raise SiteError(f"cannot write the preview: {exc.strerror or exc}", path=exc.filename) from exc

    def index_pending(self) -> int:
        """Write the pending search index (folder jobs), one at a time, outside the lock (it takes
        seconds on a large site; an edit meanwhile is not kept waiting). A job an update has
        planned anew meanwhile is dropped: that update left its own. Returns the jobs done."""
        self.plan_later()
        done = 0
        while True:
            with self._lock:
                if not self.pending:
                    return done
                rel, job = next(iter(self.pending.items()))
                incoming = Path(tempfile.mkdtemp(prefix=".indexing-", dir=self.out_dir.parent))
            try:
                run_tasks([job.task], incoming, 1)
                normalize_tree(incoming)
                with self._lock:
                    if self.pending.get(rel) is job:
                        move_in(incoming, self.out_dir, rel)
                        self.outputs[rel] = job.digest
                        del self.pending[rel]
                        done += 1
            except (SiteError, OSError) as exc:
                log.error("search index %s not written: %s", rel, exc)
                with self._lock:
                    if self.pending.get(rel) is job:
                        del self.pending[rel]     # the next update plans it again
            finally:
                shutil.rmtree(incoming, ignore_errors=True)

    def _render_into(self, pool: Pool, batch: list[jobs.Job], incoming: Path) -> None:
        if not batch:
            return
        pool.run([j.task for j in batch], incoming)
        normalize_tree(incoming)
        for job in batch:
            move_in(incoming, self.out_dir, job.rel_path)
            self.outputs[job.rel_path] = job.digest
