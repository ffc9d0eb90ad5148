"""A shard: a share of the build's plan, rendered into a folder of its own and merged later
(generator.write.merge). The fourth step of STYLE.md §3.12: plan -> shard -> render -> merge -> write.

Every shard loads the same inputs and plans the same list of content-keyed jobs
(generator.render.jobs), then takes its own share by one stable rule (``shares``): the jobs'
groups (an author's page, feed and exports together; a subject's pages; the search index), ordered
by a digest of the group's name, cut into N runs of about equal estimated cost
(``parallel.group_weights``). So a shard's share does not depend on which machine computes it;
an edit that changes one group's weight moves at most the few groups next to the cuts, and a
shard's folder from the last run (restored by actions/cache) still holds most of its files.

The shard folder holds the outputs of its jobs at their paths in the site, and ``MANIFEST``: the
plan's digest (of every job's path and digest, the whole plan's), K and N, its jobs' paths and
digests, the inputs digest, and ``complete``, written false before anything else and true last,
so a folder whose build did not finish (or an artifact cut short) is known as such by the merge.
Jobs that belong to the whole site are jobs of the plan like any other, shared out the same way
(robots.txt, the search index, the subject pages: each is a group, so a merge is a plain union);
what is not a job goes to shard 1, always: the theme's static files (their bytes are in every
job's digest, so the plan digest vouches for them, and the merge reads no theme of its own) and
the feeds' memory (content/cache/feed-ids.json, written by the merge as a build writes it: the
shards never write an input, so shard 2 reads what shard 1 read).

A shard reuses its share of the last output as a build does (``jobs.split``: same digest, file
there): from its folder's last manifest, when complete. It is made in a staging folder beside
its folder and swapped in whole; the last one is removed (no spare: a CI cache holds it).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

from generator.assemble import feed_ids
from generator.core.errors import EXIT_OUTPUT, SiteError
from generator.core.files import atomic_write, build_lock
from generator.core.paths import TOOL_DIR, old_dir, staging_dir
from generator.render import jobs
from generator.render.themes import static_dirs
from generator.write.output import normalize_tree, recover, write_static
from generator.write.parallel import forks, group_weights
from generator.write.sitesize import SiteSize

if TYPE_CHECKING:
    from generator.config import SiteConfig
    from generator.core.model import SiteModel
    from generator.incremental.inputs import Inputs
    from generator.write.parallel import Pool

log = logging.getLogger(__name__)

FORMAT = 1
MANIFEST = ".authorsite-shard.json"    # in a shard's folder; never a job's path (routes make none with a dot)
MEMORY = ".authorsite-feed-ids.json"   # in shard 1's folder: the feeds' memory the merge writes
MAX_SHARDS = 256                        # GitHub Actions runs at most 256 jobs of one matrix
_SPEC = re.compile(r"([0-9]+)/([0-9]+)")


@dataclass(frozen=True, slots=True)
class Spec:
    """Shard ``k`` of ``n`` (1-based)."""

    k: int
    n: int

    @classmethod
    def parse(cls, text: str) -> Spec:
        m = _SPEC.fullmatch(text.strip())
        if m is None or not 1 <= int(m.group(1)) <= int(m.group(2)) <= MAX_SHARDS:
            raise SiteError(f"--shard must be K/N with 1 <= K <= N <= {MAX_SHARDS}, found {text!r}",
                            hint="for example --shard 2/4: the second of four shards")
        return cls(int(m.group(1)), int(m.group(2)))

    @property
    def name(self) -> str:
        return f"{self.k}-of-{self.n}"

    def __str__(self) -> str:
        return f"{self.k}/{self.n}"


def default_dir(root: Path, spec: Spec) -> Path:
    """Where ``build --shard K/N`` writes without ``--out``: .authorsite/shards/K-of-N/."""
    return root / TOOL_DIR / "shards" / spec.name


def plan_digest(outputs: Iterable[tuple[str, str]]) -> str:
    """The digest of a whole plan: every job's path and digest, by path."""
    h = hashlib.sha256(f"shard-plan {FORMAT} {jobs.FORMAT}\n".encode())
    for rel, digest in sorted(outputs):
        h.update(f"{rel}\0{digest}\n".encode())
    return h.hexdigest()[:32]


