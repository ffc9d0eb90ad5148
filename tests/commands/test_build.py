"""End-to-end builds of the demo site and of small inline sites: pages, links, feeds, safety and determinism.

Every build here is real: ``generator.build.build`` in-process, or the ``authorsite``
executable in a subprocess. Pages are parsed with ``html.parser``; feeds with feedparser;
the site is served by a real ``http.server`` on 127.0.0.1 and crawled with urllib.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections import Counter
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.error import HTTPError
from urllib.parse import urldefrag, urljoin, urlsplit, urlunsplit
from urllib.request import HTTPRedirectHandler, Request, build_opener

import feedparser
import pytest

from generator.assemble.site import assemble
from generator.store.reader import read_all
from generator.config import load_site
from generator.core import ids
from generator.core.latex import tex_to_html, tex_to_text
from generator.write.linkcheck import check_links
from generator.core.taxonomy import load_taxonomy
from helpers import (
    REPO,
    Seed,
    build,
    cli_command,
    copy_demo,
    make_project,
    norm_space,
    page_records,
    parse_html,
    run_cli,
    scan_html,
    seeds,
    tree_state,
)

SEEDS = seeds()
SLUGS = {"Bin Cui": "bin-cui", "Bingning Wang": "bingning-wang"}
EXAMPLE_SUBJECTS = {"cs.DS"}   # the example author jane-doe (records merged across sources, issue 14)
# arXiv's own names for the subjects the seed pages use (https://arxiv.org/category_taxonomy).
SUBJECT_NAMES = {
    "cs.AI": "Artificial Intelligence",
    "cs.AR": "Hardware Architecture",
    "cs.CL": "Computation and Language",
    "cs.CV": "Computer Vision and Pattern Recognition",
    "cs.DB": "Databases",
    "cs.DC": "Distributed, Parallel, and Cluster Computing",
    "cs.LG": "Machine Learning",
}


def _slug(seed: Seed) -> str:
    return SLUGS[seed.name]


def _seed_only(demo) -> bool:  # type: ignore[no-untyped-def]
    """True while the seed authors have no fetched records (no cache files of theirs): their pages
    then hold exactly the seed pages' records, and the tests below compare for equality. (The
    example author jane-doe has a committed cache: it shows records merged across sources.)"""
    return not any(f for slug in SLUGS.values() for f in (demo.root / "content" / "cache" / slug).glob("*.json"))


def _model(root: Path):  # type: ignore[no-untyped-def]
    config = load_site(root)
    return assemble(config, read_all(config), load_taxonomy())


def test_seed_files_parse_as_expected() -> None:
    """The copies in tests/fixtures/seeds are what the rest of this module relies on."""
    assert sorted(s.name for s in SEEDS) == ["Bin Cui", "Bingning Wang"]
    for s in SEEDS:
        assert len(s.records) == 18, s.path.name
        assert all(r.title and r.abstract and r.subject in SUBJECT_NAMES for r in s.records)


# ============================================================================ acceptance 2

EXPECTED_FILES = (
    "index.html",
    "authors/bin-cui/index.html",
    "authors/bingning-wang/index.html",
    "authors/bin-cui/feed.xml",
    "authors/bingning-wang/feed.xml",
    "subjects/index.html",
    "pages/about/index.html",
    "404.html",
    "sitemap.xml",
    "robots.txt",
    ".nojekyll",
)


@pytest.mark.parametrize("rel", EXPECTED_FILES)
def test_output_file_exists(demo, rel: str) -> None:
    built = sorted(p.relative_to(demo.out).as_posix() for p in demo.out.rglob("*"))
    assert (demo.out / rel).is_file(), f"{rel} missing; built: {built}"


def test_a_subject_page_for_every_subject_used(demo) -> None:
    used = {r.subject for s in SEEDS for r in s.records}
    for page in (demo.out / "authors").glob("*/index.html"):   # the seed authors and the example one
        used |= {c for r in page_records(page.read_text("utf-8")) for c in r.chips}
    built = {p.parent.name for p in (demo.out / "subjects").glob("*/index.html")}
    assert built == used


def test_nojekyll_robots_and_sitemap(demo) -> None:
    assert (demo.out / ".nojekyll").read_bytes() == b""
    base = load_site(demo.root).base_url
    robots = demo.read("robots.txt")
    assert f"Sitemap: {base}sitemap.xml" in robots.splitlines()
    ns = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text for e in ET.fromstring((demo.out / "sitemap.xml").read_bytes()).findall("sm:url/sm:loc", ns)]
    assert len(locs) == len(set(locs))
    for loc in locs:
        assert loc and loc.startswith(base), loc
        rel = loc[len(base):]
        assert (demo.out / (rel + "index.html" if rel.endswith("/") or not rel else rel)).is_file(), loc
    for rel in ("", "authors/bin-cui/", "authors/bingning-wang/", "subjects/", "pages/about/"):
        assert base + rel in locs


@pytest.mark.parametrize("slug", sorted(SLUGS.values()))
def test_feed_parses_and_matches_author_page(demo, slug: str) -> None:
    raw = (demo.out / f"authors/{slug}/feed.xml").read_bytes()
    feed = feedparser.parse(raw)
    assert feed.bozo == 0, feed.get("bozo_exception")
    assert feed.version == "atom10"
    author = _model(demo.root).author_by_slug[slug]
    page = page_records(demo.read(f"authors/{slug}/index.html"))
    assert len(feed.entries) == len(page) == len(author.records) > 0
    assert [e.title for e in feed.entries] == [tex_to_text(r.title) for r in author.records]
    assert [p.title_html for p in page] == [str(tex_to_html(r.title)) for r in author.records]
    # A record without a link of its own (typed in without id, URL or DOI) links to its entry on the page.
    anchors = [f"{load_site(demo.root).base_url}authors/{slug}/#{r.anchor}" for r in author.records]
    assert [e.link for e in feed.entries] == [p.title_href or a for p, a in zip(page, anchors)]
    assert [e.summary for e in feed.entries] == [tex_to_text(r.abstract) for r in author.records]
    assert [[t.term for t in e.tags] for e in feed.entries] == [list(p.chips) for p in page]
    ids = [e.id for e in feed.entries]
    assert len(set(ids)) == len(ids), "entry ids must be unique"
    assert feed.feed.title.startswith(author.name)
    assert any(link.rel == "self" and link.href.endswith(f"authors/{slug}/feed.xml") for link in feed.feed.links)


def test_every_feed_of_the_demo_parses(demo) -> None:
    feeds = sorted(demo.out.rglob("feed.xml"))
    names = {f.relative_to(demo.out).as_posix() for f in feeds}
    assert {f"authors/{slug}/feed.xml" for slug in SLUGS.values()} <= names
    for path in feeds:
        parsed = feedparser.parse(path.read_bytes())
        assert parsed.bozo == 0, (path, parsed.get("bozo_exception"))
        assert parsed.entries, path


# ============================================================================ acceptance 3

@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s.name)
def test_author_page_lists_every_seed_record_in_order(demo, seed: Seed) -> None:
    source = demo.read(f"authors/{_slug(seed)}/index.html")
    listed = page_records(source)
    titles = [p.title_html for p in listed]
    positions = []
    for rec in seed.records:
        want_title = str(tex_to_html(norm_space(rec.title)))
        assert want_title in titles, f"seed record missing from the page: {rec.title!r}"
        i = titles.index(want_title)
        positions.append(i)
        got = listed[i]
        assert got.year == str(rec.year), rec.title
        assert got.abstract_html == str(tex_to_html(norm_space(rec.abstract))), f"abstract differs for {rec.title!r}"
        assert got.chips[:1] == (rec.subject,), rec.title
        # Typed in from the profile page with the label arXiv and no id: arXiv's search for its title.
        assert got.title_href == got.source_href == ids.title_search_url(norm_space(rec.title))
    assert positions == sorted(positions), "seed records are not in the seed's order"
    assert len(set(positions)) == len(positions)


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s.name)
def test_author_page_header_states_count_and_promise(demo, seed: Seed) -> None:
    source = demo.read(f"authors/{_slug(seed)}/index.html")
    doc = parse_html(source)
    text = " ".join(doc.text().split())
    listed = page_records(source)
    assert doc.find("h1").text().strip() == seed.name
    assert f"Publications and source records attributed to {seed.name}." in text
    assert f"At least {len(listed)} records" in text, "the count must equal what the page lists"
    assert "Linked to original sources" in text
    if _seed_only(demo):
        # Nothing fetched yet: the page is exactly the seed page's records.
        assert len(listed) == len(seed.records) == 18
        assert "At least 18 records" in text


@pytest.mark.parametrize("slug", sorted(SLUGS.values()))
def test_author_page_groups_by_year_newest_first(demo, slug: str) -> None:
    source = demo.read(f"authors/{slug}/index.html")
    doc = parse_html(source)
    years = []
    year_of = {r.anchor: r.year for r in _model(demo.root).author_by_slug[slug].records}
    for section in doc.find_all("section", "year"):
        heading = section.find("h2").text().strip()
        years.append(int(heading))
        for li in section.find_all("li", "record"):
            assert year_of[li.find("h3", "record-title").attrs["id"]] == int(heading)
            assert li.find_all("span", "year") == [], "the year is its heading's, not repeated (issue 30)"
    assert years == sorted(years, reverse=True) and len(set(years)) == len(years)


def _expected_subjects() -> dict[str, dict[tuple[str, int], set[str]]]:
    """code -> {(normalised title, year): names of the authors listing it}."""
    out: dict[str, dict[tuple[str, int], set[str]]] = {}
    for s in SEEDS:
        for r in s.records:
            out.setdefault(r.subject, {}).setdefault((norm_space(r.title), r.year), set()).add(s.name)
    return out


def test_subjects_index_groups_as_arxiv_does(demo) -> None:
    source = demo.read("subjects/index.html")
    doc = parse_html(source)
    groups = {}
    for section in doc.find("main").find_all("section"):
        groups[section.find("h2").text().strip()] = [
            " ".join(li.text().split()) for li in section.find_all("li")
        ]
    assert "Computer Science" in groups
    expected = _expected_subjects()
    items = groups["Computer Science"]
    if _seed_only(demo):
        assert list(groups) == ["Computer Science"]
        assert len(items) == len(expected) + len(EXAMPLE_SUBJECTS)
    for code, records in expected.items():
        found = [i for i in items if i.startswith(f"{code} {SUBJECT_NAMES[code]} ")]
        assert len(found) == 1, f"{code} with its full name not in {items}"
        n = int(re.fullmatch(r".* (\d+) records?", found[0]).group(1))  # type: ignore[union-attr]
        assert n == len(records) if _seed_only(demo) else n >= len(records), found[0]


@pytest.mark.parametrize("code", sorted(_expected_subjects()))
def test_subject_page_lists_all_authors_records_newest_first(demo, code: str) -> None:
    source = demo.read(f"subjects/{code}/index.html")
    doc = parse_html(source)
    assert SUBJECT_NAMES[code] in doc.find("h1").text()
    listed = page_records(source)
    expected = _expected_subjects()[code]
    want = sorted(str(tex_to_html(t)) for t, _ in expected)
    if _seed_only(demo):
        assert sorted(p.title_html for p in listed) == want
    else:
        assert set(want) <= {p.title_html for p in listed}
    years = [int(p.year) for p in listed]
    assert years == sorted(years, reverse=True), "subject page must list newest first"
    assert all(code in p.chips for p in listed)
    # Who works here: every author with a record in the subject, linked to their page.
    who = doc.find("ul", "who")
    names = {a.text().strip(): a.attrs["href"] for a in who.find_all("a")}
    authors = set().union(*expected.values())
    assert authors <= set(names)
    for name in authors:
        assert names[name].endswith(f"authors/{SLUGS[name]}/")
    if _seed_only(demo):
        assert set(names) == authors
        counts = Counter(name for names_ in expected.values() for name in names_)
        for li in who.find_all("li"):
            name = li.find("a").text().strip()
            assert li.find("span", "n").text().strip() == str(counts[name])


def test_home_page_lists_authors_with_counts(demo) -> None:
    doc = parse_html(demo.read("index.html"))
    text = " ".join(doc.text().split())
    for seed in SEEDS:
        assert seed.name in text
        n = len(page_records(demo.read(f"authors/{_slug(seed)}/index.html")))
        assert f"{seed.name} " in text and f"At least {n} records" in text
    links = {a.attrs.get("href") for a in doc.find_all("a")}
    base = load_site(demo.root).base_path
    assert {base + "authors/bin-cui/", base + "authors/bingning-wang/", base + "pages/about/"} <= links


def test_long_subject_is_paginated_newest_first(tmp_path: Path) -> None:
    records = "".join(f"      - {{title: 'Paper {i:02d}', year: {2000 + i}, subjects: [cs.LG]}}\n" for i in range(12))
    root = make_project(tmp_path, {
        "site.yaml": "title: T\nbase_url: https://user.github.io/repo/\npaginate: 5\n",
        "content/authors/ada.yaml": "name: Ada\nsources:\n  - records:\n" + records,
    })
    out = build(root)
    pages = [out / "subjects/cs.LG/index.html", out / "subjects/cs.LG/page/2/index.html",
             out / "subjects/cs.LG/page/3/index.html"]
    assert not (out / "subjects/cs.LG/page/4").exists()
    listed = [p.title_html for page in pages for p in page_records(page.read_text("utf-8"))]
    assert listed == [f"Paper {i:02d}" for i in range(11, -1, -1)]
    second = parse_html(pages[1].read_text("utf-8"))
    rels = {a.attrs.get("rel"): a.attrs.get("href") for a in second.find_all("a") if a.attrs.get("rel")}
    assert rels == {"prev": "/repo/subjects/cs.LG/", "next": "/repo/subjects/cs.LG/page/3/"}
    # The author page is not paginated: it lists all twelve.
    assert len(page_records((out / "authors/ada/index.html").read_text("utf-8"))) == 12
    assert check_links(out, "https://user.github.io/repo/") == []


def test_profiled_coauthors_link_to_their_pages(tmp_path: Path) -> None:
    root = make_project(tmp_path, {
        "content/authors/ada.yaml": """\
            name: Ada Lovelace
            sources:
              - records:
                  - {title: Joint, year: 2024, authors: [Ada Lovelace, 'charles  BABBAGE', Someone Else]}
            """,
        "content/authors/charles.yaml": "name: Charles Babbage\naliases: [C. Babbage]\n",
    })
    out = build(root)
    doc = parse_html((out / "authors/ada/index.html").read_text("utf-8"))
    people = doc.find("p", "record-authors")
    links = {a.text(): a.attrs["href"] for a in people.find_all("a")}
    assert links == {"charles  BABBAGE": "/authors/charles/"}
    assert people.find("strong", "own").text() == "Ada Lovelace"     # the page's own author: bold, no self-link
    assert "Someone Else" in people.text()
    on_charles = parse_html((out / "authors/charles/index.html").read_text("utf-8"))
    assert "Joint" not in on_charles.text()   # (Charles lists no source: the record is Ada's only)


# ============================================================================ acceptance 4

# Replaces every way out to the network before the CLI is imported; with --probe it only
# checks that the guard itself works.
NETWORK_GUARD = r"""
import socket, sys
def _refuse(*args, **kwargs):
    raise OSError("network use during build: %r" % (args[1:2],))
