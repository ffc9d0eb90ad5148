"""The size of a built site, against where it is published.

GitHub Pages refuses a published site over 1 GB (its documented limit; the deploy-pages
action fails the deployment). The build prints the size of what it wrote, warns past the
limit, and ``check`` reports it, so a growing site is told before a deployment fails.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from generator.core import routes

log = logging.getLogger(__name__)

PAGES_LIMIT_BYTES = 1_000_000_000   # GitHub Pages: "Published GitHub Pages sites may be no larger than 1 GB"
# From this share of the limit on, a build says how near it is (and what the paper pages add):
# below it the size in the build's one line is all a site needs to know.
NEAR_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class SiteSize:
    files: int
    bytes: int

    @property
    def over_limit(self) -> bool:
        return self.bytes > PAGES_LIMIT_BYTES

    def describe(self) -> str:
        return f"{self.bytes / 1e6:,.1f} MB in {self.files:,} files"


def measure(out_dir: Path) -> SiteSize:
    """Files and bytes under ``out_dir`` (regular files only; links are not followed)."""
    files = size = 0
    stack = [str(out_dir)]
    while stack:
        with os.scandir(stack.pop()) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    files += 1
                    size += entry.stat(follow_symlinks=False).st_size
    return SiteSize(files, size)


def parts(out_dir: Path, size: SiteSize) -> list[str]:
    """What the parts that a setting turns off add to the output of ``size``: the paper pages
    (site.yaml ``papers``), one line each, for the build's size report; none when not built."""
    folder = out_dir / routes.papers().path
    if not folder.is_dir():
        return []
    part = measure(folder)
    share = part.bytes / size.bytes if size.bytes else 0.0
    return [f"paper pages (site.yaml papers): {part.describe()}, {share:.0%} of the output"]


def limit_warning(size: SiteSize, out_dir: str) -> str | None:
    """The warning for a site GitHub Pages would refuse, or None."""
    if not size.over_limit:
        return None
    return (f"{out_dir}/ is {size.bytes / 1e9:.2f} GB, over GitHub Pages' 1 GB limit for a published site: "
            "the deployment would fail. Turn off the page per paper (papers: false in site.yaml; at 1,000 authors "
            "of 100 records they are 0.58 GB), lower feed_size, leave out old records with an author's filters "
            "(since: YEAR), or publish somewhere without that limit")


def limit_lines(out: Path, size: SiteSize) -> tuple[str | None, str | None]:
    """What a build says of its size against GitHub Pages' limit: (a note from half of it on,
    with what the paper pages add; the warning past it). The parts are logged with -v."""
    lines = parts(out, size)
    for line in lines:
        log.debug("  %s", line)
    warning = limit_warning(size, out.name)
    if warning or size.bytes <= PAGES_LIMIT_BYTES * NEAR_SHARE:
        return None, warning
    note = f"{out.name}/ is {size.bytes / 1e9:.2f} GB, {size.bytes / PAGES_LIMIT_BYTES:.0%} of GitHub Pages' 1 GB limit"
    return note + (f"; {lines[0]}" if lines else ""), None


def report(out: Path, size: SiteSize | None = None, name: str | None = None) -> str | None:
    """Log the output's size (as the build saw it, else measured now) and its parts; the warning
    past GitHub Pages' limit, if any (build and check report it alike)."""
    size = size or measure(out)
    log.info("%s: %s", f"{name}/" if name else "output", size.describe())
    for line in parts(out, size):
        log.info("  %s", line)
    return limit_warning(size, name or out.name)