def _rank(group: str) -> bytes:
    return hashlib.sha256(group.encode()).digest()


def shard_of(weights: Mapping[str, int], n: int) -> dict[str, int]:
    """Each group's shard (0-based): the groups by the digest of their names, cut into ``n`` runs of
    about equal weight (a group goes where the middle of its weight falls)."""
    total = max(1, sum(weights.values()))
    out, done = {}, 0
    for group in sorted(weights, key=lambda g: (_rank(g), g)):
        w = max(0, weights[group])
        out[group] = min(n - 1, (2 * done + w) * n // (2 * total))
        done += w
    return out


def shares(planned: Sequence[jobs.Job], n: int) -> list[list[jobs.Job]]:
    """The plan's jobs in ``n`` shares (``shard_of``), each in plan order."""
    where = shard_of(group_weights(j.task for j in planned), n)
    out: list[list[jobs.Job]] = [[] for _ in range(n)]
    for j in planned:
        out[where[j.task.group]].append(j)
    return out


@dataclass(frozen=True, slots=True)
class ShardManifest:
    """What a shard's folder holds (``MANIFEST``); see the module docstring."""

    plan: str                       # plan_digest of the whole plan
    k: int
    n: int
    inputs: str                     # the inputs digest of the build (inputs.read_inputs)
    remembered: str                 # the same, had the merge written the feeds' memory shard 1 carries
    outputs: Mapping[str, str]      # this shard's jobs: output path (file or folder) -> digest
    folders: tuple[str, ...] = ()   # those of its outputs that are folders (the search index)
    static: tuple[str, ...] = ()    # shard 1: the theme's static files it holds (paths in the site)
    memory: bool = False            # shard 1: it holds the feeds' memory to write (``MEMORY``)
    complete: bool = False

    @classmethod
    def read(cls, path: Path) -> ShardManifest | None:
        """The manifest at ``path``; None when absent, unreadable or of another format."""
        try:
            d = json.loads(path.read_text("utf-8"))
            if d.get("format") != FORMAT or d.get("jobs_format") != jobs.FORMAT:
                return None
            return cls(str(d["plan"]), int(d["k"]), int(d["n"]), str(d["inputs"]), str(d["remembered"]),
                       {str(k): str(v) for k, v in d["outputs"].items()}, tuple(map(str, d["folders"])),
                       tuple(map(str, d["static"])), bool(d["memory"]), d["complete"] is True)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def write(self, path: Path) -> None:
        doc = {"format": FORMAT, "jobs_format": jobs.FORMAT, "plan": self.plan, "k": self.k, "n": self.n,
               "inputs": self.inputs, "remembered": self.remembered, "outputs": dict(sorted(self.outputs.items())),
               "folders": list(self.folders), "static": list(self.static), "memory": self.memory,
               "complete": self.complete}
        atomic_write(path, json.dumps(doc, indent=0).encode("utf-8"))


def check_shard_dir(folder: Path, root: Path) -> None:
    """Refuse to replace what is not a shard folder this made (nor the site, nor a link)."""
    resolved = folder.resolve()
    if resolved == root.resolve() or resolved in root.resolve().parents or (folder / "site.yaml").exists():
        raise SiteError("a shard's folder cannot be the site folder or hold a site", path=str(folder),
                        hint="leave out --out: shards go to .authorsite/shards/K-of-N/", exit_code=EXIT_OUTPUT)
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise SiteError("the shard's folder exists and is not a folder", path=str(folder), exit_code=EXIT_OUTPUT)
    if folder.is_dir() and any(folder.iterdir()) and not (folder / MANIFEST).is_file():
        raise SiteError("the shard's folder holds files that 'build --shard' did not make", path=str(folder),
                        hint="empty it, or give another --out", exit_code=EXIT_OUTPUT)


class Writer:
    """The shard's step in place of the build's last (``pipeline.run(write=...)``): its share
    of the planned jobs, reused or run, into its folder. ``jobs``, ``rendered``: what it did."""

    def __init__(self, spec: Spec, reuse: bool = True) -> None:
        self.spec, self.reuse = spec, reuse   # reuse=False: the last shard's files are not read (--no-reuse)
        self.jobs = self.rendered = 0

    def __call__(self, pool: Pool, config: SiteConfig, site: SiteModel, inputs: Inputs,
                 planned: Sequence[jobs.Job], target: Path, fill: Callable[[], int]) -> tuple[int, SiteSize, int]:
        mine = shares(planned, self.spec.n)[self.spec.k - 1]
        memory = _memory(site) if self.spec.k == 1 else None
        head = ShardManifest(plan_digest((j.rel_path, j.digest) for j in planned), self.spec.k, self.spec.n,
                             inputs.digest, inputs.with_memory(memory) if memory is not None else inputs.digest,
                             {j.rel_path: j.digest for j in mine}, tuple(j.rel_path for j in mine if j.folder),
                             memory=memory is not None)
        target.parent.mkdir(parents=True, exist_ok=True)
        with build_lock(config.root, f"shard-{self.spec.name}"):
            check_shard_dir(target, config.root)
            recover(target)
            last = ShardManifest.read(target / MANIFEST) if self.reuse else None
            reuse, run = jobs.split(mine, jobs.Manifest(last.inputs, last.outputs) if last and last.complete
                                    else None, target)
            staging = staging_dir(target)
            staging.mkdir(mode=0o755)
            try:
                head.write(staging / MANIFEST)   # not complete: until the last step below
                total, static = self._fill(pool, config, staging, target, reuse, run, fill)
                if memory is not None:
                    atomic_write(staging / MEMORY, memory)
                size = normalize_tree(staging)
                replace(head, static=static, complete=True).write(staging / MANIFEST)
                _swap(staging, target)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
        self.jobs, self.rendered = len(mine), len(run)
        log.info("shard %s: %d of the plan's %d jobs (%d run, %d reused)", self.spec, len(mine), len(planned),
                 len(run), len(reuse))
        return total, size, len(run)

    def _fill(self, pool: Pool, config: SiteConfig, staging: Path, target: Path, reuse: jobs.Picked,
              run: jobs.Picked, fill: Callable[[], int]) -> tuple[int, tuple[str, ...]]:
        """Static files (shard 1), the reused jobs' files linked, the others made, as a build
        orders them (a job's file wins over a static file of the same path)."""
        total, static = 0, ()
        if self.spec.k == 1:
            total = write_static(static_dirs(config.root, config.theme), staging)
            top = staging / "static"
            static = tuple(sorted(p.relative_to(staging).as_posix() for p in top.rglob("*") if p.is_file()))
        made: set[str] = set()
        for job in reuse:
            jobs.link_job(job, target, staging, made)
        if len(run) * 20 > len(reuse) + len(run) and forks(run.tasks(), pool.workers):
            log.debug("%d hollow records filled", fill())   # once, before the processes fork
        return total + pool.run(run.tasks(), staging), static


def _memory(site: SiteModel) -> bytes | None:
    """The feeds' memory a build would write after this one (generator.assemble.feed_ids), or None."""
    memory = site.feeds.memory if site.feeds is not None else None
    return None if memory is None else feed_ids.to_bytes(memory)


def _swap(staging: Path, target: Path) -> None:
    """``staging`` in place of ``target``; the last shard removed."""
    if target.exists():
        old = old_dir(target)
        os.rename(target, old)
        os.rename(staging, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(staging, target)
