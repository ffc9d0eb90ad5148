"""The ``dblp:`` source kind: a DBLP person record, cached as ``dblp-<sha1(pid)>.json`` (a pid
holds a slash, ``12/3456``, so the file is named by its digest).

The request, acceptance and parsing are ``sources.dblp``'s (named by ``fetcher``).
"""

from __future__ import annotations

import re

from generator.config.kind import SourceKind, source_class
from generator.config.schema import Key, Table

DBLP_PID_PATTERN = r"[0-9a-z]{1,8}/[0-9A-Za-z_-]{1,64}"
DBLP_GIVEN_PATTERN = rf"(?:https?://dblp\.org/pid/)?{DBLP_PID_PATTERN}(?:\.xml|\.html)?"   # what the file may say


def check_dblp_pid(text: str) -> str | None:
    """A DBLP person id such as ``12/3456`` or ``95/7448-1`` (also taken from a dblp.org/pid/ URL)."""
    pid = re.sub(r"^https?://dblp\.org/pid/", "", text.strip()).removesuffix(".xml").removesuffix(".html")
    return pid if re.fullmatch(DBLP_PID_PATTERN, pid) else None


DBLP = Table("dblp", (
    Key("pid", "text", "the author's DBLP person id, as in https://dblp.org/pid/12/3456", required=True,
        check=check_dblp_pid, expect="a DBLP person id such as 12/3456", pattern=DBLP_GIVEN_PATTERN),
), help="A DBLP person record (dblp.org/pid/PID.xml; DBLP_URL overrides its address). A lone text is the pid.",
   shorthand="pid")

DblpSource = source_class("DblpSource", DBLP, __name__)


class DblpKind(SourceKind):
    schema = DBLP
    config_type = DblpSource
    name = "DBLP"
    heading = "a DBLP person record"
    example = "12/3456"
    fetcher = "generator.sources.dblp:fetch"
    checker = "generator.sources.dblp:check"

    def review_text(self, source: DblpSource) -> str:
        return f"DBLP person {source.pid}"


KIND = DblpKind()
