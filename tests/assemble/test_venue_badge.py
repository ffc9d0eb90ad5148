"""A record's badge (issue 45, point 2): the venue's short name and year for a published record,
"arXiv" for a preprint; the short name from site.yaml's venue_names, DBLP's venue key, the venue's
acronym, else its first words; and site.yaml's table checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.assemble.venue_badge import badge, short_venue
from generator.config import load_site
from generator.config.records import MANUAL
from generator.core.errors import SiteError
from generator.core.model import Record
from helpers import make_project


def _record(**kw: object) -> Record:
    return Record(key="k", title="T", year=kw.pop("year", 2025), **kw)  # type: ignore[arg-type]


def test_published_records_show_their_venues_short_name_and_year() -> None:
    pvldb = _record(venue="Proc. VLDB Endow.", source_ids=(("dblp", "journals/pvldb/DoeS25"),), arxiv_id="2401.99999")
    assert badge({}, pvldb) == "PVLDB 2025"
    sigmod = _record(venue="SIGMOD Conference 2024", year=2024, source_ids=(("dblp", "conf/sigmod/DoeLS24"),))
    assert badge({}, sigmod) == "SIGMOD 2024"
    # no DBLP key: the venue as written, else its acronym, else its first words
    assert badge({}, _record(venue="Proc. VLDB Endow.")) == "PVLDB 2025"
    assert badge({}, _record(venue="Advances in NeurIPS 37")) == "NeurIPS 2025"
    assert badge({}, _record(venue="Example Workshop on Data Systems 2025 (fictional)")) == "Example Workshop… 2025"
    assert badge({}, _record(venue="Nature")) == "Nature 2025"
    assert badge({}, _record(venue="Nature", year=None)) == "Nature"


def test_the_sites_table_extends_and_overrides_the_themes() -> None:
    r = _record(venue="Proc. VLDB Endow.", source_ids=(("dblp", "journals/pvldb/X25"),))
    assert short_venue(r, {"pvldb": "VLDB"}) == "VLDB"                  # by DBLP's key
    assert short_venue(_record(venue="Example Workshop"), {"Example Workshop": "EWDS"}) == "EWDS"   # by the venue


def test_preprints_and_records_without_venue() -> None:
    assert badge({}, _record(arxiv_id="2401.00001")) == "arXiv"
    corr = _record(arxiv_id="2312.99999", source="DBLP", source_ids=(("dblp", "journals/corr/abs-2312-99999"),))
    assert badge({}, corr) == "arXiv"                                   # CoRR is arXiv, not a venue
    assert badge({}, _record(source=MANUAL)) == ""                      # how it got in, not what it is
    assert badge({}, _record(source="Poster")) == "Poster"              # the label its author gave


def test_site_yaml_venue_names_are_checked(tmp_path: Path) -> None:
    root = make_project(tmp_path, {})
    site = root / "site.yaml"
    site.write_text(site.read_text("utf-8") + "venue_names:\n  pvldb: VLDB\n", "utf-8")
    assert load_site(root).venue_names == {"pvldb": "VLDB"}
    site.write_text(site.read_text("utf-8") + "  sigmod: [a, b]\n", "utf-8")
    with pytest.raises(SiteError) as info:
        load_site(root)
    assert "'venue_names'" in str(info.value.problems[0]) and "site.yaml:" in str(info.value.problems[0])
