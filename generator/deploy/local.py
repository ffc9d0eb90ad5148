"""The built site as a deploy sees it: every file's key, size and digest, and what a page links to.

A deploy sends a finished build only: the build's manifest (generator.render.jobs.Manifest) must
be there and every output it lists present, else the folder is half a build (or none) and the
command says to build first. Each file is read once and digested (SHA-256 of its bytes: 1.5 GB
in about 2 s); a page's links are read only for the pages a deploy sends (generator.deploy.plan
orders them by what they link to).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping
from urllib.parse import unquote, urljoin, urlsplit

from generator.core import routes
from generator.core.errors import SiteError
from generator.render.jobs import Manifest, manifest_path, missing

# Files of GitHub Pages alone: in a bucket they would be served as pages of the site.
SKIPPED = frozenset({routes.nojekyll().path, routes.cname().path})
_ORIGIN = "http://site.invalid"


@dataclass(frozen=True, slots=True)
class LocalFile:
    key: str      # the path under the output folder, with '/': the object's key under the prefix
    size: int
    digest: str   # SHA-256 of the bytes, hex


def finished_build(root: Path, out_dir: Path) -> Manifest:
    """The manifest of the build in ``out_dir``; a ``SiteError`` when there is none or it is not whole."""
    manifest = Manifest.read(manifest_path(root, out_dir))
    if manifest is None or not out_dir.is_dir():
        raise SiteError(f"no finished build in {out_dir}", path=str(out_dir),
                        hint="run 'authorsite build' first: a deploy sends what a build made, and never builds")
    gone = sorted(missing(manifest, out_dir))
    if gone:
        raise SiteError(f"{out_dir} is not the whole of its last build: {len(gone)} output(s) missing, such "
                        f"as {gone[0]}", path=str(out_dir), hint="run 'authorsite build' again, then deploy")
    return manifest


def scan(out_dir: Path) -> dict[str, LocalFile]:
    """Every file under ``out_dir`` (but GitHub Pages' own), by key, in key order."""
    files: dict[str, LocalFile] = {}
    top = os.fspath(out_dir)
    for folder, dirs, names in os.walk(top):
        dirs.sort()
        rel = os.path.relpath(folder, top)
        for name in sorted(names):
            key = name if rel == "." else f"{rel}/{name}".replace(os.sep, "/")
            path = os.path.join(folder, name)
            if key in SKIPPED or not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                data = f.read()
            files[key] = LocalFile(key, len(data), hashlib.sha256(data).hexdigest())
    return dict(sorted(files.items()))


def page_links(key: str, html: bytes, keys: Mapping[str, object], hosts: frozenset[str] = frozenset()) -> set[str]:
    """The keys among ``keys`` that the page ``key`` links to by href or src (a meta's and the
    canonical link's left out, as ``check`` does), itself and other sites left out. A link is
    resolved as a browser would against the page's address; the site's base path (the build's,
    which ``--base-url`` may have set) is not known here, so the key is the longest tail of the
    link's path that names a file: '/repo/authors/x/' is authors/x/index.html. ``hosts``: the
    site's own host names, whose absolute links are its own."""
    from selectolax.lexbor import LexborHTMLParser   # (a deploy with no page to send never loads it)

    page_url = _ORIGIN + "/" + routes.url_of_file(key)
    found: set[str] = set()
    for node in LexborHTMLParser(html.decode("utf-8", "replace")).css("[href], [src]"):
        attrs = node.attributes
        if node.tag == "meta" or (node.tag == "link" and attrs.get("rel") == "canonical"):
            continue
        for value in (attrs.get("href"), attrs.get("src")):
            target = _key_of(page_url, value, keys, hosts) if value else None
            if target is not None and target != key:
                found.add(target)
    return found


def _key_of(page_url: str, link: str, keys: Mapping[str, object], hosts: frozenset[str]) -> str | None:
    target = urlsplit(urljoin(page_url, link))
    if target.scheme not in ("http", "https") or (target.netloc != _ORIGIN[7:] and target.hostname not in hosts):
        return None
    parts = unquote(target.path).lstrip("/").split("/")
    for n in range(len(parts)):
        rel = "/".join(parts[n:])
        for candidate in (routes.file_of_url(rel), routes.file_of_url(rel + "/") if rel else None):
            if candidate in keys:
                return candidate
    return None


def links_of(out_dir: Path, pages: Iterable[str], keys: Mapping[str, object],
             hosts: frozenset[str] = frozenset()) -> dict[str, set[str]]:
    """``page_links`` of each of ``pages`` (keys of HTML files under ``out_dir``)."""
    return {p: page_links(p, (out_dir / p).read_bytes(), keys, hosts) for p in pages}
