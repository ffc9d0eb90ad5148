"""The size of a built site, against where it is published (site.yaml ``host``).

Each host refuses a site past its own walls: GitHub Pages one over 1 GB (its documented limit;
the deploy-pages action fails the deployment), Cloudflare Pages more than 20,000 files (100,000
on a paid plan) or a file over 25 MiB, Netlify a deploy of more than 54,000 files; object
storage behind a CDN (``s3``, with ``authorsite deploy``) has none. The build prints the size of
what it wrote and warns past the host's limits; ``check`` reports the same message as a problem
(non-zero exit), so a growing site is told before a deployment fails, with the fix.
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
class Limits:
    name: str                     # as messages say it
    bytes: int | None = None      # the whole site
    files: int | None = None
    file_bytes: int | None = None  # the largest file


HOSTS = {
    "github-pages": Limits("GitHub Pages", bytes=PAGES_LIMIT_BYTES),
    "cloudflare-pages": Limits("Cloudflare Pages (free plan)", files=20_000, file_bytes=25 * 2**20),
    "cloudflare-pages-paid": Limits("Cloudflare Pages (paid plan)", files=100_000, file_bytes=25 * 2**20),
    "netlify": Limits("Netlify", files=54_000),
    "s3": Limits("S3-compatible storage"),
}


@dataclass(frozen=True, slots=True)
class SiteSize:
    files: int
    bytes: int

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


def largest_file(out_dir: Path) -> tuple[int, str]:
    """(bytes, path under ``out_dir``) of the largest regular file."""
    best = (0, "")
    for folder, _, names in os.walk(out_dir):
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.islink(path) and (n := os.path.getsize(path)) > best[0]:
                best = (n, os.path.relpath(path, out_dir))
    return best


def limit_warning(size: SiteSize, out_dir: str, host: str = "github-pages",
                  largest: tuple[int, str] = (0, "")) -> str | None:
    """The one message for a site its host would refuse (what is over, and the fix), or None."""
    limits = HOSTS.get(host, HOSTS["github-pages"])
    over = []
    if limits.bytes is not None and size.bytes > limits.bytes:
        over.append(f"{size.bytes / 1e9:.2f} GB, over {limits.name}' {limits.bytes / 1e9:g} GB limit for a published "
                    "site" if host == "github-pages" else f"{size.bytes / 1e9:.2f} GB, over {limits.bytes / 1e9:g} GB")
    if limits.files is not None and size.files > limits.files:
        over.append(f"{size.files:,} files, over {limits.name}'s {limits.files:,}")
    if limits.file_bytes is not None and largest[0] > limits.file_bytes:
        over.append(f"its largest file ({largest[1]}, {largest[0] / 2**20:.1f} MiB) is over {limits.name}'s "
                    f"{limits.file_bytes / 2**20:g} MiB a file")
    if not over:
        return None
    return (f"{out_dir}/ is " + "; ".join(over) + f" (site.yaml host: {host}): the deployment would fail. Turn off the "
            "page per paper (papers: false in site.yaml; at 1,000 authors of 100 records they are 0.58 GB and 81,000 "
            "files), lower feed_size, leave out old records with an author's filters (since: YEAR), or publish "
            "somewhere without that limit (host: s3 and 'authorsite deploy': README, Hosting past GitHub Pages)")


def limit_lines(out: Path, size: SiteSize, host: str = "github-pages") -> tuple[str | None, str | None]:
    """What a build says of its size against its host's limits: (a note from half of a limit on
    the bytes, with what the paper pages add; the message past a limit). The parts are logged with -v."""
    lines = parts(out, size)
    for line in lines:
        log.debug("  %s", line)
    limits = HOSTS.get(host, HOSTS["github-pages"])
    warning = host_warning(out, size, out.name, host)
    if warning or limits.bytes is None or size.bytes <= limits.bytes * NEAR_SHARE:
        return None, warning
    note = f"{out.name}/ is {size.bytes / 1e9:.2f} GB, {size.bytes / limits.bytes:.0%} of {limits.name}' " \
           f"{limits.bytes / 1e9:g} GB limit"
    return note + (f"; {lines[0]}" if lines else ""), None


def report(out: Path, size: SiteSize | None = None, name: str | None = None, host: str = "github-pages") -> str | None:
    """Log the output's size (as the build saw it, else measured now) and its parts; the message
    past the host's limits, if any (build warns it and check reports it, in the same words)."""
    size = size or measure(out)
    log.info("%s: %s", f"{name}/" if name else "output", size.describe())
    for line in parts(out, size):
        log.info("  %s", line)
    return host_warning(out, size, name or out.name, host)


def host_warning(out: Path, size: SiteSize, name: str, host: str) -> str | None:
    """``limit_warning`` of the output ``out`` (shown as ``name``), its largest file found only
    when the host limits a file's size (another walk of the output)."""
    if HOSTS.get(host, HOSTS["github-pages"]).file_bytes is None:
        return limit_warning(size, name, host)
    return limit_warning(size, name, host, largest_file(out))
