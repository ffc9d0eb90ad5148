"""Issue 31, point 4 (acceptance 4), over consecutive builds of a site in tmp: a typed-in record
merged later with its arXiv record keeps its feed entry id; a merge that adds a published version
adds exactly one "published" entry to the author's and the site's feeds, and the record says
"Published in VENUE (YEAR)"; the memory of published ids (content/cache/feed-ids.json) is the
same bytes for the same inputs, and a failed build neither loses it nor records what it did not
publish. The fetched records arrive as cache files, written as ``authorsite fetch`` writes them."""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from generator.store import cache
from generator.assemble import feed_ids
from generator.config import load_site
from generator.core.errors import SiteError
from generator.core.model import Person, Record
from helpers import build

ATOM = "{http://www.w3.org/2005/Atom}"
TITLE = "Learned Sketches for Skewed Streams"
PREPRINT = Record(key="arxiv:2401.00002", title="Query Plans Under Drift", year=2024, arxiv_id="2401.00002",
                  version=1, authors=(Person("Ada Lovelace"),), abstract="A preprint.",
                  published="2024-01-05T10:00:00Z", updated="2024-01-05T10:00:00Z",
                  primary_subject="cs.DB", subjects=("cs.DB",))
ARTICLE = Record(key="doi:10.5555/drift.2025", title="Query Plans Under Drift", year=2025, source="DBLP",
                 authors=(Person("Ada Lovelace"),), doi="10.5555/drift.2025", venue="Proc. VLDB Endow.",
                 source_ids=(("dblp", "journals/pvldb/Lovelace25"),))
TYPED_ARXIV = Record(key="arxiv:2401.00001", title=TITLE, year=2024, arxiv_id="2401.00001", version=2,
                     authors=(Person("Ada Lovelace"),), abstract="The arXiv record of the typed-in paper.",
                     published="2024-01-02T10:00:00Z", updated="2024-02-02T10:00:00Z",
                     primary_subject="cs.DS", subjects=("cs.DS",))


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "content" / "authors").mkdir(parents=True)
    (root / "site.yaml").write_text("title: Lab\nbase_url: https://example.org/\n", "utf-8")
    (root / "content" / "authors" / "ada.yaml").write_text(textwrap.dedent(f"""\
        name: Ada Lovelace
        sources:
          - arxiv: {{query: 'au:"Ada Lovelace"'}}
          - dblp: {{pid: 12/3456}}
          - records:
              - title: '{TITLE}'
                year: 2024
                authors: [Ada Lovelace]
                subjects: [cs.DS]
        """), "utf-8")
    return root


def fetched(root: Path, index: int, *records: Record) -> None:
    """The cache file of the author's source ``index``, as a fetch writes it."""
    config = load_site(root)
    source = config.authors[0].sources[index]
    path = cache.cache_file(config.cache_path, "ada", source)
    assert path is not None
    cache.write_entry(path, cache.CacheEntry(cache.source_description(source), "2026-12-01T00:00:00Z", records))


def entries(out: Path, feed: str) -> dict[str, str]:
    """Each entry of a feed: its id -> its title."""
    root = ET.parse(out / feed).getroot()
    return {e.findtext(f"{ATOM}id") or "": e.findtext(f"{ATOM}title") or "" for e in root.iter(f"{ATOM}entry")}


FEEDS = ("authors/ada/feed.xml", "feed.xml")


def test_a_typed_in_record_merged_later_keeps_its_entry_id(site: Path) -> None:
    out = build(site)
    first = {feed: entries(out, feed) for feed in (*FEEDS, "subjects/cs.DS/feed.xml")}
    [typed_id] = [i for i, t in first["feed.xml"].items() if t == TITLE]
    assert typed_id.startswith("tag:authorsite,2024:title/")
    memory = (site / feed_ids.MEMORY).read_bytes()

    fetched(site, 0, TYPED_ARXIV)     # the arXiv record of the same paper arrives: the two merge
    out = build(site)
    page = (out / "authors/ada/index.html").read_text("utf-8")
    assert page.count(f">{TITLE}</a>") == 1 and 'id="r-2401-00001"' in page     # one record, keyed by arXiv
    for feed in (*FEEDS, "subjects/cs.DS/feed.xml"):
        now = entries(out, feed)
        assert [i for i, t in now.items() if t == TITLE] == [typed_id], feed     # the id it was published with
        assert "https://arxiv.org/abs/2401.00001" not in now
    assert (site / feed_ids.MEMORY).read_bytes() != memory
    kept = (site / feed_ids.MEMORY).read_bytes()
    again = build(site, reuse=False)  # every job again, from the same inputs: the same bytes
    assert all(entries(again, feed) == entries(out, feed) for feed in FEEDS)
    assert (site / feed_ids.MEMORY).read_bytes() == kept


