"""Whether a response body may be believed at all, before any parser sees it. Pure.

The order matters. feedparser falls back to a loose parser when the strict one fails,
and that loose parser expands a "safe" internal entity without limit (a 63 kB feed
took 458 MB); checking ``bozo`` afterwards is too late. So, before parsing:

1. a non-empty body ('Rate exceeded.' is recognised as throttling, an HTML page as an
   error page: both transient);
2. strict UTF-8 (arXiv only sends UTF-8; feedparser would silently re-decode a body
   with one stray byte as windows-1252 and turn every non-ASCII name into mojibake),
   and an XML declaration, if any, that says UTF-8;
3. no C0 control characters (XML forbids them; they also let a UTF-16 body without a
   BOM pass the UTF-8 decode with a NUL between every letter, hiding ``<!DOCTYPE``);
4. no ``<!DOCTYPE`` or ``<!ENTITY`` anywhere (arXiv never sends one): refused as hostile.

Only then does feedparser run, as a second, independent gate (``bozo`` 0, the feed
version expected). After these checks no parser can meet an entity declaration, so
``xml.etree.ElementTree`` (which the arXiv source uses to read the fields) is safe too.
"""

from __future__ import annotations

import io
import re
from typing import Any

import feedparser

from generator.sources.http import PermanentError, TransientError

_C0 = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_DECL_ENCODING = re.compile(r"""\A<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_HTML = re.compile(r"<html[\s>]|<!doctype\s+html", re.I)
_DTD = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.I)


def decode_xml(body: bytes) -> str:
    """The body as text if it passes checks 1-4; else ``TransientError``/``PermanentError``."""
    if not body.strip():
        raise TransientError("empty response body" if not body else "response body is only whitespace")
    head = body[:200].strip()
    if head.lower().startswith(b"rate exceeded"):
        raise TransientError("'Rate exceeded.' instead of a feed (throttled)", throttled=True)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TransientError(f"response is not valid UTF-8 (byte 0x{body[exc.start]:02x} at offset "
                             f"{exc.start}); refused rather than guessing its encoding") from None
    text = text.removeprefix("\ufeff")
    bad = _C0.search(text)
    if bad:
        raise TransientError(f"response contains the control character U+{ord(bad.group()):04X} at "
                             f"offset {bad.start()}; not well-formed XML")
    if _HTML.search(text[:2048]):
        raise TransientError(f"an HTML page instead of a feed: {_html_title(text)!r}")
    if _DTD.search(text):
        raise PermanentError("response declares a DOCTYPE or ENTITY (never sent by arXiv or sane feeds); "
                             "refused before parsing (entity expansion attack)")
    declared = _DECL_ENCODING.match(text.lstrip())
    if declared and declared.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
        raise TransientError(f"response declares encoding {declared.group(1)!r}; only UTF-8 is accepted")
    if not text.lstrip().startswith("<"):
        raise TransientError(f"response is not XML: starts with {text.strip()[:60]!r}")
    return text


def parse_checked(body: bytes, versions: tuple[str, ...]) -> Any:  # noqa: ANN401 - feedparser's dict
    """feedparser's verdict on a body that passed ``decode_xml``: bozo 0 and a known feed version."""
    # A stream, never bytes: feedparser tries ``open()`` on bytes first, as a file name.
    d = feedparser.parse(io.BytesIO(body), sanitize_html=True, resolve_relative_uris=False)
    if d.get("bozo"):
        exc = d.get("bozo_exception")
        raise TransientError(f"malformed feed ({type(exc).__name__}: {exc})")
    version = d.get("version") or ""
    if version not in versions:
        raise TransientError(f"not an {' or '.join(versions)} feed (feedparser reads it as "
                             f"{version or 'nothing it knows'})")
    return d


def _html_title(text: str) -> str:
    m = re.search(r"<title[^>]*>(.*?)</title>", text, re.I | re.S)
    title = " ".join(m.group(1).split()) if m else " ".join(re.sub(r"<[^>]*>", " ", text[:300]).split())
    return title[:100]
