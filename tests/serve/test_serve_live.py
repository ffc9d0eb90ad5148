"""The preview's in-memory site (generator.serve.live): an edit re-reads only the changed files,
re-renders only the jobs it touches, and leaves the preview folder byte-identical to a clean
build; a broken edit changes nothing and is retried with the next one; and, in Chromium,
the open page shows an author edit soon after the file is written (generator.serve.server)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest
from browser_util import borrowed, serve_site
from test_jobs import synthetic_site, tree

from generator.core import routes
from generator.build import build
from generator.store.cache import cache_file, read_entry, write_entry
from generator.config import AuthorConfig, load_site
from generator.core.errors import SiteError
from generator.serve.live import LiveSite
from generator.core.routes import home as home_page

URL = "http://127.0.0.1:8765/"


def _clean(root: Path, tmp: Path, search: bool) -> dict[str, bytes]:
    out = tmp / f"clean-{time.monotonic_ns()}"
    build(root, base_url=URL, out_dir=out, search=search, workers=1)
    return tree(out)


def _same_as_clean(live: LiveSite, tmp: Path, search: bool = False) -> None:
    live.index_pending()
    assert live.pending == {}
    got, want = tree(live.out_dir), _clean(live.root, tmp, search)
    assert sorted(got) == sorted(want), set(got) ^ set(want)
    assert [k for k in want if got[k] != want[k]] == []


def _live(site: Path, tmp: Path, search: bool = False) -> LiveSite:
    (tmp / "preview").mkdir()
    return LiveSite(site, URL, tmp / "preview" / "site", search=search)


def _edit_first_record(site: Path, index: int, **changes: object) -> tuple[AuthorConfig, Path]:
    """Change the first record of author ``index``'s first cache file; return the author and the file."""
    config = load_site(site)
    a = config.authors[index]
    path = cache_file(config.cache_path, a.slug, a.sources[0])
    assert path is not None
    entry = read_entry(path)
    write_entry(path, dataclasses.replace(entry, records=(
        dataclasses.replace(entry.records[0], **changes), *entry.records[1:])))  # type: ignore[arg-type]
    return a, path


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    return synthetic_site(tmp_path / "syn", authors=12, records=8)


def test_an_author_edit_renders_only_its_jobs_and_equals_a_clean_build(site: Path, tmp_path: Path) -> None:
    live = _live(site, tmp_path)
    first = live.update(None)
    assert first.rendered > 50 and first.whole
    _same_as_clean(live, tmp_path)
    old_site = live.site

    author = site / "content/authors/a003.yaml"
    author.write_text(author.read_text() + "affiliation: Reload Test University\n")
    ready: list[float] = []
    res = live.update(["content/authors/a003.yaml"], lambda _paths: ready.append(time.perf_counter()))
    assert len(ready) == 1 and not res.whole
    # the author's page and the home page listing affiliations (the exports name no affiliation of the profile)
    assert res.rendered == 2, res
    assert "Reload Test University" in (live.out_dir / "authors/a003/index.html").read_text()
    assert old_site is not None and live.site is not None
    assert live.site.subjects is old_site.subjects, "no record changed: the subject index is kept"
    assert live.site.authors[0] is old_site.authors[0], "unchanged authors are kept as they were"
    _same_as_clean(live, tmp_path)

    assert live.update([]).rendered == 0, "nothing changed, nothing rendered"


def test_a_cache_edit_rereads_that_file_only_and_equals_a_clean_build(site: Path, tmp_path: Path) -> None:
    live = _live(site, tmp_path)
    live.update(None)
    a, path = _edit_first_record(site, 5, title="A title changed in the cache")
    other = load_site(site).authors[6]
    before = live.memory.store
    assert before is not None
    res = live.update([path.relative_to(site).as_posix()])
    assert live.memory.store is not None
    assert live.memory.store.entry(other.slug, other.sources[0]) is before.entry(other.slug, other.sources[0]), \
        "an unchanged cache file is not read again"
    assert 5 <= res.rendered < res.reused
    assert "A title changed in the cache" in (live.out_dir / f"authors/{a.slug}/index.html").read_text()
    _same_as_clean(live, tmp_path)

    # a new author file and a removed one
    (site / "content/authors/a010.yaml").unlink()
    (site / "content/authors/zz-new.yaml").write_text(
        "name: New Person\nsources:\n  - records:\n      - {title: Typed in, year: 2024, subjects: [cs.CL]}\n")
    live.update(["content/authors/a010.yaml", "content/authors/zz-new.yaml"])
    assert not (live.out_dir / "authors/a010").exists()
    _same_as_clean(live, tmp_path)