def test_a_published_version_is_announced_once_in_each_feed(site: Path) -> None:
    fetched(site, 0, PREPRINT)
    out = build(site)
    assert not [t for t in entries(out, "feed.xml").values() if t.startswith("Published in")]
    assert "Published in" not in (out / "authors/ada/index.html").read_text("utf-8")

    fetched(site, 1, ARTICLE)       # DBLP gives the published version: the merge adds its venue
    for run in range(3):            # announced once, and still once on the builds after
        out = build(site, reuse=run != 2)
        for feed in FEEDS:
            news = {i: t for i, t in entries(out, feed).items() if t.startswith("Published in")}
            assert news == {"https://arxiv.org/abs/2401.00002#published":
                            "Published in Proc. VLDB Endow. (2025): Query Plans Under Drift"}, (run, feed)
            assert "https://arxiv.org/abs/2401.00002" in entries(out, feed)     # the record's own entry stays
        # the page's entry says it in its badge, the venue's short name and year (issue 45)
        assert '<span class="badge">PVLDB 2025</span>' in (out / "authors/ada/index.html").read_text("utf-8")
        feed = ET.parse(out / "feed.xml").getroot()     # dated from the record, not before its published year
        [news] = [e for e in feed.iter(f"{ATOM}entry") if e.findtext(f"{ATOM}id", "").endswith("#published")]
        assert news.findtext(f"{ATOM}updated") == feed.findtext(f"{ATOM}updated") == "2025-01-01T00:00:00Z"
    memory = feed_ids.read(site)
    assert [(a.id, a.key) for a in memory.announced] == [("https://arxiv.org/abs/2401.00002#published",
                                                          "arxiv:2401.00002")]


def test_a_failed_build_keeps_the_memory_as_it_was(site: Path) -> None:
    fetched(site, 0, PREPRINT)
    build(site)
    before = (site / feed_ids.MEMORY).read_bytes()
    fetched(site, 1, ARTICLE)
    good = (site / "site.yaml").read_text("utf-8")
    (site / "site.yaml").write_text(good + "feed_size: -1\n", "utf-8")     # refused: the build stops
    with pytest.raises(SiteError):
        build(site)
    assert (site / feed_ids.MEMORY).read_bytes() == before
    (site / "site.yaml").write_text(good, "utf-8")
    out = build(site)
    assert [t for t in entries(out, "feed.xml").values() if t.startswith("Published in")] == [
        "Published in Proc. VLDB Endow. (2025): Query Plans Under Drift"]


def test_a_rebuild_after_the_memory_changed_equals_a_clean_build(site: Path) -> None:
    build(site)
    fetched(site, 0, TYPED_ARXIV)
    out = build(site)
    assert "https://arxiv.org/abs/2401.00001" not in entries(out, "authors/ada/feed.xml")   # the typed-in id kept
    (site / feed_ids.MEMORY).unlink()            # the memory lost (say, not committed): no record changed
    rebuilt = {feed: entries(build(site), feed) for feed in FEEDS}
    (site / feed_ids.MEMORY).unlink()
    clean = {feed: entries(build(site, reuse=False), feed) for feed in FEEDS}
    assert rebuilt == clean and all("https://arxiv.org/abs/2401.00001" in clean[feed] for feed in FEEDS)


def test_the_build_after_the_one_that_wrote_the_memory_finds_nothing_changed(site: Path) -> None:
    from generator.build import build as run_build

    fetched(site, 0, PREPRINT)
    assert not (site / feed_ids.MEMORY).exists()
    assert run_build(site).rendered > 0 and (site / feed_ids.MEMORY).is_file()     # written by this build
    assert run_build(site).unchanged      # "nothing changed since the last build": the memory it wrote counted


def test_a_damaged_memory_is_named_with_what_to_do(site: Path) -> None:
    build(site)
    (site / feed_ids.MEMORY).write_text('{"format": 1, "seq": "x"}', "utf-8")
    with pytest.raises(SiteError) as info:
        build(site)
    text = str(info.value)
    assert "content/cache/feed-ids.json" in text and "git checkout" in text
