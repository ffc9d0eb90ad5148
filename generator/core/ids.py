"""Validation of the values that become links or file names.

Feeds and YAML are untrusted: a link is only ever built from a value that passed
one of these checks (an arXiv id, a DOI, an http(s) URL), never copied as given.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

# New style YYMM.NNNN(N) since 2007, old style archive(.SC)/YYMMNNN before; optional vN.
# [0-9], not \d: \d matches any Unicode digit (fullwidth, Arabic-Indic), which makes broken links.
_NEW_ID = re.compile(r"(?P<id>(?P<yy>[0-9]{2})(?P<mm>[0-9]{2})\.(?P<num>[0-9]{4,5}))(?:v(?P<v>[1-9][0-9]{0,3}))?")
_OLD_ID = re.compile(r"(?P<id>[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?/[0-9]{2}(?:0[1-9]|1[0-2])[0-9]{3})"
                     r"(?:v(?P<v>[1-9][0-9]{0,3}))?")
_ABS_PREFIX = re.compile(r"^(?:https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/|arxiv:)", re.I)
_DOI = re.compile(r"10\.[0-9]{4,9}/[^\s\"<>]{1,300}")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", re.I)
_SLUG = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")


def parse_arxiv_id(text: str) -> tuple[str, int | None] | None:
    """``'http://arxiv.org/abs/2401.01234v2'`` -> ``('2401.01234', 2)``; None if not an arXiv id."""
    s = _ABS_PREFIX.sub("", text.strip())
    m = _NEW_ID.fullmatch(s)
    if m:
        # Months 01-12; four digits from 0704 to 1412, five from 1501 (arxiv_identifier.md).
        yymm = int(m.group("yy") + m.group("mm"))
        digits = len(m.group("num"))
        if not 1 <= int(m.group("mm")) <= 12 or yymm < 704 or digits != (4 if yymm <= 1412 else 5):
            return None
    else:
        m = _OLD_ID.fullmatch(s)
        if not m:
            return None
    v = m.group("v")
    return m.group("id"), int(v) if v else None


def normalize_doi(text: str) -> str | None:
    """A bare DOI (``10.1234/abc``) from a DOI or doi.org URL; None if it is not one."""
    s = _DOI_PREFIX.sub("", text.strip())
    return s if _DOI.fullmatch(s) else None


def safe_url(text: str) -> str | None:
    """The URL if it is absolute http(s) with a host and no whitespace or quotes; else None."""
    s = text.strip()
    if not s or any(c.isspace() or c in "\"'<>\\`" or ord(c) < 32 for c in s):
        return None
    try:
        parts = urlsplit(s)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return s


# Windows device names: a repository with authors/con.yaml cannot even be checked out there.
_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))})


def is_slug(text: str) -> bool:
    """A safe single path segment: lower-case letters, digits and inner hyphens, not a device name."""
    return bool(_SLUG.fullmatch(text)) and text not in _RESERVED


def abs_url(arxiv_id: str) -> str:
    return f"https://arxiv.org/abs/{arxiv_id}"


def pdf_url(arxiv_id: str) -> str:
    return f"https://arxiv.org/pdf/{arxiv_id}"


def doi_url(doi: str) -> str:
    return "https://doi.org/" + quote(doi, safe="/:;()._-")


def title_search_url(title: str) -> str:
    return "https://arxiv.org/search/?searchtype=title&query=" + quote(title, safe="")


# Ids of the other sources, each checked before it becomes a link (they come from fetched data).
_DBLP_KEY = re.compile(r"[a-z]+(?:/[A-Za-z0-9][A-Za-z0-9_.'-]{0,120}){1,4}")
_OPENALEX_WORK = re.compile(r"(?:https://openalex\.org/)?(W[0-9]{1,12})")
_ORCID_WORK = re.compile(r"([0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X])[/:]([0-9]{1,12})")


def dblp_url(key: str) -> str | None:
    """A DBLP record's page (``conf/vldb/Doe25`` -> https://dblp.org/rec/conf/vldb/Doe25.html)."""
    return f"https://dblp.org/rec/{quote(key, safe='/')}.html" if _DBLP_KEY.fullmatch(key) else None


def openalex_url(work: str) -> str | None:
    """An OpenAlex work's page (``W2741809807`` -> https://openalex.org/works/W2741809807)."""
    m = _OPENALEX_WORK.fullmatch(work)
    return f"https://openalex.org/works/{m.group(1)}" if m else None


ORCID_ID_PATTERN = r"(?:https?://orcid\.org/)?[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9Xx]"


def check_orcid_id(text: str) -> str | None:
    """The bare iD (``0000-0002-1825-0097``) if its check digit (ISO 7064 MOD 11-2) is right.
    A wrong check digit raises ``ValueError`` saying which character is wrong and what it should be."""
    m = re.fullmatch(ORCID_ID_PATTERN, text.strip())
    if not m:
        return None
    bare = text.strip().rsplit("/", 1)[-1].upper()
    digits = bare.replace("-", "")
    total = 0
    for d in digits[:15]:
        total = (total + int(d)) * 2
    check = (12 - total % 11) % 11
    want = "X" if check == 10 else str(check)
    if digits[15] != want:
        raise ValueError(f"the ORCID iD {bare} fails its checksum (ISO 7064 MOD 11-2): its last character, the "
                         f"check digit, is {digits[15]} but the 15 digits before it give {want}; one of the "
                         f"digits is mistyped: copy the iD from your ORCID record")
    return bare


def orcid_url(work: str) -> str | None:
    """The ORCID record listing a work, from ``<ORCID iD>/<put-code>``; a bare put-code names no
    person, so it makes no link."""
    m = _ORCID_WORK.fullmatch(work)
    return f"https://orcid.org/{m.group(1)}" if m else None


SOURCE_URLS = {"dblp": ("DBLP", dblp_url), "openalex": ("OpenAlex", openalex_url), "orcid": ("ORCID", orcid_url)}


_CORR = "journals/corr/"   # DBLP's keys of arXiv preprints (its journal "CoRR")


def source_links(arxiv_id: str | None, doi: str | None,
                 source_ids: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """(label, URL) of every original source a record can be traced to: arXiv, DOI, then DBLP,
    OpenAlex and ORCID from its source ids (ids that fail their check make no link). Beside DBLP's
    entry of the article, its copy of the arXiv preprint (a ``journals/corr/`` key) is left out when
    the arXiv link is there and named 'DBLP CoRR' when it is not (issue 30: no 'DBLP 2'); two other
    links of one kind are told apart by number."""
    out = [("arXiv", abs_url(arxiv_id))] if arxiv_id else []
    if doi:
        out.append(("DOI", doi_url(doi)))
    article = any(s.lower() == "dblp" and not v.startswith(_CORR) for s, v in source_ids)
    for scheme, value in source_ids:
        label, make = SOURCE_URLS.get(scheme.lower(), ("", None))
        if label == "DBLP" and article and value.startswith(_CORR):
            if arxiv_id:
                continue
            label = "DBLP CoRR"
        url = make(value) if make else None
        if url and all(url != u for _, u in out):
            same = sum(1 for known, _ in out
                       if known == label or (known.startswith(label + " ") and known[len(label) + 1:].isdigit()))
            out.append((f"{label} {same + 1}" if same else label, url))
    return tuple(out)
