"""A record's badge (issue 45): the short name and year of its venue for a published record
("PVLDB 2025", "SIGMOD 2024"), "arXiv" for a preprint, as al-folio's badge names the venue.

The short name comes, in order, from the site's table (site.yaml ``venue_names``, keyed by DBLP's
venue key such as ``pvldb`` or by the venue as written), from DBLP's venue key in this module's
table, from the venue's own acronym ("SIGMOD Conference 2024" -> SIGMOD), else from the venue cut
to its first words. Pure functions of the record and the table: the table is a site value, so every
page's digest holds it (generator.render.reads).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Mapping

from generator.config.records import MANUAL
from generator.core.model import Record

# DBLP's venue keys (conf/KEY/..., journals/KEY/...) of common computer-science venues, and the
# venues as DBLP and Crossref write some of them, with the short names their communities use.
SHORT_NAMES: Mapping[str, str] = {
    "pvldb": "PVLDB", "vldb": "VLDB", "vldbj": "VLDB J.", "sigmod": "SIGMOD", "pacmmod": "SIGMOD",
    "pods": "PODS", "icde": "ICDE", "edbt": "EDBT", "icdt": "ICDT", "cidr": "CIDR", "tods": "TODS",
    "tkde": "TKDE", "kdd": "KDD", "cikm": "CIKM", "wsdm": "WSDM", "www": "WWW", "sigir": "SIGIR",
    "nips": "NeurIPS", "neurips": "NeurIPS", "icml": "ICML", "iclr": "ICLR", "aaai": "AAAI",
    "ijcai": "IJCAI", "jmlr": "JMLR", "tmlr": "TMLR", "acl": "ACL", "emnlp": "EMNLP", "naacl": "NAACL",
    "coling": "COLING", "tacl": "TACL", "cvpr": "CVPR", "iccv": "ICCV", "eccv": "ECCV", "pami": "TPAMI",
    "osdi": "OSDI", "sosp": "SOSP", "nsdi": "NSDI", "eurosys": "EuroSys", "asplos": "ASPLOS",
    "isca": "ISCA", "micro": "MICRO", "sc": "SC", "ppopp": "PPoPP", "usenix": "USENIX ATC",
    "sigcomm": "SIGCOMM", "cacm": "CACM", "stoc": "STOC", "focs": "FOCS", "soda": "SODA",
    "Proc. VLDB Endow.": "PVLDB", "Proceedings of the VLDB Endowment": "PVLDB", "Proc. ACM Manag. Data": "SIGMOD",
}
_LONGEST = 24                       # characters of a venue cut to a short form
_YEAR = re.compile(r"\s*\(?\b(19|20)\d\d\b\)?")
_PROCEEDINGS = re.compile(r"^(Proceedings|Proc\.) of( the)? ", re.IGNORECASE)
_ASIDE = re.compile(r"\([^()]*\)")                            # "(fictional)", "(Volume 1)"
_LINKS = frozenset({"a", "an", "and", "at", "for", "in", "of", "on", "the", "to", "&"})
_ACRONYM = re.compile(r"\b[A-Z][A-Za-z]*[A-Z][A-Za-z]*\b")   # SIGMOD, NeurIPS, EuroSys, VLDB


def venue_key(r: Record) -> str | None:
    """DBLP's key of the record's venue (``pvldb`` of ``journals/pvldb/DoeS25``); None for none or
    for CoRR, which is arXiv."""
    for scheme, key in r.source_ids:
        parts = key.split("/")
        if scheme == "dblp" and len(parts) == 3 and parts[0] in ("conf", "journals") and parts[1] != "corr":
            return parts[1]
    return None


@lru_cache(maxsize=1 << 12)   # a site has a few hundred venues; every list shows each record's
def _cut(venue: str) -> str:
    """A venue's short form: its acronym when it has one (one word of capitals such as SIGMOD,
    NeurIPS), else its first words up to ``_LONGEST`` characters, without its year, what it says
    in brackets or a dangling "on" or "of"."""
    text = _PROCEEDINGS.sub("", " ".join(_ASIDE.sub("", _YEAR.sub("", venue)).split())).strip(" ,.;:")
    acronyms = [w for w in _ACRONYM.findall(text) if sum(c.isupper() for c in w) >= 2]
    if acronyms:
        return acronyms[0]
    if len(text) <= _LONGEST:
        return text or venue
    words = text[:_LONGEST + 1].split()[:-1] or [text[:_LONGEST]]
    while len(words) > 1 and words[-1].lower() in _LINKS:   # "Example Workshop on…": the dangling word goes
        words.pop()
    return " ".join(words).rstrip(" ,.;:") + "…"


def short_venue(r: Record, names: Mapping[str, str]) -> str | None:
    """The short name of the record's venue (``names``: the site's table first), or None when it
    has no venue."""
    venue = r.venue or r.journal_ref
    if not venue:
        return None
    key = venue_key(r)
    for table in (names, SHORT_NAMES):
        if key and key in table:
            return table[key]
        if venue in table:
            return table[venue]
    return _cut(venue)


def badge(names: Mapping[str, str], r: Record) -> str:
    """The record's badge: "SHORT YEAR" when published, "arXiv" for an arXiv preprint, else the
    label a typed-in record's author gave (never the default 'Manual', how it got in, not what it
    is) or the source's name; "" for none."""
    short = short_venue(r, names)
    if short:
        year = str(r.year) if r.year else ""
        return f"{short} {year}" if year and year not in short else short
    if r.arxiv_id:
        return "arXiv"
    return "" if r.source == MANUAL else r.source
