"""Routes: the one home of every output file's path and URL.

Each page or file of a site has a ``Route``: its ``url`` relative to the site's base
('' for the home page, 'authors/jane/' for a folder page, 'feed.xml' for a file) and its
``path``, the file written under the output folder ('authors/jane/index.html'). One
function per kind of output (``author``, ``subject``, ``author_feed`` ...) builds it, so a
path is spelled once: planning (generator.render.pages), exports, the search index and templates
(the ``url_for`` global, see ``Urls``) all ask here. Like MkDocs' ``File.dest_uri`` and
``File.url``, and unlike string concatenation spread over modules, a new output layout
(say, one page per record) is a change in this file alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable
from urllib.parse import urlsplit

INDEX = "index.html"


@dataclass(frozen=True, slots=True)
class Route:
    url: str    # relative to the site's base: '' (home), 'authors/jane/', 'feed.xml'
    path: str   # the output file (or folder) under the output root


def _folder(url: str) -> Route:
    """A page served as a folder address: 'x/' is written to 'x/index.html'."""
    return Route(url, url + INDEX)


def _file(url: str) -> Route:
    return Route(url, url)


def home() -> Route:
    return _folder("")


def author(slug: str) -> Route:
    return _folder(f"authors/{slug}/")


def author_feed(slug: str) -> Route:
    return _file(author(slug).url + "feed.xml")


def author_bibtex(slug: str) -> Route:
    return _file(author(slug).url + "publications.bib")


def author_csl(slug: str) -> Route:
    return _file(author(slug).url + "publications.json")


def author_photo(slug: str, suffix: str) -> Route:
    """An author's photo, copied next to their page (``suffix`` such as '.jpg')."""
    return _file(author(slug).url + "photo" + suffix)


def subjects() -> Route:
    return _folder("subjects/")


def subject(code: str, number: int = 1) -> Route:
    """Page ``number`` of a subject's records (the first at the subject's own address)."""
    first = f"{subjects().url}{code}/"
    return _folder(first if number == 1 else f"{first}page/{number}/")


def subject_feed(code: str) -> Route:
    return _file(subject(code).url + "feed.xml")


def venues() -> Route:
    """The venue index (site.yaml ``venues: true``)."""
    return _folder("venues/")


def venue(slug: str, number: int = 1) -> Route:
    """Page ``number`` of a venue's records (generator.assemble.venues makes the slug)."""
    first = f"{venues().url}{slug}/"
    return _folder(first if number == 1 else f"{first}page/{number}/")


def papers() -> Route:
    """The folder of the paper pages (a folder, not a page: generator.write.sitesize measures it)."""
    return Route("papers/", "papers")


def paper(key: str) -> Route:
    """A paper's own page (site.yaml ``papers``; generator.assemble.papers makes the key)."""
    return _folder(f"papers/{key}/")


def publications() -> Route:
    """The lab's list of publications (site.yaml ``publications``, generator.render.lab)."""
    return _folder("publications/")


def publications_feed() -> Route:
    return _file(publications().url + "feed.xml")


def publications_bibtex() -> Route:
    return _file(publications().url + "publications.bib")


def publications_csl() -> Route:
    return _file(publications().url + "publications.json")


def page(name: str) -> Route:
    """A free Markdown page (content/pages/NAME.md)."""
    return _folder(f"pages/{name}/")


def search() -> Route:
    return _folder("search/")


def search_index() -> Route:
    """The folder of the search index (a folder, not a page; generator.render.search_index lays it out)."""
    return Route("search/index/", "search/index")


def site_feed() -> Route:
    return _file("feed.xml")


def authors_index() -> Route:
    """The small JSON index of the authors (data.json)."""
    return _file("data.json")


def sitemap() -> Route:
    return _file("sitemap.xml")


def sitemap_part(number: int) -> Route:
    """Part NUMBER (from 1) of a sitemap too large for one file; sitemap.xml is then their index."""
    return _file(f"sitemap-{number}.xml")


def robots() -> Route:
    return _file("robots.txt")


def not_found() -> Route:
    return _file("404.html")


def nojekyll() -> Route:
    return _file(".nojekyll")


def cname() -> Route:
    return _file("CNAME")


def static(name: str) -> Route:
    """A theme's static asset (copied by generator.write.output from the themes' static/ folders)."""
    return _file(f"static/{name}")


def feed_of(page_url: str) -> Route:
    """The Atom feed that goes with the page at ``page_url`` (home, author, subject)."""
    return _file(page_url + "feed.xml")


def url_of_file(path: str) -> str:
    """The URL (relative to the base) a browser uses for the output file ``path``."""
    return path[: -len(INDEX)] if path == INDEX or path.endswith("/" + INDEX) else path


def file_of_url(url: str) -> str:
    """The output file that answers ``url`` (relative to the base): a folder address needs its index."""
    return url + INDEX if url == "" or url.endswith("/") else url


KINDS: dict[str, Callable[..., Route]] = {
    "home": home, "author": author, "author_feed": author_feed, "author_bibtex": author_bibtex,
    "author_csl": author_csl, "author_photo": author_photo, "subjects": subjects, "subject": subject,
    "subject_feed": subject_feed, "venues": venues, "venue": venue, "paper": paper, "page": page, "search": search,
    "publications": publications, "publications_feed": publications_feed,
    "publications_bibtex": publications_bibtex, "publications_csl": publications_csl,
    "search_index": search_index, "site_feed": site_feed,
    "authors_index": authors_index, "sitemap": sitemap, "sitemap_part": sitemap_part, "robots": robots, "not_found": not_found,
    "static": static,
}


class Urls:
    """URLs of routes for a site published at ``base_url`` (absolute, or a bare path such as
    '/' for a local site): ``url_for('author', slug)`` for links in pages (the base's path),
    ``abs_url_for(...)`` for feeds, canonical links and the sitemap (scheme and host too when
    the base has them)."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        self.base_path = parts.path or "/"
        self.absolute = base_url if parts.scheme else self.base_path

    def url(self, rel: str = "") -> str:
        """``rel`` (a route's url) under the base path."""
        return self.base_path + rel.lstrip("/")

    def absurl(self, rel: str = "") -> str:
        return self.absolute + rel.lstrip("/")

    def url_for(self, kind: str, *args: str | int) -> str:
        return self.url(KINDS[kind](*args).url)

    def abs_url_for(self, kind: str, *args: str | int) -> str:
        return self.absurl(KINDS[kind](*args).url)