for name in ("connect", "connect_ex", "sendto", "sendall", "send"):
    setattr(socket.socket, name, _refuse)
for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "create_connection"):
    setattr(socket, name, _refuse)
if sys.argv[1:] == ["--probe"]:
    import urllib.request
    try:
        urllib.request.urlopen("http://127.0.0.1:9/", timeout=2)
    except OSError as exc:
        print("refused:", exc)
        sys.exit(3)
    sys.exit(0)
from generator.cli import main
sys.argv = ["authorsite", *sys.argv[1:]]
main()
"""


def _run_guarded(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", NETWORK_GUARD, *args], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, **(env or {})), cwd=REPO)


@pytest.fixture(scope="module")
def offline_build(demo, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo built again: in another process, another folder, time zone and hash seed,
    at least a second after the session's build, with every socket call refused."""
    time.sleep(1.1)
    root = copy_demo(tmp_path_factory.mktemp("offline") / "other-site")
    res = _run_guarded("-C", str(root), "build",
                       env={"TZ": "Pacific/Auckland", "PYTHONHASHSEED": "12345", "LC_ALL": "C"})
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    return root / "output"


def test_network_guard_refuses_connections() -> None:
    res = _run_guarded("--probe")
    assert res.returncode == 3 and "refused: " in res.stdout, (res.stdout, res.stderr)


