"""Find internal links in a built site that lead nowhere.

Every ``href``/``src`` of every HTML page is resolved as the browser would
(against the page's own URL under the site's base path); links that stay on the
site must name a file in the output folder (a folder address needs its
``index.html``, a ``#fragment`` an element with that id).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

from generator.core.routes import file_of_url, url_of_file

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class BrokenLink:
    page: str
    target: str
    reason: str

    def __str__(self) -> str:
        return f"{self.page}: link to {self.target} {self.reason}"


@dataclass(frozen=True, slots=True)
class _Page:
    links: tuple[str, ...]
    ids: frozenset[str]


def _parse(path: Path) -> _Page:
    """A page's href/src values (not a canonical link's, not a meta's) and ids, as an HTML5
    parser reads them (Lexbor, through selectolax: entities decoded, scripts' text skipped).
    Python's html.parser took 96 s for the 6,000 pages of 1,000 authors x 100 records."""
    links: list[str] = []
    ids: set[str] = set()
    for node in LexborHTMLParser(path.read_bytes().decode("utf-8")).css("[href], [src], [id]"):
        attrs = node.attributes
        if attrs.get("id") is not None:
            ids.add(attrs["id"])  # type: ignore[arg-type]
        if node.tag == "meta" or (node.tag == "link" and attrs.get("rel") == "canonical"):
            continue
        links += [v for k in ("href", "src") if (v := attrs.get(k)) is not None]
    return _Page(tuple(links), frozenset(ids))


def check_links(out_dir: Path, base_url: str) -> list[BrokenLink]:
    """Broken internal links of every page in ``out_dir`` (a site published at ``base_url``)."""
    base = urlsplit(base_url)
    origin = f"{base.scheme}://{base.netloc}" if base.scheme else "http://site.invalid"
    base_path = base.path or "/"
    pages = sorted(out_dir.rglob("*.html"))
    parsed: dict[Path, _Page] = {}
    said = time.monotonic()
    for n, p in enumerate(pages, 1):
        parsed[p] = _parse(p)
        if time.monotonic() - said > 5:
            said = time.monotonic()
            log.info("checking links: %s of %s pages read", f"{n:,}", f"{len(pages):,}")
    target_of = _Resolver(out_dir, origin, base_path)
    broken: list[BrokenLink] = []
    for page, c in parsed.items():
        rel = page.relative_to(out_dir).as_posix()
        page_url = origin + base_path + url_of_file(rel)
        for link in c.links:
            if link.startswith("#"):   # this page's own element (each page has its own: not cached)
                if len(link) > 1 and unquote(link[1:]) not in c.ids:
                    broken.append(BrokenLink(rel, link, f"has no element with id '{unquote(link[1:])}'"))
                continue
            found = target_of(page_url, link)
            if found is None:
                continue
            file, fragment, reason = found
            if reason:
                broken.append(BrokenLink(rel, link, reason))
            elif fragment and file.suffix == ".html":
                ids = parsed[file].ids if file in parsed else _parse(file).ids
                if fragment not in ids:
                    broken.append(BrokenLink(rel, link, f"has no element with id '{fragment}'"))
    return broken


_ELSEWHERE = ("https://", "http://", "mailto:")


class _Resolver:
    """Where a link leads (None: off the site), with why it is broken; each address once (a
    site's 3,000,000 links are a few thousand addresses: chips, co-authors, assets)."""

    def __init__(self, out_dir: Path, origin: str, base_path: str) -> None:
        self.out_dir, self.origin, self.base_path = out_dir, origin, base_path
        self._file = lru_cache(maxsize=None)(self._file_of)
        self._seen: dict[tuple[str, str], tuple[Path, str, str] | None] = {}

    def __call__(self, page_url: str, link: str) -> tuple[Path, str, str] | None:
        if link.startswith(_ELSEWHERE) and not link.startswith(self.origin + "/"):
            return None   # most links lead off the site (a record's source, its PDF): no parse
        key = ("", link) if link.startswith("/") and not link.startswith("//") else (page_url, link)
        if key not in self._seen:
            self._seen[key] = self._resolve(page_url, link)
        return self._seen[key]

    def _resolve(self, page_url: str, link: str) -> tuple[Path, str, str] | None:
        target = urlsplit(urljoin(page_url, link))
        if f"{target.scheme}://{target.netloc}" != self.origin or target.scheme not in ("http", "https"):
            return None
        path = unquote(target.path)
        if not path.startswith(self.base_path):
            return Path(), "", f"is outside the base path {self.base_path}"
        file, exists = self._file(path[len(self.base_path):])
        return file, target.fragment, "" if exists else "has no file"

    def _file_of(self, rel_url: str) -> tuple[Path, bool]:
        if rel_url and not rel_url.endswith("/") and (self.out_dir / rel_url).is_dir():
            rel_url += "/"   # a folder without its slash: servers redirect to the folder
        file = self.out_dir / file_of_url(rel_url)
        return file, file.is_file()
