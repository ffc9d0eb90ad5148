"""The per-venue index (``venues: true``, generator.assemble.venues): names grouped only when equal after
white space, case and a trailing year; one index page and paged venue pages built from real
cache files; a nav link and sitemap entries when on, nothing when off; hostile names escaped and
given safe addresses; and a changed record re-rendering its venue's pages, not another venue's."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from generator.core import routes
from generator.store.cache import CacheEntry, cache_file, read_entry, source_description, write_entry
from generator.config import load_site
from generator.core.model import Author, Person, Record
from generator.assemble.venues import split_venue, venue_index

from helpers import build
from test_jobs import inodes, remade


@pytest.mark.parametrize("given, expected", [
    ("VLDB 2025", ("VLDB", 2025)),
    ("  VLDB \t 2025 ", ("VLDB", 2025)),
    ("VLDB, 2025", ("VLDB", 2025)),
    ("VLDB (2025)", ("VLDB", 2025)),
    ("SIGMOD Conference 2024", ("SIGMOD Conference", 2024)),
    ("Proc. VLDB Endow.", ("Proc. VLDB Endow.", None)),
    ("ICML 2024 Workshop", ("ICML 2024 Workshop", None)),    # the year is not at the end: kept
    ("2024", ("2024", None)),                                # a year alone stays a name
    ("Lecture Notes 12024", ("Lecture Notes 12024", None)),  # five digits are no year
    ("Volume 2150", ("Volume 2150", None)),                  # nor a year after 2099
    ("ＶＬＤＢ　2025", ("VLDB", 2025)),                         # full-width letters and space (NFKC)
])
def test_a_trailing_year_is_split_off_and_white_space_normalised(given: str, expected: tuple[str, int | None]) -> None:
    assert split_venue(given) == expected


def rec(n: int, venue: str | None, year: int = 2024, **kw: object) -> Record:
    return Record(key=f"doi:10.5555/v{n}", title=f"Paper {n}", year=year, source="DBLP", doi=f"10.5555/v{n}",
                  venue=venue, published=f"{year}-01-{n % 28 + 1:02d}T00:00:00Z", authors=(Person("Ada Doe"),),
                  source_ids=(("dblp", f"conf/x/P{n}"),), origins=("DBLP",), **kw)  # type: ignore[arg-type]


def author(slug: str, *records: Record) -> Author:
    return Author(slug=slug, name=slug.title(), affiliation=None, bio_html="", links=(), records=records,
                  subjects=(), years=())


def test_only_exact_names_group_and_each_record_is_on_its_venue_once() -> None:
    shared = rec(1, "SIGMOD Conference 2024")
    venues = venue_index([
        author("ada", rec(2, "VLDB 2023", 2023), rec(3, "vldb  2024"), rec(4, "VLDB"), shared,
               rec(5, "Proc. VLDB Endow."), rec(6, None), rec(7, "   ")),
        author("bob", shared, rec(8, "PVLDB"), rec(9, "VLDB (2025)", 2025)),
    ])
    by_name = {v.name: v for v in venues}
    assert set(by_name) == {"Proc. VLDB Endow.", "PVLDB", "SIGMOD Conference", "VLDB"}   # no alias merged
    vldb = by_name["VLDB"]
    assert [r.key for r in vldb.records] == ["doi:10.5555/v9", "doi:10.5555/v4", "doi:10.5555/v3", "doi:10.5555/v2"]
    assert (vldb.slug, vldb.years, vldb.authors) == ("vldb", (2025, 2024, 2023), (("ada", 3), ("bob", 1)))
    sigmod = by_name["SIGMOD Conference"]
    assert len(sigmod.records) == 1 and sigmod.authors == (("ada", 1), ("bob", 1))
    assert by_name["Proc. VLDB Endow."].slug == "proc-vldb-endow"
    listed = {r.key for v in venues for r in v.records}
    assert "doi:10.5555/v6" not in listed and "doi:10.5555/v7" not in listed   # no venue: on no venue page


def test_the_shown_name_is_the_most_used_spelling_whatever_the_author_order() -> None:
    a = author("ada", rec(1, "Data Engineering 2020"), rec(2, "DATA ENGINEERING 2021"))
    b = author("bob", rec(3, "Data Engineering 2022"))
    assert [v.name for v in venue_index([a, b])] == ["Data Engineering"]
    assert venue_index([a, b]) == venue_index([b, a])


def test_hostile_and_colliding_names_get_safe_distinct_addresses() -> None:
    venues = venue_index([author("ada", rec(1, "C++"), rec(2, "C"), rec(3, "数据库学报 2024"), rec(4, "Journées BDA"),
                                 rec(5, "../../etc/passwd"), rec(6, "V 1"), rec(7, "x" * 500))])
    slugs = [v.slug for v in venues]
    assert len(set(slugs)) == len(slugs) == 7
    assert all(re.fullmatch(r"[a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?", s) for s in slugs), slugs
    by_name = {v.name: v.slug for v in venues}
    assert by_name["C++"].startswith("v-") and by_name["C"].startswith("v-")   # both would be 'c'
    assert by_name["数据库学报"].startswith("v-") and by_name["V 1"].startswith("v-")
    assert by_name["Journées BDA"] == "journees-bda" and by_name["../../etc/passwd"] == "etc-passwd"
    assert routes.venue("etc-passwd").path == "venues/etc-passwd/index.html"
    assert routes.venue("vldb", 3).url == "venues/vldb/page/3/"


# ----------------------------------------------------------------------------- real builds

AUTHOR = "name: {name}\nsources:\n  - dblp: {{pid: {pid}}}\n"


def venue_site(root: Path, on: bool = True) -> Path:
    """Two authors with cached DBLP records: 12 at VLDB (three pages of 5), one shared SIGMOD paper,
    one hostile venue name, one record with no venue."""
    (root / "content/authors").mkdir(parents=True)
    (root / "site.yaml").write_text(f"title: Venues\nbase_url: https://example.org/lab/\npaginate: 5\n"
                                    f"venues: {'true' if on else 'false'}\n")
    (root / "content/authors/ada.yaml").write_text(AUTHOR.format(name="Ada Doe", pid="12/1"))
    (root / "content/authors/bob.yaml").write_text(AUTHOR.format(name="Bob Roe", pid="12/2"))
    shared = rec(100, "SIGMOD Conference 2024")
    records = {
        "ada": (*(rec(i, f"VLDB {2014 + i}", 2014 + i) for i in range(10)), shared, rec(50, None, 2023)),
        "bob": (rec(20, "vldb 2024"), rec(21, "VLDB (2025)", 2025), shared,
                rec(22, "<script>alert(1)</script> & Co 2024")),
    }
    config = load_site(root)
    for a in config.authors:
        source = a.sources[0]
        path = cache_file(config.cache_path, a.slug, source)
        assert path is not None
        write_entry(path, CacheEntry(source_description(source), "2026-01-01T00:00:00Z", records[a.slug]))
    return root


def page(out: Path, url: str) -> str:
    return (out / routes.file_of_url(url)).read_text(encoding="utf-8")


def test_venue_pages_nav_and_sitemap_when_on(tmp_path: Path) -> None:
    out = build(venue_site(tmp_path / "site"), search=False)
    index = page(out, "venues/")
    names = re.findall(r'<li><a href="/lab/venues/([^"]+)/">([^<]+)</a> <span class="n">(\d+) records?', index)
    assert [(n, c) for _, n, c in names] == [("&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co", "1"),
                                             ("SIGMOD Conference", "1"), ("VLDB", "12")]
    assert "<script>alert" not in index and "<script>alert" not in page(out, "venues/script-alert-1-script-co/")
    first, third = page(out, "venues/vldb/"), page(out, "venues/vldb/page/3/")
    assert "12 records</strong>, 12 editions (2025, 2024, 2023," in first and "page 1 of 3" in first
    assert '<a rel="next" href="/lab/venues/vldb/page/2/">' in first and 'rel="prev"' not in first
    assert '<a rel="prev" href="/lab/venues/vldb/page/2/">' in third and 'rel="next"' not in third
    assert first.count('<li class="record brief">') == 5 and third.count('<li class="record brief">') == 2
    assert 'href="/lab/authors/ada/">Ada Doe</a> <span class="n">10</span>' in first
    sigmod = page(out, "venues/sigmod-conference/")
    assert sigmod.count('<li class="record brief">') == 1 and "Bob Roe</a> <span class=\"n\">1</span>" in sigmod
    every_venue_page = "".join(p.read_text(encoding="utf-8") for p in (out / "venues").rglob("index.html"))
    assert "Paper 50" not in every_venue_page and "Paper 50" in page(out, "authors/ada/")   # no venue: author only
    assert 'href="/lab/venues/" aria-current="page">Venues</a>' in index
    assert '<a href="/lab/venues/">Venues</a>' in page(out, "") and '<a href="/lab/venues/">Venues</a>' in first
    sitemap = (out / "sitemap.xml").read_text(encoding="utf-8")
    for url in ("venues/", "venues/vldb/", "venues/vldb/page/3/", "venues/sigmod-conference/"):
        assert f"<loc>https://example.org/lab/{url}</loc>" in sitemap


def test_no_venue_page_link_or_sitemap_entry_when_off(tmp_path: Path) -> None:
    out = build(venue_site(tmp_path / "site", on=False), search=False)
    assert not (out / "venues").exists()
    assert "venues/" not in page(out, "") and "venues/" not in (out / "sitemap.xml").read_text(encoding="utf-8")


def test_a_changed_record_re_renders_its_venue_not_another(tmp_path: Path) -> None:
    root = venue_site(tmp_path / "site")
    out = build(root, search=False)
    config = load_site(root)
    bob = config.authors[1]
    path = cache_file(config.cache_path, bob.slug, bob.sources[0])
    assert path is not None
    entry = read_entry(path)
    changed = tuple(dataclasses.replace(r, title="A changed title") if r.key == "doi:10.5555/v20" else r
                    for r in entry.records)
    write_entry(path, dataclasses.replace(entry, records=changed))
    before = inodes(out)
    build(root, search=False)
    got = remade(before, out)
    assert {"venues/vldb/index.html", "venues/vldb/page/2/index.html"} <= got
    assert not got & {"venues/index.html", "venues/sigmod-conference/index.html",   # the index shows no titles
                      "venues/script-alert-1-script-co/index.html"}
    assert "A changed title" in page(out, "venues/vldb/")

    # a new record at SIGMOD: its venue's page and the index (a count changed), not VLDB's
    write_entry(path, dataclasses.replace(entry, records=(*changed, rec(23, "SIGMOD Conference 2025", 2025))))
    before = inodes(out)
    build(root, search=False)
    got = remade(before, out)
    assert {"venues/index.html", "venues/sigmod-conference/index.html"} <= got
    assert not got & {"venues/vldb/index.html", "venues/vldb/page/2/index.html"}
    assert "SIGMOD Conference</a> <span class=\"n\">2 records" in page(out, "venues/")

    # turning the index off removes it and re-renders every page (the nav link goes)
    (root / "site.yaml").write_text((root / "site.yaml").read_text().replace("venues: true", "venues: false"))
    before = inodes(out)
    build(root, search=False)
    assert not (out / "venues").exists()
    assert {"index.html", "authors/ada/index.html", "subjects/index.html"} <= remade(before, out)
    assert "venues/" not in page(out, "authors/ada/")