def test_turning_citations_on_in_site_yaml_shows_them_as_a_clean_build_does(site: Path, tmp_path: Path) -> None:
    a, _ = _edit_first_record(site, 2, citations=41, citations_date="2026-11-30")
    live = _live(site, tmp_path)
    live.update(None)
    page = live.out_dir / f"authors/{a.slug}/index.html"
    assert "41" not in page.read_text()
    (site / "site.yaml").write_text((site / "site.yaml").read_text() + "citations: openalex\n")
    live.update(["site.yaml"])
    assert "41" in page.read_text(), "the authors assembled without citations were kept"
    _same_as_clean(live, tmp_path)


def test_later_writes_the_edited_authors_files_first_then_catches_up(site: Path, tmp_path: Path) -> None:
    """serve's order: the edited author's own files are planned, written and announced first;
    the rest of the pages (the home page lists affiliations) come with ``catch_up``."""
    live = _live(site, tmp_path)
    live.update(None)
    author = site / "content/authors/a003.yaml"
    author.write_text(author.read_text() + "affiliation: Reload Test University\n")
    ready: list[object] = []
    first = live.update(["content/authors/a003.yaml"], ready.append, later=True)
    own = {routes.author("a003").path}
    assert ready == [own] and first.rendered == 1 and first.reused == 3, (ready, first)   # the feed and exports are the same
    assert "Reload Test University" in (live.out_dir / routes.author("a003").path).read_text()
    assert "Reload Test University" not in (live.out_dir / home_page().path).read_text()
    rest = live.catch_up(ready.append)
    assert rest is not None and rest.rendered == 1 and ready[1:] == [{home_page().path}], (ready, rest)
    assert live.catch_up(ready.append) is None, "nothing left"
    _same_as_clean(live, tmp_path)

    # a record changed in the cache: the author's files first, then every subject page and feed listing it
    a, path = _edit_first_record(site, 5, title="A title changed in the cache")
    ready.clear()
    live.update([path.relative_to(site).as_posix()], ready.append, later=True)
    assert len(ready) == 1 and routes.author(a.slug).path in ready[0]   # type: ignore[operator]
    assert live.catch_up(ready.append) is not None and len(ready) == 2
    assert any(p.startswith("subjects/") for p in ready[1]), ready   # type: ignore[union-attr]
    _same_as_clean(live, tmp_path)

    # a new author: every page is planned at once (no file of the site is left for catch_up)
    (site / "content/authors/zz-new.yaml").write_text(
        "name: New Person\nsources:\n  - records:\n      - {title: Typed in, year: 2024, subjects: [cs.CL]}\n")
    live.update(["content/authors/zz-new.yaml"], later=True)
    assert live.catch_up() is None
    _same_as_clean(live, tmp_path)


def test_a_broken_edit_changes_nothing_and_the_fix_is_picked_up(site: Path, tmp_path: Path) -> None:
    live = _live(site, tmp_path)
    live.update(None)
    before = tree(live.out_dir)
    config = load_site(site)
    path = cache_file(config.cache_path, config.authors[2].slug, config.authors[2].sources[0])
    assert path is not None
    entry = read_entry(path)
    write_entry(path, dataclasses.replace(entry, records=entry.records[1:]))   # a record gone from the cache ...
    author = site / "content/authors/a002.yaml"
    good = author.read_text()
    author.write_text("name: [unclosed\n")                                     # ... and a broken author file
    with pytest.raises(SiteError) as err:
        live.update([path.relative_to(site).as_posix(), "content/authors/a002.yaml"])
    assert "content/authors/a002.yaml" in str(err.value)
    assert tree(live.out_dir) == before, "a failed update leaves the preview as it was"

    author.write_text(good)
    live.update(["content/authors/a002.yaml"])   # the cache file changed before is still pending
    _same_as_clean(live, tmp_path)


def test_an_author_edit_naming_a_group_site_yaml_lacks_is_refused_as_the_build_refuses_it(
        site: Path, tmp_path: Path) -> None:
    """serve reads an edited author file as ``build`` does: with site.yaml's groups, so a
    'group' that is not one of them is the same error, and the right one is taken."""
    (site / "site.yaml").write_text((site / "site.yaml").read_text() + "groups: [Current members, Alumni]\n")
    live = _live(site, tmp_path)
    live.update(None)
    author = site / "content/authors/a004.yaml"
    good = author.read_text()
    author.write_text(good + "group: Visitors\n")
    with pytest.raises(SiteError) as err:
        live.update(["content/authors/a004.yaml"])
    assert "content/authors/a004.yaml" in str(err.value) and "'group' must be one of site.yaml's groups" in str(err.value)
    author.write_text(good + "group: Alumni\n")
    live.update(["content/authors/a004.yaml"])
    assert "Alumni" in (live.out_dir / "index.html").read_text()
    _same_as_clean(live, tmp_path)


