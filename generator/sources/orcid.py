"""The ORCID source: the public API v3.0 works summary of one iD -> ``Record``s.

One request (``<base>/v3.0/<id>/works`` with ``Accept: application/json``; ORCID does not
page this list: every work is in the one answer). The answer is believed only if it is
JSON of the documented shape and its ``path`` names the iD asked for (a cache or proxy
answering for another person is refused, and retried). A list with no works where records
are cached is suspicious (a record made private for a moment, a glitch) and retried; the
cache is never shrunk anyway.

A ``group`` is one work as ORCID sees it (the same work from Scopus, Crossref and the owner
are grouped); the first summary is ORCID's preferred one. Its ids come from the group's
``external-ids``: a DOI only when its relationship is ``self`` (``part-of`` is the journal or
book); an arXiv id also when it is ``version-of`` (the preprint of this paper), so that the
work merges with the arXiv source's record. The summary has no author list: ORCID keeps
contributors only in the full work, one request per work, which is not worth it here.

Each record keeps ``("orcid", "<iD>/<put-code>")``. ORCID has no public page for one work: the
only per-work address is the API's (``pub.orcid.org/v3.0/<iD>/work/<put-code>``, the summary's
``path``), data for machines, not a page for readers. So the record links the person's ORCID
record, ``https://orcid.org/<iD>`` (``ids.orcid_url``), where the work is listed; the put-code
is kept to tell two works of one record apart and for a per-work page should ORCID add one.
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from generator.core import ids
from generator.core.model import Record, record_key
from generator.sources.http import Extra, HttpClient, PermanentError, Response, TransientError
from generator.sources.text import FIELD_CAP, TITLE_CAP, clean_text, utc_iso
from generator.sources.works import doi_from_link, endpoint, parse_json, split_doi

if TYPE_CHECKING:
    from generator.config import FetchPolicy
    from generator.sources.registry import FetchContext

log = logging.getLogger(__name__)

ENV_ENDPOINT = "ORCID_API_URL"
DEFAULT_ENDPOINT = "https://pub.orcid.org"
LABEL = "ORCID"
REQUEST = Extra(headers=(("Accept", "application/json"),))


def check(source: Any, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:  # noqa: ANN401
    """The kind's check before the first request (config.kinds.orcid): the address is an http(s) URL."""
    endpoint(environ, ENV_ENDPOINT, DEFAULT_ENDPOINT)


def fetch(source: Any, context: FetchContext, cached: Sequence[Record]) -> tuple[Record, ...]:  # noqa: ANN401
    """The kind's fetch (config.kinds.orcid): the iD's works."""
    return fetch_works(context.client, endpoint(context.environ, ENV_ENDPOINT, DEFAULT_ENDPOINT), source.id, cached)


def works_url(base: str, orcid_id: str) -> str:
    return f"{base}/v3.0/{orcid_id}/works"


def fetch_works(client: HttpClient, base: str, orcid_id: str, cached: Sequence[Record] = ()) -> tuple[Record, ...]:
    """Every public work of the iD."""
    url = works_url(base, orcid_id)
    records, warnings = client.get(url, functools.partial(accept_works, orcid_id=orcid_id, cached=len(cached)),
                                   request=REQUEST)
    for w in warnings:
        log.warning("%s: %s", url, w)
    return records


def accept_works(response: Response, *, orcid_id: str, cached: int = 0) -> tuple[tuple[Record, ...], list[str]]:
    """One answer -> (records, warnings); refused when it is not the iD's works list."""
    if response.status != 200:
        hint = " (no such ORCID iD, or ORCID_API_URL is wrong)" if response.status == 404 else ""
        raise PermanentError(f"HTTP {response.status}{hint}")
    records, warnings = parse_works(response.body, orcid_id)
    if not records and cached:
        raise TransientError(f"ORCID lists no works but {cached} records are cached for this iD")
    return records, warnings