def test_build_never_touches_the_network(offline_build: Path) -> None:
    for rel in EXPECTED_FILES:
        assert (offline_build / rel).is_file(), rel


def _can_unshare_network() -> bool:
    try:
        return subprocess.run(["unshare", "-rn", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.skipif(not _can_unshare_network(), reason="needs unprivileged network namespaces (unshare -rn)")
def test_build_succeeds_in_a_namespace_with_no_network(tmp_path: Path) -> None:
    """Stronger than the socket guard: covers child processes too (the render processes, which write the search index too)."""
    root = copy_demo(tmp_path / "site")
    res = subprocess.run(["unshare", "-rn", *cli_command(), "-C", str(root), "build"], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert (root / "output" / "index.html").is_file()


def test_two_builds_are_byte_identical(demo, offline_build: Path) -> None:
    a, b = tree_state(demo.out), tree_state(offline_build)
    assert sorted(a) == sorted(b), set(a) ^ set(b)
    differing = [rel for rel in a if a[rel] != b[rel]]
    assert not differing, f"files differ between two builds of the same inputs: {differing}"
    for rel in a:  # belt and braces: compare the bytes themselves
        pa, pb = demo.out / rel, offline_build / rel
        if pa.is_file():
            assert pa.read_bytes() == pb.read_bytes(), rel
    # Neither build leaks its own folder into the pages.
    for path in offline_build.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".xml", ".txt"):
            text = path.read_text("utf-8")
            assert str(offline_build.parent) not in text and str(demo.root) not in text, path


# ============================================================================ acceptance 5

class _NoRedirect(HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def _serve(folder: Path, prefix: str) -> tuple[ThreadingHTTPServer, threading.Thread]:
    """Serve ``folder`` at ``prefix`` (e.g. '/repo/') on 127.0.0.1; anything else is 404."""

    class Handler(SimpleHTTPRequestHandler):
        def _route(self) -> bool:
            if not self.path.startswith(prefix):
                self.send_error(404, "outside the site's path")
                return False
            self.path = "/" + self.path[len(prefix):]
            return True

        def do_GET(self) -> None:  # noqa: N802
            if self._route():
                super().do_GET()

        def do_HEAD(self) -> None:  # noqa: N802
            if self._route():
                super().do_HEAD()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread


def _links_and_ids(source: str) -> tuple[list[tuple[str, str]], set[str]]:
    doc = parse_html(source)
    links, ids = [], set()
    for n in doc.iter():
        if "id" in n.attrs and n.attrs["id"] is not None:
            ids.add(n.attrs["id"])
        for attr in ("href", "src"):
            value = n.attrs.get(attr)
            if value is not None:
                links.append((n.tag, value))
    return links, ids


def _crawl(starts: list[str], public_base: str) -> tuple[dict[str, int], list[str], set[str]]:
    """Fetch every internal URL reachable from ``starts`` (the first is the site's base):
    (status per URL, problems, external URLs)."""
    opener = build_opener(_NoRedirect)
    local = urlsplit(starts[0])
    public = urlsplit(public_base)
    prefix = local.path
    status: dict[str, int] = {}
    pages: dict[str, tuple[str, set[str]]] = {}
    problems: list[str] = []
    external: set[str] = set()
    fragments: list[tuple[str, str, str]] = []
    queue = list(reversed(starts))

    def to_local(url: str) -> str | None:
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc == public.netloc and public.netloc:
            parts = parts._replace(scheme=local.scheme, netloc=local.netloc)
        elif parts.netloc != local.netloc:
            return None
        return urlunsplit(parts)

    while queue:
        url = queue.pop()
        if url in status:
            continue
        path = urlsplit(url).path
        if not path.startswith(prefix):
            problems.append(f"{url} leaves the site path {prefix}")
            status[url] = 0
            continue
        try:
            with opener.open(Request(url), timeout=10) as resp:
                status[url] = resp.status
                body = resp.read()
                ctype = resp.headers.get("Content-Type", "")
        except HTTPError as exc:
            status[url] = exc.code
            problems.append(f"{url} -> {exc.code}")
            continue
        new: list[str] = []
        if "html" in ctype:
            links, ids = _links_and_ids(body.decode("utf-8"))
            pages[url] = (body.decode("utf-8"), ids)
            for _tag, value in links:
                absolute = urljoin(url, value)
                if not absolute.startswith(("http://", "https://")):
                    continue  # mailto: and the like
                mapped = to_local(absolute)
                if mapped is None:
                    external.add(absolute)
                    continue
                target, frag = urldefrag(mapped)
                if frag:
                    fragments.append((url, target, frag))
                new.append(target)
        elif "css" in ctype:
            for ref in re.findall(r"url\(\s*['\"]?([^'\")]+)", body.decode("utf-8")):
                if not ref.startswith("data:"):
                    mapped = to_local(urljoin(url, ref))
                    if mapped is not None:
                        new.append(urldefrag(mapped)[0])
        elif url.endswith(".xml") or "xml" in ctype:
            for ref in re.findall(rb"""(?:href="|<loc>|<id>)([^"<]+)""", body):
                mapped = to_local(ref.decode("utf-8").replace("&amp;", "&"))
                if mapped is not None:
                    new.append(urldefrag(mapped)[0])
        elif url.endswith("robots.txt"):
            for line in body.decode("utf-8").splitlines():
                if line.lower().startswith("sitemap:"):
                    mapped = to_local(line.split(":", 1)[1].strip())
                    if mapped is None:
                        problems.append(f"robots.txt names a sitemap off the site: {line}")
                    else:
                        new.append(mapped)
        queue.extend(u for u in new if u not in status)
    for page, target, frag in fragments:
        if target in pages and frag not in pages[target][1]:
            problems.append(f"{page}: link to {target}#{frag}: no element with that id")
    return status, problems, external


@pytest.mark.parametrize("public_base", ["https://user.github.io/repo/", "https://example.org/"])
def test_crawl_served_site_finds_no_broken_link(demo, tmp_path: Path, public_base: str) -> None:
    out = tmp_path / "published"
    build(demo.root, base_url=public_base, out_dir=out)
    prefix = urlsplit(public_base).path
    server, thread = _serve(out, prefix)
    try:
        local_base = f"http://127.0.0.1:{server.server_port}{prefix}"
        extra = [local_base + "robots.txt", local_base + "sitemap.xml", local_base + "404.html"]
        status, problems, _external = _crawl([local_base, *extra], public_base)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    assert not problems, "\n".join(problems)
    assert all(code == 200 for code in status.values())
    fetched = {urlsplit(u).path[len(prefix):] for u in status}
    # Every page of the build, each author's feed and the theme's assets are reachable by
    # following links (from the home page, robots.txt, the sitemap and the 404 page).
    pages = {p.relative_to(out).as_posix() for p in out.rglob("*.html")}
    wanted = {f[: -len("index.html")] if f.endswith("index.html") else f for f in pages}
    wanted |= {f"authors/{slug}/feed.xml" for slug in SLUGS.values()}
    wanted |= {"static/style.css", "static/favicon.svg", "sitemap.xml", "robots.txt"}
    assert wanted <= fetched, sorted(wanted - fetched)
    assert check_links(out, public_base) == []


def test_internal_links_are_absolute_paths_under_the_base(demo, tmp_path: Path) -> None:
    """404.html is served for any missing address, at any depth: its links (and every other
    page's) must not be relative, or they break under /repo/ (GitHub Pages project sites)."""
    out = tmp_path / "published"
    build(demo.root, base_url="https://user.github.io/repo/", out_dir=out)
    for page in out.rglob("*.html"):
        links, _ = _links_and_ids(page.read_text("utf-8"))
        for tag, value in links:
            if value.startswith(("https://", "http://", "mailto:", "#")):
                if value.startswith("https://user.github.io"):
                    assert value.startswith("https://user.github.io/repo/"), (page, value)
                continue
            assert value.startswith("/repo/"), f"{page.relative_to(out)}: <{tag}> link {value!r} is not under /repo/"


def test_check_links_finds_nothing_in_demo(demo) -> None:
    assert check_links(demo.out, load_site(demo.root).base_url) == []


# ============================================================================ acceptance 7

XSS = '<script>alert(1)</script> "><img src=x onerror=alert(1)> {{ 7*7 }} javascript:alert(1)'


def _yq(text: str) -> str:
    """A YAML single-quoted scalar."""
    return "'" + text.replace("'", "''") + "'"


HOSTILE_ABSTRACT = XSS + (r" $\href{javascript:alert(1)}{x}$ \href{javascript:alert(1)}{y}"
                           r" $\text{<script>alert(1)</script>}$ \url{javascript:alert(1)}")

HOSTILE_FILES = {
    "site.yaml": f"""\
        title: {_yq(XSS)}
        description: {_yq(XSS)}
        base_url: /
        language: en
        """,
    "content/authors/eve.yaml": f"""\
        name: {_yq(XSS)}
        affiliation: {_yq(XSS)}
        aliases: [{_yq(XSS)}]
        links: {{homepage: "https://example.org/eve?a=1&b=2", email: "eve@example.org"}}
        bio: |
          Hello <script>alert(1)</script> <img src=x onerror=alert(1)> {{{{ 7*7 }}}}
          [click](javascript:alert(1)) <a href="javascript:alert(1)">a</a> <a href=" jav&#x09;ascript:alert(1)">b</a>
          <iframe src="javascript:alert(1)"></iframe> <svg onload=alert(1)><circle/></svg>
          <a href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;">d</a>
          <div style="background:url(javascript:alert(1))" onclick="alert(1)">s</div>
          <form action="javascript:alert(1)"><button formaction="javascript:alert(1)">f</button></form>
          <meta http-equiv="refresh" content="0;url=javascript:alert(1)"> <base href="javascript:alert(1)//">
          [fine](https://example.org/)
        sources:
          - records:
              - title: {_yq(XSS)}
                year: 2024
                source: {_yq('<script>alert(1)</script>')}
                subjects: [cs.CR]
                authors: [{_yq(XSS)}, 'Eve "><svg onload=alert(1)>']
                abstract: {_yq(HOSTILE_ABSTRACT)}
                comment: {_yq(XSS)}
                journal_ref: {_yq(XSS)}
                doi: '10.1234/javascript:alert(1)'
              - title: 'Math $<script>alert(1)</script>$ and $\\text{{"><img src=x onerror=alert(1)>}}$ {{{{ 7*7 }}}}'
                year: 2023
                subjects: [cs.CR]
                url: 'https://example.org/paper?x=1&y=2'
        """,
    "content/pages/evil.md": f"""\
        ---
        title: {_yq(XSS)}
        description: {_yq(XSS)}
        ---
        # Heading <script>alert(1)</script> {{{{ 7*7 }}}}

        <script>alert(1)</script>
        <img src=x onerror=alert(1)>
        [js](javascript:alert(1)) [vb](vbscript:msgbox) [data](data:text/html;base64,PHNjcmlwdD4=)
        <a href="  javascript:alert(1)">spaces</a> <a href="//evil.example/x">proto-relative</a>
        {{{{ 7*7 }}}} {{% for x in [1, 2] %}}loop{{% endfor %}}
        """,
}


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_project(tmp_path_factory.mktemp("hostile"), HOSTILE_FILES)
    return build(root)


def test_hostile_site_builds(hostile_site: Path) -> None:
    assert (hostile_site / "authors/eve/index.html").is_file()
    assert (hostile_site / "pages/evil/index.html").is_file()


def test_hostile_text_is_escaped_everywhere(hostile_site: Path) -> None:
    pages = sorted(hostile_site.rglob("*.html"))
    assert len(pages) >= 6
    findings = []
    for page in pages:
        found, text = scan_html(page.read_text("utf-8"))
        findings += [f"{page.relative_to(hostile_site)}: {f}" for f in found]
        assert "49" not in text, f"{page.relative_to(hostile_site)}: a template expression in the data was evaluated"
    assert not findings, "\n".join(findings)


def test_hostile_text_is_shown_literally(hostile_site: Path) -> None:
    source = (hostile_site / "authors/eve/index.html").read_text("utf-8")
    doc = parse_html(source)
    assert doc.find("h1").text() == XSS
    assert doc.find("title").text().startswith(XSS)
    text = doc.text()
    assert "{{ 7*7 }}" in text
    assert "<script>alert(1)</script>" in text  # shown as text, not dropped
    page = parse_html((hostile_site / "pages/evil/index.html").read_text("utf-8")).text()
    assert "{{ 7*7 }}" in page and "{% for x in [1, 2] %}loop{% endfor %}" in page


def test_hostile_feeds_and_xml_are_well_formed(hostile_site: Path) -> None:
    for rel in ("authors/eve/feed.xml", "sitemap.xml"):
        ET.fromstring((hostile_site / rel).read_bytes())  # raises on markup injected into XML
    feed = feedparser.parse((hostile_site / "authors/eve/feed.xml").read_bytes())
    assert feed.bozo == 0, feed.get("bozo_exception")
    assert len(feed.entries) == 2
    assert feed.entries[0].link.startswith("https://")


def test_links_are_only_http_or_built_from_validated_values(hostile_site: Path) -> None:
    doc = parse_html((hostile_site / "authors/eve/index.html").read_text("utf-8"))
    hrefs = [a.attrs["href"] or "" for a in doc.find_all("a") if "href" in a.attrs]
    assert "https://example.org/eve?a=1&b=2" in hrefs
    assert "mailto:eve@example.org" in hrefs
    assert "https://doi.org/10.1234/javascript:alert(1)" in hrefs
    for href in hrefs:
        assert href.startswith(("https://", "http://", "mailto:", "/", "#")), href


@pytest.mark.parametrize("files, needle", [
    ({"content/authors/eve.yaml": """\
        name: Eve
        sources:
          - records:
              - {title: T, year: 2024, url: 'javascript:alert(1)'}
        """}, "'sources[0].records[0].url' must be an http(s) URL"),
    ({"content/authors/eve.yaml": """\
        name: Eve
        links: {homepage: 'javascript:alert(1)'}
        """}, "'links.homepage' must be an http(s) URL"),
    ({"content/authors/eve.yaml": """\
        name: Eve
        links: {scholar: ' JavaScript:alert(1)'}
        """}, "'links.scholar' must be an http(s) URL"),
    ({"content/authors/eve.yaml": """\
        name: Eve
        links: {dblp: 'data:text/html,<script>alert(1)</script>'}
        """}, "'links.dblp' must be an http(s) URL"),
    ({"content/authors/eve.yaml": """\
        name: Eve
        links: {github: '//evil.example/'}
        """}, "'links.github' must be an http(s) URL"),
    ({"content/authors/eve.yaml": """\
        name: Eve
        sources:
          - feed: {url: 'javascript:alert(1)'}
        """}, "'sources[0].feed.url' must be an http(s) URL"),
    ({"site.yaml": """\
        title: T
        base_url: 'javascript:alert(1)'
        """}, "'base_url' must be an http(s) URL"),
], ids=["record-url", "homepage", "scholar-spaces", "dblp-data", "github-protocol-relative", "feed-url",
        "base-url"])
def test_unsafe_urls_are_refused(tmp_path: Path, files: dict[str, str], needle: str) -> None:
    root = make_project(tmp_path, files)
    res = run_cli("-C", root, "build")
    assert res.returncode == 1, res.stderr
    assert needle in res.stderr, res.stderr
    assert "Traceback" not in res.stderr
    assert not (root / "output").exists()


def test_unsafe_base_url_option_is_refused(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"content/authors/eve.yaml": "name: Eve\n"})
    res = run_cli("-C", root, "build", "--base-url", "javascript:alert(1)//")
    assert res.returncode == 1
    assert "--base-url must be an http(s) URL" in res.stderr and "Traceback" not in res.stderr
    res = run_cli("-C", root, "build", "--base-url", "//evil.example/")
    assert res.returncode == 1 and "--base-url must be" in res.stderr


def test_hostile_language_tag_is_refused(tmp_path: Path) -> None:
    """`language` goes into <html lang>: only a language tag passes."""
    root = make_project(tmp_path, {"site.yaml": "title: T\nbase_url: /\nlanguage: 'en\" onmouseover=\"x'\n"})
    res = run_cli("-C", root, "build")
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert "site.yaml:3: 'language' must be a language tag" in res.stderr


def test_free_pages_under_a_project_path_keep_their_links_and_readable_titles(tmp_path: Path) -> None:
    """A page's root-relative links led outside a project site (only check said so), and TeX in a
    title stayed raw in <title>, og:title and the h1. Images are still not allowed."""
    root = make_project(tmp_path, {
        "content/authors/jane-doe.yaml": "name: Jane Doe\n",
        "content/pages/join.md": (
            "---\ntitle: Join us — $\\alpha$ team\n---\n"
            "See [Jane](/authors/jane-doe/), [the feed](/repo/feed.xml) and [away](https://example.org/x).\n\n"
            "![logo](/static/favicon.svg) ![remote](https://tracker.example/x.png) ![rel](../../static/favicon.svg)\n"),
    })
    res = run_cli("-C", root, "build", "--base-url", "https://user.github.io/repo/")
    assert res.returncode == 0, res.stderr
    out = root / "output"
    doc = parse_html((out / "pages/join/index.html").read_text("utf-8"))
    assert doc.find("h1").text() == "Join us — α team" and doc.find("title").text().startswith("Join us — α team")
    body = doc.find("main")
    assert [a.attrs["href"] for a in body.find_all("a")] == ["/repo/authors/jane-doe/", "/repo/feed.xml",
                                                              "https://example.org/x"]
    assert body.find_all("img") == []
    assert check_links(out, "https://user.github.io/repo/") == []


def test_a_cold_build_of_the_demo_says_what_it_built_in_at_most_three_lines(tmp_path: Path) -> None:
    """Issue 45, acceptance 7: what was built (one count of files: the whole output's), the size
    against GitHub Pages' limit only when it matters, and warnings; -v keeps the detail."""
    root = copy_demo(tmp_path / "site")
    res = run_cli("-C", root, "build", timeout=300)
    assert res.returncode == 0, res.stderr
    lines = (res.stdout + res.stderr).splitlines()
    out = root / "output"
    files = sum(1 for p in out.rglob("*") if p.is_file())
    assert 1 <= len(lines) <= 3, lines
    assert re.fullmatch(rf"built 3 authors, \d+ records, \d+ subjects in [\d.]+ s: [\d.]+ MB in {files} files -> "
                        rf"{re.escape(str(out))}", lines[0]), lines
    assert all(line.startswith("warning: ") for line in lines[1:]), lines
    assert run_cli("-C", root, "clean").returncode == 0
    verbose = run_cli("-C", root, "-v", "build", timeout=300)
    assert verbose.returncode == 0 and lines[0].split(" in ")[0] in verbose.stderr
    assert all(part in verbose.stderr for part in ("assembled 3 authors", "jobs rendered", "paper pages (site.yaml papers)"))