def test_a_template_edit_goes_the_whole_way_and_search_follows(site: Path, tmp_path: Path) -> None:
    live = _live(site, tmp_path, search=True)
    live.update(None)
    (site / "templates").mkdir()
    base = (Path(__file__).resolve().parent.parent.parent / "themes/default/templates/404.html").read_text()
    (site / "templates/404.html").write_text(base.replace("</h1>", "</h1><p>custom 404</p>", 1))
    res = live.update(["templates/404.html"])
    assert res.whole and res.rendered >= 1
    assert "custom 404" in (live.out_dir / "404.html").read_text()
    author = site / "content/authors/a001.yaml"
    author.write_text(author.read_text().replace("name: Author001 Person", "name: Renamed Person"))
    res = live.update(["content/authors/a001.yaml"])
    assert not res.whole and len(live.pending) == 1, "the search index is written after the reload"
    (shard,) = live.pending
    assert shard == routes.search_index().path
    before = (live.out_dir / shard).stat().st_ino
    assert live.index_pending() == 1
    assert (live.out_dir / shard).stat().st_ino != before and live.outputs[shard] != ""
    _same_as_clean(live, tmp_path, search=True)
    # A record retitled: the index is made of the other authors' documents as kept and this one's anew.
    config = load_site(site)
    path = cache_file(config.cache_path, "a003", config.authors[3].sources[0])
    assert path is not None
    entry = read_entry(path)
    write_entry(path, dataclasses.replace(entry, records=(
        dataclasses.replace(entry.records[0], title="Quokka dynamics"), *entry.records[1:])))
    live.update([path.relative_to(site).as_posix()])
    assert live.index_pending() == 1
    _same_as_clean(live, tmp_path, search=True)
    assert b"quokka" in b"".join(tree(live.out_dir / shard).values())


def test_chromium_shows_an_author_edit_soon_after_the_write(site: Path, chromium) -> None:  # noqa: ANN001
    author = site / "content/authors/a004.yaml"
    original = author.read_text()
    with serve_site(site) as url, borrowed(chromium) as browser:
        page = browser.new_page()
        page.goto(url + "authors/a004/")
        page.wait_for_timeout(300)   # let the reload script start polling
        times = []
        for n in range(3):
            t0 = time.monotonic()
            author.write_text(original + f"affiliation: Reload Test {n}\n")
            page.wait_for_selector(f"text=Reload Test {n}", timeout=15000)
            times.append(time.monotonic() - t0)
        print(f"\nfile write -> new text in the page (12 authors): {', '.join(f'{t:.2f} s' for t in times)}")
        # How fast is measured by bench/serve_reload.py, not asserted: the wait above fails if it never shows.


def test_chromium_reloads_each_page_once_when_its_own_file_changed(site: Path, chromium) -> None:  # noqa: ANN001
    """An affiliation edit: the author's page reloads once (its own file first, not again when the
    home page is written after it), the home page (it lists affiliations) reloads once, and
    another author's page not at all."""
    author = site / "content/authors/a004.yaml"
    with serve_site(site) as url, borrowed(chromium) as browser:
        pages, loads = {}, {}
        for name, path in (("author", "authors/a004/"), ("home", ""), ("other", "authors/a005/")):
            pages[name] = page = browser.new_page()
            page.goto(url + path)
            page.evaluate("window.__kept = true")     # gone once the page reloads
            loads[name] = []
            page.on("load", lambda _p, name=name: loads[name].append(time.monotonic()))
        pages["author"].wait_for_timeout(300)   # let the reload scripts start polling
        author.write_text(author.read_text() + "affiliation: Reload Once University\n")
        for name in ("author", "home"):
            pages[name].wait_for_selector("text=Reload Once University", timeout=15000)
        pages["author"].wait_for_timeout(1500)  # any reload still to come (the search index follows)
        assert {name: len(times) for name, times in loads.items()} == {"author": 1, "home": 1, "other": 0}, loads
        assert pages["other"].evaluate("window.__kept === true")
        assert pages["author"].evaluate("window.__kept === undefined")