def parse_works(body: bytes, orcid_id: str) -> tuple[tuple[Record, ...], list[str]]:
    """Accept or refuse a works summary, then normalise its groups. Pure: bytes in, records out."""
    doc = parse_json(body)
    if not isinstance(doc, dict) or not isinstance(doc.get("group"), list):
        raise TransientError("not an ORCID works summary: no 'group' list")
    path = doc.get("path")
    if path != f"/{orcid_id}/works":
        raise TransientError(f"the answer is the works list of {str(path)[:60]!r}, not of /{orcid_id}/works "
                             f"(another person's record); refused")
    records: dict[str, Record] = {}
    warnings: list[str] = []
    for i, group in enumerate(doc["group"]):
        rec = normalize_group(group, order=i, orcid_id=orcid_id)
        if rec is None:
            warnings.append(f"skipped work {i + 1}: no summary with a title")
            continue
        records.setdefault(rec.key, rec)
    return tuple(records.values()), warnings


def normalize_group(group: Any, order: int = 0, orcid_id: str = "") -> Record | None:  # noqa: ANN401
    """One ``group`` -> a ``Record`` (None when it has no usable summary). Its ORCID source id is
    ``<iD>/<put-code>``: a put-code alone names no person, so it could make no link (``ids.orcid_url``)."""
    summaries = _get(group, "work-summary")
    summary = summaries[0] if isinstance(summaries, list) and summaries and isinstance(summaries[0], dict) else None
    if summary is None:
        return None
    title = clean_text(_str(_get(summary, "title", "title", "value")), TITLE_CAP)
    if not title:
        return None
    doi, arxiv_id = _ids(_get(group, "external-ids", "external-id"), _get(summary, "external-ids", "external-id"))
    year, published = _date(_get(summary, "publication-date"))
    put_code = _get(summary, "put-code")
    link = ids.safe_url(_str(_get(summary, "url", "value")))
    return Record(
        key=record_key(arxiv_id, doi, title, year), title=title, year=year, source=LABEL, arxiv_id=arxiv_id,
        published=published, doi=doi, url=link if not (arxiv_id or doi) else None, order=order,
        venue=clean_text(_str(_get(summary, "journal-title", "value")), FIELD_CAP) or None,
        source_ids=_source_ids(orcid_id, put_code), origins=(LABEL,),
    )


def _source_ids(orcid_id: str, put_code: Any) -> tuple[tuple[str, str], ...]:  # noqa: ANN401
    """("orcid", "<iD>/<put-code>"); a put-code that is not a whole number (or true/false) is dropped."""
    if not isinstance(put_code, int) or isinstance(put_code, bool) or put_code < 0:
        return ()
    return (("orcid", f"{orcid_id}/{put_code}" if orcid_id else str(put_code)),)


def _ids(*lists: Any) -> tuple[str | None, str | None]:  # noqa: ANN401
    """(DOI, arXiv id) from external-id lists; a DOI only of the work itself."""
    doi = arxiv = None
    for items in lists:
        for item in items if isinstance(items, list) else ():
            kind = _str(_get(item, "external-id-type")).lower()
            value = _str(_get(item, "external-id-value")).strip()
            relation = _str(_get(item, "external-id-relationship")).lower()
            if kind == "arxiv" and relation in ("self", "version-of") and arxiv is None:
                parsed = ids.parse_arxiv_id(value)
                arxiv = parsed[0] if parsed else None
            elif kind == "doi" and relation == "self" and doi is None:
                found = ids.normalize_doi(value) or doi_from_link(value)
                doi, from_doi = split_doi(found)
                arxiv = arxiv or from_doi
    return doi, arxiv


def _date(value: Any) -> tuple[int | None, str | None]:  # noqa: ANN401
    """(year, ISO date when the day is known) of a publication-date; strings, or null, in ORCID."""
    y, m, d = (_str(_get(value, part, "value")) for part in ("year", "month", "day"))
    if not (y.isdigit() and len(y) == 4):
        return None, None
    published = utc_iso(f"{y}-{m}-{d}") if m.isdigit() and d.isdigit() else None
    return int(y), published


def _get(value: Any, *path: str) -> Any:  # noqa: ANN401
    """``value[path[0]][path[1]]...``, None as soon as a step is missing or not a mapping."""
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _str(value: Any) -> str:  # noqa: ANN401
    return value if isinstance(value, str) else ""
