"""The merge of a build's shards (generator.write.shard): the union of their files, swapped in as a
build's output is (generator.write.output.write_site), with the manifest a build writes.

Nothing is merged unless the folders are exactly the N shards of one plan (``check``): each
folder a complete shard, all of one plan digest and one N, each K once, their jobs together the
plan (their paths and digests give its digest again) and every file they list there. Otherwise
one SiteError names every folder at fault (missing, given twice, of another plan, half-written)
and nothing is written: ``output/``, its manifest and the feeds' memory stay as they were.

Then the files are hard-linked (copied across file systems) into the staging folder: shard 1's
static files first, then every job's output, so a job's file wins over a static file of the same
path as in a build. The feeds' memory shard 1 carries is written once the output is swapped in,
as a build writes it, and the manifest records the inputs digest a build would, so the next plain
``authorsite build`` finds nothing changed, or reuses every job whose inputs did not.
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from generator.assemble import feed_ids
from generator.core.errors import SiteError
from generator.core.files import build_lock, link_file, link_tree
from generator.render import jobs
from generator.write.output import safe_rel, write_site
from generator.write.shard import MEMORY, MANIFEST, ShardManifest, plan_digest
from generator.write.sitesize import SiteSize

log = logging.getLogger(__name__)

_SHOWN = 5   # files named missing from one shard, at most


@dataclass(frozen=True, slots=True)
class Shard:
    folder: Path
    manifest: ShardManifest


def check(folders: Sequence[Path]) -> list[Shard]:
    """The shards in the ``folders``, by K, when they are the N shards of one plan; else one
    SiteError naming each folder at fault."""
    problems: list[str] = []
    found: list[Shard] = []
    half: set[tuple[int, int]] = set()   # (k, n) of the half-written ones: named already
    for folder in folders:
        m = ShardManifest.read(folder / MANIFEST)
        if not folder.is_dir():
            problems.append(f"{folder} is not a folder")
        elif m is None:
            problems.append(f"{folder} is not a shard (no readable {MANIFEST})")
        elif not m.complete:
            problems.append(f"{folder} holds shard {m.k}/{m.n} half-written (its build did not finish)")
            half.add((m.k, m.n))
        else:
            found.append(Shard(folder, m))
    plans = Counter((s.manifest.plan, s.manifest.n) for s in found)   # (in the order given: the first wins a tie)
    plan, n = max(plans, key=lambda p: plans[p]) if plans else ("", 0)
    for s in found:
        if (s.manifest.plan, s.manifest.n) != (plan, n):
            problems.append(f"{s.folder} holds shard {s.manifest.k}/{s.manifest.n} of another plan "
                            f"({s.manifest.plan[:12]}, not {plan[:12]}: other inputs or options)")
    mine = sorted((s for s in found if (s.manifest.plan, s.manifest.n) == (plan, n)), key=lambda s: s.manifest.k)
    for k in range(1, n + 1):
        given = [s for s in mine if s.manifest.k == k]
        if not given and (k, n) not in half:
            problems.append(f"shard {k}/{n} is missing")
        elif len(given) > 1:
            problems.append(f"shard {k}/{n} is given twice: {' and '.join(str(s.folder) for s in given)}")
    if not problems:
        problems = _whole(mine, plan)
    if problems:
        raise SiteError(f"cannot merge these {len(folders)} folders: " + "; ".join(problems),
                        hint="give the N folders 'authorsite build --shard K/N' made for K = 1..N, "
                             "from the same inputs and options, each once; run a failed shard again")
    return mine


def _whole(shards: list[Shard], plan: str) -> list[str]:
    """What keeps the shards from making up their plan: a job in two of them, jobs or files missing."""
    outputs: dict[str, str] = {}
    problems = []
    for s in shards:
        twice = sorted(outputs.keys() & s.manifest.outputs.keys())
        if twice:
            problems.append(f"{s.folder} holds {twice[0]}, which another shard holds too")
        outputs.update(s.manifest.outputs)
        gone = [rel for rel in [*s.manifest.outputs, *s.manifest.static]
                if not os.path.lexists(os.path.join(s.folder, safe_rel(rel)))]
        if s.manifest.memory and not (s.folder / MEMORY).is_file():
            gone.append(MEMORY)
        if gone:
            problems.append(f"{s.folder} holds shard {s.manifest.k}/{s.manifest.n} half-written "
                            f"({len(gone)} of its files missing: {', '.join(gone[:_SHOWN])})")
    if not problems and plan_digest(outputs.items()) != plan:
        problems.append("the shards' jobs do not make up the plan they name (a shard's manifest was edited?)")
    return problems


def merge(root: Path, shards: list[Shard], target: Path) -> SiteSize:
    """The union of ``shards`` (``check``'s) swapped in at ``target``, the feeds' memory written,
    and the manifest a build of ``root`` into ``target`` writes. Returns the output's size."""
    outputs = {rel: d for s in shards for rel, d in s.manifest.outputs.items()}
    first = shards[0]
    path = jobs.manifest_path(root, target)

    def produce(staging: Path) -> int:
        path.unlink(missing_ok=True)   # as a build: none until the new output and its manifest are in place
        made: set[str] = set()
        for rel in first.manifest.static:
            if rel not in outputs:
                link_file(os.path.join(first.folder, rel), os.path.join(staging, rel), made)
        for s in shards:
            folders = set(s.manifest.folders)
            for rel in s.manifest.outputs:
                if rel in folders:
                    link_tree(s.folder / rel, staging / rel, made)
                else:
                    dest = os.path.join(staging, rel)
                    if os.path.lexists(dest):   # a static file of the same path: the job's wins
                        os.unlink(dest)
                    link_file(os.path.join(s.folder, rel), dest, made)
        return 0

    m = first.manifest
    memory = feed_ids.from_bytes((first.folder / MEMORY).read_bytes()) if m.memory else None
    with build_lock(root):
        _, size = write_site(produce, (), target, site_root=root)
        written = memory is not None and feed_ids.write(root, memory)
        jobs.Manifest(m.remembered if written else m.inputs, outputs).write(path)
    log.info("merged %d shards: %d jobs, %d files", len(shards), len(outputs), size.files)
    return size
