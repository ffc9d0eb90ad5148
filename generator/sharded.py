"""``authorsite build --shard K/N`` and ``authorsite merge``: a build spread over machines (issue 43).

A shard runs the pipeline's steps as a build does (generator.pipeline), and its own last step
in place of the build's: its share of the plan into its folder (generator.write.shard). The merge
checks the folders are the N shards of one plan and swaps their union in as a build's output
(generator.write.merge). The merge of the N shards of a plan is, byte for byte, the output
``authorsite build`` writes from the same inputs.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from generator.build import output_dir
from generator.buildinfo import Clock
from generator.core.errors import SiteError
from generator.config.check import Checker, read_table
from generator.config.schema import SITE
from generator.core.yamlfile import YMap, read_yaml
from generator.incremental.inputs import read_inputs
from generator.write import merge as merging
from generator.write.shard import MANIFEST, ShardManifest, Spec, Writer, default_dir
from generator.write.sitesize import SiteSize

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ShardResult:
    folder: Path
    jobs: int            # the shard's share of the plan
    rendered: int        # of them, run (the others reused from the folder's last shard)
    seconds: float
    unchanged: bool = False


def build_shard(root: Path, spec: Spec, *, out_dir: Path | None = None, base_url: str | None = None,
                strict: bool = False, search: bool = True, workers: int | None = None,
                reuse: bool = True) -> ShardResult:
    """Shard ``spec`` of the build of ``root`` into ``out_dir`` (default .authorsite/shards/K-of-N/)."""
    from generator import pipeline   # (as generator.build: the pipeline once something is to be done)

    clock = Clock()
    root = root.resolve()
    folder = (out_dir or default_dir(root, spec)).resolve()
    inputs = read_inputs(root, {"base_url": base_url, "search": search}, reuse)
    last = ShardManifest.read(folder / MANIFEST)
    if reuse and not strict and last is not None and last.complete and (last.k, last.n) == (spec.k, spec.n) \
            and last.inputs == inputs.digest and all(os.path.lexists(folder / rel) for rel in last.outputs):
        log.info("nothing changed since the last build of shard %s in %s", spec, folder)
        return ShardResult(folder, len(last.outputs), 0, clock.seconds(), unchanged=True)
    writer = Writer(spec, reuse)
    res = pipeline.run(root, clock, inputs, None, base_url=base_url, out_dir=folder, strict=strict, search=search,
                       workers=workers, reuse=reuse, write=writer)
    return ShardResult(folder, writer.jobs, writer.rendered, res.seconds)


def merge(root: Path, folders: Sequence[Path], out_dir: Path | None = None) -> tuple[Path, SiteSize]:
    """Merge the shard ``folders`` into the site's output folder (or ``out_dir``), as ``build`` writes it."""
    root = root.resolve()
    target = (out_dir.resolve() if out_dir is not None else output_dir(root))
    if target is None:
        raise SiteError("cannot read the output folder from site.yaml", path="site.yaml",
                        hint="run 'authorsite check', or give --out")
    shards = merging.check([Path(f) for f in folders])
    return target, merging.merge(root, shards, target)


def matrix(root: Path) -> dict[str, object]:
    """``shards:`` of site.yaml as the publish workflow's matrix: {"count": N, "shard": [1, ..., N]}."""
    count = site_values(root)["shards"]
    return {"count": count, "shard": list(range(1, count + 1))}


def site_values(root: Path) -> dict[str, object]:
    """site.yaml's values alone (no author is read), checked by its schema
    (generator.config.schema.SITE) as a build checks them."""
    data, problems = read_yaml(root / "site.yaml", "site.yaml")
    ck = Checker("site.yaml")
    ck.problems.extend(problems)
    values = read_table(ck, ck.mapping(data if data is not None else YMap(), "site.yaml", 1) or YMap(), SITE)
    if ck.problems:
        raise SiteError.from_problems(ck.problems)
    return values
