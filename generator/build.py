"""``authorsite build``: the "nothing changed" check, then the pipeline (generator.pipeline).

``build`` digests every input first (generator.incremental.inputs); when nothing changed since
the last build and its files are all there, it stops. Only then is the pipeline imported
(Jinja, Markdown, LaTeX, the model: 0.11 s of a 0.25 s rebuild with nothing to do), the one
import this package makes inside a function for speed.
"""

from __future__ import annotations

import logging
from pathlib import Path

from generator.render import jobs
from generator.buildinfo import BuildResult, Clock
from generator.core.errors import SiteError
from generator.core.files import build_lock
from generator.incremental.inputs import read_inputs
from generator.core.paths import DEFAULT_OUTPUT_DIR
from generator.core.yamlfile import read_yaml

log = logging.getLogger(__name__)

__all__ = ["BuildResult", "Clock", "build"]


def _target(root: Path, out_dir: Path | None) -> Path | None:
    """The output folder, known before the configuration is loaded (None if site.yaml is unreadable)."""
    if out_dir is not None:
        return out_dir.resolve()
    site_yaml = root / "site.yaml"
    if site_yaml.is_symlink():
        return None  # load_site reports it
    try:
        data, _ = read_yaml(site_yaml, "site.yaml")   # the same guarded reader as load_site
        name = data.get("output_dir") if isinstance(data, dict) else None
        return (root / str(name or DEFAULT_OUTPUT_DIR)).resolve()
    except (SiteError, OSError, ValueError):
        return None


def output_dir(root: Path) -> Path | None:
    """The output folder site.yaml names (None if it is unreadable: then loading it says why)."""
    return _target(root, None)


def build(root: Path, *, base_url: str | None = None, out_dir: Path | None = None,
          strict: bool = False, search: bool = True, workers: int | None = None, reuse: bool = True) -> BuildResult:
    """Build the site at ``root`` into its output folder (or ``out_dir``). ``reuse=False``: nothing an
    earlier build made is read (``build --no-reuse``): every job runs, with the same output."""
    clock = Clock()
    root = root.resolve()
    options = {"base_url": base_url, "search": search}
    inputs = read_inputs(root, options, reuse)   # before anything is read: see generator.incremental.inputs
    target = _target(root, out_dir)
    if target is not None and not strict and reuse:
        done = _unchanged(root, target, inputs.digest, clock)
        if done is not None:
            return done
    from generator import pipeline   # (the rest of the pipeline: see the module docstring)

    return pipeline.run(root, clock, inputs, target, base_url=base_url, out_dir=out_dir, strict=strict,
                        search=search, workers=workers, reuse=reuse)


def _unchanged(root: Path, target: Path, inputs: str, clock: Clock) -> BuildResult | None:
    """The result of a build with nothing to do, or None. Under the build lock: while another
    build runs, this one is refused, whatever the manifest says."""
    with build_lock(root):
        manifest = jobs.Manifest.read(jobs.manifest_path(root, target))
        if manifest is None or not jobs.unchanged(manifest, inputs, target):
            return None
    log.info("nothing changed since the last build of %s", target)
    clock.stage("check inputs")
    return BuildResult(out_dir=target, files=0, bytes=0, authors=0, records=0, subjects=0, warnings=(),
                       seconds=clock.seconds(), stages=tuple(clock.stages), unchanged=True,
                       reused=len(manifest.outputs))
