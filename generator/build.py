"""The one orchestrator: load -> read cache -> assemble -> render -> write.

Everything is gathered and rendered in memory before the first byte is written
(as MkDocs' build does), so a bad author file, a corrupt cache or a template error
fails the run with ``output/`` exactly as it was. ``build`` never touches the
network: fetched records come from ``content/cache/`` only.
"""

from __future__ import annotations

import gc
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from generator import incremental
from generator.errors import SiteError
from generator.yamlfile import read_yaml

# The rest of the pipeline (Jinja, Markdown, LaTeX, the model) is imported inside _build,
# after the 'nothing changed' check: a rebuild with nothing to do is mostly import time.

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class BuildResult:
    out_dir: Path
    files: int
    bytes: int
    authors: int
    records: int
    subjects: int
    warnings: tuple[str, ...]
    seconds: float
    stages: tuple[tuple[str, float], ...] = ()   # (stage, seconds) in order, for --verbose and the benchmark
    unchanged: bool = False                      # nothing changed: the previous build was kept as it was


def _target(root: Path, out_dir: Path | None) -> Path | None:
    """The output folder, known before the configuration is loaded (None if site.yaml is unreadable)."""
    if out_dir is not None:
        return out_dir.resolve()
    site_yaml = root / "site.yaml"
    if site_yaml.is_symlink():
        return None  # load_site reports it
    try:
        data, _ = read_yaml(site_yaml, "site.yaml")   # the same guarded reader as load_site
        name = data.get("output_dir", "output") if isinstance(data, dict) else "output"
        return (root / str(name or "output")).resolve()
    except (SiteError, OSError, ValueError):
        return None


def build(root: Path, *, base_url: str | None = None, out_dir: Path | None = None,
          strict: bool = False, search: bool = True, workers: int | None = None) -> BuildResult:
    start = time.perf_counter()
    # The cyclic GC re-scans every loaded record object again and again while pages are
    # rendered (measured in ../shared/bench: 10.4 s -> 5.5 s at 1,000 x 100). Nothing we
    # load forms garbage cycles, so pause it while loading and freeze what was loaded.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _build(root, base_url, out_dir, strict, search, start, workers)
    finally:
        gc.unfreeze()
        if gc_was_enabled:
            gc.enable()


def _build(root: Path, base_url: str | None, out_dir: Path | None, strict: bool, search: bool,
           start: float, workers: int | None) -> BuildResult:
    stages: list[tuple[str, float]] = []
    mark = [start]

    def stage(name: str) -> None:
        now = time.perf_counter()
        stages.append((name, now - mark[0]))
        mark[0] = now

    options = {"base_url": base_url, "search": search}
    root = root.resolve()
    target = _target(root, out_dir)
    snap = incremental.snapshot(root)
    quick = incremental.quick_digest(snap, options)
    manifest = incremental.Manifest.read(incremental.manifest_path(root, target)) if target else None
    if target is not None and not strict and incremental.unchanged(manifest, quick, target):
        log.info("nothing changed since the last build of %s", target)
        stage("check inputs")
        return BuildResult(out_dir=target, files=0, bytes=0, authors=0, records=0, subjects=0, warnings=(),
                           seconds=time.perf_counter() - start, stages=tuple(stages), unchanged=True)

    from generator.assemble import assemble
    from generator.config import load_site
    from generator.output import build_lock, write_site
    from generator.parallel import check_unique, default_workers, run_tasks
    from generator.render import plan_tasks
    from generator.search import indexed_records, plan_shards, shard_tasks
    from generator.store import read_all
    from generator.taxonomy import load_taxonomy
    from generator.themes import make_environment, static_dirs

    workers = default_workers() if workers is None else workers
    config = load_site(root, base_url=base_url)
    if not config.authors:
        raise SiteError("no authors configured", path="content/authors/",
                        hint="add one with 'authorsite new-author NAME'")
    taxonomy = load_taxonomy()
    stage("load config")
    store = read_all(config)
    stage("read cache")
    warnings = [*store.warnings, *store.notes]
    for w in warnings:
        log.warning("%s", w)
    if strict and warnings:
        raise SiteError(f"{len(warnings)} warning(s) and --strict is on", hint="see the warnings above")
    site = assemble(config, store, taxonomy)
    log.info("assembled %d authors, %d subjects", len(site.authors), len(site.subjects))
    stage("assemble")
    env = make_environment(config.root, config.theme)
    tasks = plan_tasks(env, site, taxonomy)
    target = (out_dir or config.output_path).resolve()
    groups = incremental.group_digests(config, site, options, snap, tasks)
    shards = plan_shards([a.slug for a in config.authors], [p.name for p in config.pages]) if search else []
    indexed = {slug: [r.key for r in records] for slug, records in indexed_records(site).items()} if search else {}
    shard_keys = incremental.search_digests(groups, config, snap, shards, indexed)
    stage("plan + digests")
    gc.freeze()
    gc.enable()

    def produce(staging: Path) -> int:
        # Until the new build is swapped in and its manifest written, there is no manifest: a
        # kill in between then costs one full rebuild, never a stale page.
        incremental.manifest_path(config.root, target).unlink(missing_ok=True)
        check_unique(tasks)
        keep = incremental.reusable(manifest, groups, tasks, target)
        for rel in sorted(keep):
            incremental.link_file(target / rel, staging / rel)
        stale = []
        for s in shards:
            if manifest is not None and manifest.search.get(s.name) == shard_keys[s.name] \
                    and (target / s.subdir).is_dir():
                incremental.link_tree(target / s.subdir, staging / s.subdir)
            else:
                stale.append(s)
        todo = [t for t in tasks if t.rel_path not in keep]
        index = shard_tasks(site, stale)
        log.info("rendering %d files%s%s with %d process%s...", len(todo),
                 f" ({len(keep)} unchanged, reused)" if keep else "",
                 f" and indexing {len(index)} of {len(shards)} search shards (Pagefind)" if index else "",
                 workers, "es" if workers > 1 else "")
        written = run_tasks([*todo, *index], staging, workers)
        stage(f"render + write{' + search index' if index else ''} ({workers} process"
              f"{'es' if workers > 1 else ''}, {len(keep)} files reused)")
        return written

    with build_lock(config.root):
        total = write_site(produce, static_dirs(config.root, config.theme), target, site_root=config.root)
        stage("swap")
        incremental.Manifest(quick, groups, {t.rel_path: t.group for t in tasks}, shard_keys).write(
            incremental.manifest_path(config.root, target))
    for name, seconds in stages:
        log.debug("  %-22s %6.2f s", name, seconds)
    return BuildResult(
        out_dir=target, files=len(tasks), bytes=total, authors=len(site.authors),
        records=sum(len(a.records) for a in site.authors), subjects=len(site.subjects),
        warnings=tuple(warnings), seconds=time.perf_counter() - start,
        stages=tuple(stages),
    )
