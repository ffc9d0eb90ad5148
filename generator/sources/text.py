"""Small pure helpers shared by the sources: clean text, UTC dates, record keys.

Feed text is hostile: control characters are stripped (they never belong in a title
and can drive a terminal), bidi overrides are stripped (U+202E turns a name around),
whitespace is collapsed (arXiv wraps titles with a newline and two spaces), and every
field has a size cap (a 200 kB title must not make a 1 MB page). Markup is *not*
removed here: an arXiv title is plain text that may well contain ``<``; the templates
escape it.

Dates are read strictly: an impossible date such as 2025-02-30 is treated as missing
(feedparser would silently turn it into 2025-03-02), and every date is converted to
UTC before its year is taken.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Iterable


if TYPE_CHECKING:
    from generator.core.taxonomy import Taxonomy

TITLE_CAP = 2_000
ABSTRACT_CAP = 20_000
FIELD_CAP = 2_000          # comment, journal reference
NAME_CAP = 300             # one author name or affiliation
MAX_AUTHORS = 10_000       # above the largest real lists (5,154 names); pages bound the display
MAX_TERMS = 50

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_ISO = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|z|[+-]\d{2}:?\d{2})?"
)


def clean_text(value: str | None, cap: int = FIELD_CAP) -> str:
    """Control characters and bidi overrides removed, whitespace collapsed, at most ``cap`` characters."""
    if not value:
        return ""
    text = " ".join(_CONTROL.sub(" ", value).split())
    if len(text) > cap:
        text = text[: cap - 1].rstrip() + "…"
    return text


def optional_text(value: str | None, cap: int = FIELD_CAP) -> str | None:
    text = clean_text(value, cap)
    return text or None


def utc_iso(value: str | None) -> str | None:
    """``YYYY-MM-DDTHH:MM:SSZ`` in UTC from an ISO 8601 or RFC 822 date; None if missing or impossible."""
    if not value or not value.strip():
        return None
    dt = _parse_iso(value.strip()) or _parse_rfc822(value.strip())
    if dt is None:
        return None
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def year_of(iso: str | None) -> int | None:
    return int(iso[:4]) if iso else None


def _parse_iso(value: str) -> datetime | None:
    m = _ISO.fullmatch(value)
    if not m:
        return None
    y, mo, d, h, mi, s, tz = m.groups()
    try:
        dt = datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0))
    except ValueError:
        return None   # 2025-02-30, 25:61: impossible, so missing; never shifted
    if tz in (None, "Z", "z"):
        return dt.replace(tzinfo=timezone.utc)
    sign = 1 if tz[0] == "+" else -1
    digits = tz[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    if hours > 14 or minutes > 59:
        return None
    return dt.replace(tzinfo=timezone(sign * timedelta(hours=hours, minutes=minutes)))


def _parse_rfc822(value: str) -> datetime | None:
    import email.utils   # (only fetching reads feed dates: a build's processes never hold the email package, 1 MB)

    try:
        dt = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if dt is None:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def split_terms(terms: Iterable[str], tax: Taxonomy) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Category terms -> (canonical arXiv codes in order, other terms such as MSC/ACM codes), capped."""
    subjects: dict[str, None] = {}
    others: dict[str, None] = {}
    for term in terms:
        if not term:
            continue
        code = tax.canonical(term)
        if code:
            subjects.setdefault(code)
        elif len(others) < MAX_TERMS:
            others.setdefault(term)
    return tuple(subjects)[:MAX_TERMS], tuple(others)
