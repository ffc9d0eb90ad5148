"""The search index in shards: stable assignment, and a merged search in Chromium finds
records of every shard (60 authors -> 2 shards)."""

from __future__ import annotations

import functools
import http.server
import re
import subprocess
import sys
import threading
from pathlib import Path

from browser_util import chromium_browser
from test_jobs import synthetic_site

from generator.search import MAX_SHARDS, SHARD_AUTHORS, plan_shards


def test_shards_are_stable_and_cover_every_author_once() -> None:
    slugs = [f"author-{i}" for i in range(230)]
    shards = plan_shards(slugs, ["about"])
    assert len(shards) == min(MAX_SHARDS, -(-230 // SHARD_AUTHORS))
    assert len(plan_shards(slugs[:60], [])) == 2 and len(plan_shards(slugs * 20, [])) == MAX_SHARDS
    members = [a for s in shards for a in s.authors]
    assert sorted(members) == sorted(slugs)
    assert shards[0].pages == ("about",) and all(not s.pages for s in shards[1:])
    # adding an author moves no one else (same shard count)
    more = plan_shards([*slugs, "author-new"], ["about"])
    where = {a: s.name for s in shards for a in s.authors}
    assert all(where[a] == s.name for s in more for a in s.authors if a in where)
    assert plan_shards(["solo"], []) == plan_shards(["solo"], [])


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


def test_merged_search_finds_records_of_every_shard(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn")
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "generator", "-q", "-C", str(root), "build", "--base-url", "/",
                    "--output", str(out)], check=True, capture_output=True)
    shards = plan_shards(sorted(p.name for p in (out / "authors").iterdir()), [])
    assert len(shards) == 2 and (out / "pagefind/0").is_dir() and (out / "pagefind/1").is_dir()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(out)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        with chromium_browser() as browser:
            page = browser.new_page()
            for shard in shards:
                # papers by this shard's first author: one result each, linking to the record
                slug = shard.authors[0]
                name = re.search(r"<h1>([^<]+)</h1>", (out / f"authors/{slug}/index.html").read_text()).group(1)
                page.goto(f"http://127.0.0.1:{srv.server_port}/search/?q=" + name.replace(" ", "+"))
                page.wait_for_selector("main .hit-title", timeout=15000)
                hrefs = [e.get_attribute("href") or "" for e in page.query_selector_all("main .hit-title")]
                here = f"http://127.0.0.1:{srv.server_port}/authors/{slug}/#r-"
                assert any(h.startswith(here) for h in hrefs), (shard.name, name, hrefs[:5])
                count = page.inner_text("main .search-count")
                assert int(count.split()[0]) >= 25, count   # each of the author's 25 papers, at least
    finally:
        srv.shutdown()


def test_a_record_document_is_one_paper_as_escaped_text() -> None:
    from generator.model import Author, Person, Record
    from generator.search import record_document

    hostile = '<script>alert(1)</script> & "q"'
    r = Record(key="arxiv:2401.00001", title=f"Plain title with $x^2$ {hostile}", year=2024, arxiv_id="2401.00001",
               authors=(Person(hostile, ()), Person("Ada Lovelace", ())), abstract="An abstract about concertinas.",
               subjects=("cs.LG", "math.CO"))
    a = Author(slug="eve", name=hostile, affiliation="Lab", bio_html="<p>Bio</p>", links=(), records=(r,),
               subjects=(), years=())
    doc = record_document(r, a, "en")
    assert "<script>" not in doc and doc.count("&lt;script&gt;") == 4   # <title>, h1, authors, by
    body = re.search(r"<main data-pagefind-body>(.*)</main>", doc).group(1)
    assert "x²" in body and "Ada Lovelace" in body and "concertinas" not in body   # no abstracts
    assert "Bio" not in doc and "Lab" not in doc   # the author's own text is not the paper's
    meta = dict(re.findall(r'<span data-pagefind-meta="(\w+)">([^<]*)</span>', doc))
    assert meta["url"] == f"authors/eve/#{r.anchor}" and meta["year"] == "2024"
    assert meta["subjects"] == "cs.LG math.CO" and meta["by"].startswith("&lt;script&gt;")
    bare = record_document(Record(key="title:abc", title="T", year=None), a, "en")
    assert 'data-pagefind-meta="year"' not in bare and "<p></p>" not in bare


def test_page_document_is_the_pages_title_and_body() -> None:
    from generator.model import Page
    from generator.search import page_document

    doc = page_document(Page(name="about", title="About <us>", body_html="<p>We study <em>things</em>.</p>"), "en")
    assert '<h1 data-pagefind-meta="title">About &lt;us&gt;</h1><p>We study <em>things</em>.</p>' in doc
    assert "data-pagefind-body" in doc and '<span data-pagefind-meta="url">pages/about/</span>' in doc


def test_a_failed_build_stops_pagefind_and_leaves_no_scratch(tmp_path: Path, monkeypatch: object) -> None:
    """A render process indexing a shard when the build fails elsewhere is stopped with SIGTERM:
    it must kill its Pagefind and remove its scratch folder on the way out."""
    import os
    import time

    import pytest

    from generator import search
    from generator.assemble import assemble
    from generator.store import read_all
    from generator.config import load_site
    from generator.errors import SiteError
    from generator.parallel import run_tasks
    from generator.taxonomy import load_taxonomy
    from generator.tasks import Task

    pid_file = tmp_path / "pagefind.pid"
    fake = tmp_path / "pagefind"
    fake.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 60\n")
    fake.chmod(0o755)
    monkeypatch.setattr(search, "pagefind_binary", lambda: fake)  # type: ignore[attr-defined]
    config = load_site(Path(__file__).resolve().parents[1])
    site = assemble(config, read_all(config), load_taxonomy())

    def boom() -> bytes:
        deadline = time.monotonic() + 10
        while not pid_file.exists() and time.monotonic() < deadline:   # Pagefind is running
            time.sleep(0.05)
        raise SiteError("a template failed")

    staging = tmp_path / "staging"
    staging.mkdir()
    shards = search.plan_shards([a.slug for a in site.authors], [])
    with pytest.raises(SiteError, match="a template failed"):
        run_tasks([Task("x.html", boom, "boom", 100_000), *search.shard_tasks(site, shards)], staging, 2)
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("Pagefind was left running")
    assert not list(staging.glob(".search-docs-*"))


def test_a_shared_record_is_indexed_once_under_its_first_author() -> None:
    import dataclasses

    from generator.model import Author, Record
    from generator.search import indexed_records

    shared, own = Record(key="arxiv:2401.00001", title="Shared", year=2024), Record(key="t:b", title="B's", year=2024)
    a = Author(slug="ada", name="Ada", affiliation=None, bio_html="", links=(), records=(shared,), subjects=(), years=())
    b = dataclasses.replace(a, slug="bob", name="Bob", records=(shared, own))
    site = _site((a, b), {shared.key: ("ada", "bob"), own.key: ("bob",)})
    assert indexed_records(site) == {"ada": (shared,), "bob": (own,)}
    # Ada gone: Bob's document holds the shared record again, so his shard's digest changes
    alone = indexed_records(_site((b,), {shared.key: ("bob",), own.key: ("bob",)}))
    assert alone == {"bob": (shared, own)}


def test_a_shard_job_reads_which_records_each_document_holds() -> None:
    import dataclasses

    from generator import jobs
    from generator.model import Author, Record
    from generator.search import shard_tasks

    shared, own = Record(key="arxiv:2401.00001", title="Shared", year=2024), Record(key="t:b", title="B's", year=2024)
    a = Author(slug="ada", name="Ada", affiliation=None, bio_html="", links=(), records=(shared,), subjects=(), years=())
    b = dataclasses.replace(a, slug="bob", name="Bob", records=(shared, own))
    both = _site((a, b), {shared.key: ("ada", "bob"), own.key: ("bob",)})
    alone = _site((b,), {shared.key: ("bob",), own.key: ("bob",)})   # Ada gone: Bob's document holds it
    [with_ada] = shard_tasks(both, plan_shards(["ada", "bob"], []))
    [without] = shard_tasks(alone, plan_shards(["bob"], []))
    assert (b, (own,)) in with_ada.reads[2] and (b, (shared, own)) in without.reads[2]
    digest = [jobs.plan_jobs([t], site, b"")[0].digest for t, site in ((with_ada, both), (without, alone))]
    assert digest[0] != digest[1]


def _site(authors: tuple, record_authors: dict):  # noqa: ANN202 - a minimal SiteModel
    from generator.model import SiteModel

    return SiteModel(title="t", description="", base_url="/", language="en", authors=authors, subjects=(), pages=(),
                     record_authors=record_authors, paginate=50, cname=None)
