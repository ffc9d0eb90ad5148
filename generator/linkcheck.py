"""Find internal links in a built site that lead nowhere.

Every ``href``/``src`` of every HTML page is resolved as the browser would
(against the page's own URL under the site's base path); links that stay on the
site must name a file in the output folder (a folder address needs its
``index.html``, a ``#fragment`` an element with that id).
"""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from generator.routes import file_of_url, url_of_file


@dataclass(frozen=True, slots=True)
class BrokenLink:
    page: str
    target: str
    reason: str

    def __str__(self) -> str:
        return f"{self.page}: link to {self.target} {self.reason}"


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("href", "src") and not (tag == "link" and ("rel", "canonical") in attrs):
                if tag == "meta":
                    continue
                self.links.append(value)
            elif name == "id":
                self.ids.add(value)


def _parse(path: Path) -> _Collector:
    c = _Collector()
    c.feed(path.read_text("utf-8"))
    c.close()
    return c


def check_links(out_dir: Path, base_url: str) -> list[BrokenLink]:
    """Broken internal links of every page in ``out_dir`` (a site published at ``base_url``)."""
    base = urlsplit(base_url)
    origin = f"{base.scheme}://{base.netloc}" if base.scheme else "http://site.invalid"
    base_path = base.path or "/"
    pages = sorted(out_dir.rglob("*.html"))
    parsed = {p: _parse(p) for p in pages}
    broken: list[BrokenLink] = []
    for page, c in parsed.items():
        rel = page.relative_to(out_dir).as_posix()
        page_url = origin + base_path + url_of_file(rel)
        for link in c.links:
            target = urlsplit(urljoin(page_url, link))
            if f"{target.scheme}://{target.netloc}" != origin or target.scheme not in ("http", "https"):
                continue
            path = unquote(target.path)
            if not path.startswith(base_path):
                broken.append(BrokenLink(rel, link, f"is outside the base path {base_path}"))
                continue
            rel_url = path[len(base_path):]
            if rel_url and not rel_url.endswith("/") and (out_dir / rel_url).is_dir():
                rel_url += "/"   # a folder without its slash: servers redirect to the folder
            file = out_dir / file_of_url(rel_url)
            if not file.is_file():
                broken.append(BrokenLink(rel, link, "has no file"))
                continue
            if target.fragment and file.suffix == ".html":
                ids = parsed[file].ids if file in parsed else _parse(file).ids
                if target.fragment not in ids:
                    broken.append(BrokenLink(rel, link, f"has no element with id '{target.fragment}'"))
    return broken
