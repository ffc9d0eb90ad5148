"""Whether a response body may be believed at all, and the one safe parse of it. Pure.

The order matters. Before any parser runs, the body is checked as bytes and text:

1. a non-empty body ('Rate exceeded.' is recognised as throttling, an HTML page as an
   error page: both transient);
2. strict UTF-8 (arXiv only sends UTF-8; feedparser would silently re-decode a body
   with one stray byte as windows-1252 and turn every non-ASCII name into mojibake),
   and an XML declaration, if any, that says UTF-8;
3. no C0 control characters (XML forbids them; they also let a UTF-16 body without a
   BOM pass the UTF-8 decode with a NUL between every letter, hiding ``<!DOCTYPE``);
4. no ``<!DOCTYPE`` or ``<!ENTITY`` anywhere (arXiv never sends one): refused as hostile.
   Refusing before parsing matters for feedparser, whose loose fallback parser expands
   a "safe" internal entity without limit (a 63 kB feed took 458 MB); checking its
   ``bozo`` afterwards is too late.

Then there is exactly one parse. ``parse_xml`` (arXiv pages) builds an ElementTree with
``defusedxml``, which refuses any DTD, entity declaration or external reference inside
the parser as well: the text check above is not the only gate, and no later change to
it can let an entity reach expat. ``parse_checked`` (generic ``feed:`` sources, which
come in a dozen RSS/Atom dialects) is feedparser with ``bozo`` 0 and a known version.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from typing import Any

import defusedxml
import defusedxml.ElementTree as SafeET
import feedparser

from generator.sources.http import PermanentError, TransientError

_C0 = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_DECL_ENCODING = re.compile(r"""\A<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_HTML = re.compile(r"<html[\s>]|<!doctype\s+html", re.I)
_DTD = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.I)
HOSTILE = "response declares a DOCTYPE or ENTITY (never sent by arXiv or sane feeds)"


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
        raise PermanentError(f"{HOSTILE}; refused before parsing (entity expansion attack)")
    declared = _DECL_ENCODING.match(text.lstrip())
    name = declared.group(1).lower().replace("_", "-") if declared else "utf-8"
    # US-ASCII (DBLP declares it) is UTF-8 when every byte is ASCII: the same bytes, read the same way.
    if name not in ("utf-8", "utf8") and not (name in ("us-ascii", "ascii") and text.isascii()):
        raise TransientError(f"response declares encoding {declared.group(1)!r}; only UTF-8 is accepted")
    if not text.lstrip().startswith("<"):
        raise TransientError(f"response is not XML: starts with {text.strip()[:60]!r}")
    return text


def parse_xml(body: bytes) -> ET.Element:
    """The root element of a body that passes ``decode_xml``, parsed once by defusedxml.

    A malformed document (truncated, mismatched tags, an undefined entity such as
    ``&nbsp;``) is transient; a DTD, entity or external reference is hostile even if it
    slipped past the text check (``defusedxml`` raises before expat would act on it).
    """
    decode_xml(body)
    try:
        return SafeET.fromstring(body, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except defusedxml.DefusedXmlException as exc:
        raise PermanentError(f"{HOSTILE}; refused by the parser ({type(exc).__name__})") from None
    except ET.ParseError as exc:
        raise TransientError(f"malformed XML ({exc})") from None


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
