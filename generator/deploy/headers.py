"""The HTTP headers an object is stored with: its Content-Type and its Cache-Control.

Object storage serves each object with the headers it was stored with (S3, R2 and Google Cloud
Storage alike; a CDN in front passes them on), so they are set once, at upload, from the key
alone: a pure function of the file's name, the same for every deploy.

* Content-Type: every kind of file a build writes, with ``charset=utf-8`` on text (every text
  file we write is UTF-8). A file of a kind not listed here (a theme's own static file) gets
  what the standard library's table says, else ``application/octet-stream``.
* Cache-Control: long (a year, ``immutable``) for a file whose name carries the digest of its
  bytes, since a new content is a new name; short for the rest (pages, feeds, exports, the
  search index's ``meta.json``, the theme's CSS and JS, whose names do not change), so an edit
  is seen within minutes without the CDN being purged.
"""

from __future__ import annotations

import hashlib
import mimetypes
import posixpath
import re

from generator.core import routes

SHORT = "public, max-age=300"                    # 5 minutes: a browser or CDN asks again soon after
LONG = "public, max-age=31536000, immutable"     # a year: the name changes with the content
UTF8 = "; charset=utf-8"

# Suffix -> type. Text types get UTF8 (below); the feeds and exports are named by their routes.
_TYPES = {
    ".html": "text/html", ".css": "text/css", ".js": "text/javascript", ".txt": "text/plain",
    ".xml": "application/xml", ".json": "application/json", ".bib": "application/x-bibtex",
    ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
    ".webp": "image/webp", ".gif": "image/gif", ".avif": "image/avif", ".ico": "image/x-icon",
    ".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".otf": "font/otf",
    ".pdf": "application/pdf", ".webmanifest": "application/manifest+json",
}
_TEXT = frozenset({".html", ".css", ".js", ".txt", ".xml", ".json", ".bib", ".svg", ".webmanifest"})
_FEED = "application/atom+xml"                   # every feed.xml we write is Atom
_CSL = "application/vnd.citationstyles.csl+json"  # publications.json is CSL-JSON

# A file name that carries the digest of its bytes: the search index's term shards and chunks,
# t/N-<hex>.json and d/N-<hex>.json (generator.render.search_index), or any NAME-<hex>.EXT or
# NAME.<hex>.EXT with 12 or more hex digits.
_DIGEST_NAME = re.compile(r"[-.][0-9a-f]{12,64}\.[A-Za-z0-9]+$")

# The headers' rules, as a version: a deploy manifest written under other rules re-sends every
# file (generator.deploy.state), so changing a type or a cache time here reaches the bucket.
RULES = hashlib.sha256(repr((sorted(_TYPES.items()), sorted(_TEXT), _FEED, _CSL, SHORT, LONG,
                             _DIGEST_NAME.pattern)).encode()).hexdigest()[:16]


def content_type(key: str) -> str:
    """The Content-Type of the output file ``key`` (a path relative to the output folder)."""
    name = posixpath.basename(key)
    suffix = posixpath.splitext(name)[1].lower()
    if name == posixpath.basename(routes.site_feed().path):
        return _FEED + UTF8
    if name == posixpath.basename(routes.publications_csl().path):
        return _CSL + UTF8
    known = _TYPES.get(suffix)
    if known is not None:
        return known + (UTF8 if suffix in _TEXT else "")
    guessed, _ = mimetypes.guess_type(name, strict=False)
    if guessed is None:
        return "application/octet-stream"
    return guessed + (UTF8 if guessed.startswith("text/") else "")


def cache_control(key: str) -> str:
    """Long for a file named by its digest, short for every other."""
    return LONG if _DIGEST_NAME.search(posixpath.basename(key)) else SHORT


def headers(key: str) -> tuple[str, str]:
    """(Content-Type, Cache-Control) of ``key``."""
    return content_type(key), cache_control(key)
