"""The ``orcid:`` source kind: one ORCID iD's public works, cached as ``orcid-<iD>.json``.

The request, acceptance and parsing are ``sources.orcid``'s (named by ``fetcher``).
"""

from __future__ import annotations

from generator.core import ids
from generator.config.kind import SourceKind, source_class
from generator.config.schema import Key, Table

ORCID = Table("orcid", (
    Key("id", "text", "the author's ORCID iD; its check digit is verified", required=True, check=ids.check_orcid_id,
        expect="an ORCID iD such as 0000-0002-1825-0097", pattern=ids.ORCID_ID_PATTERN),
), help="The public works of an ORCID record (ORCID's public API v3.0; ORCID_API_URL overrides its address). "
        "A lone text is the iD.", shorthand="id")

OrcidSource = source_class("OrcidSource", ORCID, __name__)


class OrcidKind(SourceKind):
    schema = ORCID
    config_type = OrcidSource
    name = "ORCID"
    heading = "an ORCID record's public works"
    example = "0000-0002-1825-0097"
    fetcher = "generator.sources.orcid:fetch"
    checker = "generator.sources.orcid:check"

    def cache_key(self, source: OrcidSource) -> str:
        return f"orcid-{source.id}"

    def review_text(self, source: OrcidSource) -> str:
        return f"ORCID iD {source.id}"


KIND = OrcidKind()
