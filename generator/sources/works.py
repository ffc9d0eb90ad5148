"""What the bibliographic sources (ORCID, DBLP, OpenAlex) share: their endpoint, the JSON
acceptance check, and the arXiv id or DOI hidden in a link.

The JSON counterpart of ``accept.decode_xml``: before ``json.loads`` runs, a body must be
non-empty, strict UTF-8 and not an HTML error page; then exactly one parse, which refuses
``NaN``/``Infinity`` (not JSON, though Python reads them) and absurd nesting. Anything
malformed is transient (a truncated or garbled answer may be fine on the next try).

The arXiv id is taken from a link so that records of the same work merge with the arXiv
source's: ``arxiv.org/abs/ID`` or ``/pdf/ID`` (http or https), and arXiv's DataCite DOI
``10.48550/arXiv.ID``, which names the preprint, never the published paper, and so is kept
as the arXiv id rather than as the record's DOI.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping
from urllib.parse import urlsplit

from generator.core import ids
from generator.core.errors import SiteError
from generator.sources.http import TransientError

_ARXIV_LINK = re.compile(r"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/(.+?)(?:\.pdf)?/?$", re.I)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.I)
_HTML = re.compile(r"^\s*<(?:!doctype\s+html|html[\s>])", re.I)
MAX_DEPTH = 64


def endpoint(environ: Mapping[str, str], variable: str, default: str) -> str:
    """The base URL the source's paths hang from: ``variable`` if set (a mirror or a test server),
    else ``default``; no trailing slash."""
    raw = environ.get(variable, "").strip()
    url = ids.safe_url(raw or default)
    if url is None:
        raise SiteError(f"environment variable {variable} must be an http(s) URL, found {raw!r}",
                        hint=f"unset it to use {default}, or give the base address of a mirror")
    return url.rstrip("/")


def parse_json(body: bytes) -> Any:  # noqa: ANN401 - a JSON document
    """The document of a body that passes the checks above; ``TransientError`` otherwise."""
    if not body.strip():
        raise TransientError("empty response body" if not body else "response body is only whitespace")
    try:
        text = body.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise TransientError(f"response is not valid UTF-8 (byte 0x{body[exc.start]:02x} at offset "
                             f"{exc.start}); refused rather than guessing its encoding") from None
    if _HTML.match(text):
        raise TransientError("an HTML page instead of JSON (an error page?)")
    if _depth(text) > MAX_DEPTH:
        raise TransientError(f"JSON nested more than {MAX_DEPTH} levels deep; refused")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (json.JSONDecodeError, ValueError) as exc:
        raise TransientError(f"malformed JSON ({exc})") from None


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _depth(text: str) -> int:
    """The deepest bracket nesting outside strings (checked before parsing: json recurses)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def arxiv_from_doi(doi: str | None) -> str | None:
    """The arXiv id named by arXiv's own DataCite DOI (``10.48550/arXiv.2401.01234``), else None."""
    m = _ARXIV_DOI.match(doi or "")
    parsed = ids.parse_arxiv_id(m.group(1)) if m else None
    return parsed[0] if parsed else None


def arxiv_from_link(url: str) -> str | None:
    """The arXiv id of an arXiv abstract or PDF link, or of a doi.org link to arXiv's DOI; else None."""
    m = _ARXIV_LINK.match(url.strip())
    if m:
        parsed = ids.parse_arxiv_id(m.group(1))
        return parsed[0] if parsed else None
    return arxiv_from_doi(doi_from_link(url))


def doi_from_link(url: str) -> str | None:
    """The DOI of a doi.org link, else None."""
    if (urlsplit(url.strip()).hostname or "").lower() not in ("doi.org", "dx.doi.org"):
        return None
    return ids.normalize_doi(url)


def split_doi(doi: str | None) -> tuple[str | None, str | None]:
    """(DOI, arXiv id) from a DOI: arXiv's DataCite DOI becomes the arXiv id, any other stays a DOI."""
    arxiv = arxiv_from_doi(doi)
    return (None, arxiv) if arxiv else (doi, None)
