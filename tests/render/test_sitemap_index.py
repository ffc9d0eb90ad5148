"""sitemap.xml within sitemaps.org's limits: at most 50,000 URLs and 50 MB a file, else an index of parts."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from helpers import REPO

from generator.core.routes import Urls
from generator.render.pages import SITEMAP_BYTES, SITEMAP_URLS, sitemap_tasks
from generator.render.themes import make_environment

NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
BASE = "https://example.org/lab/"


def _made(most: int = SITEMAP_URLS, most_bytes: int = SITEMAP_BYTES, n: int = 25) -> dict[str, bytes]:
    env = make_environment(REPO, "default")
    env.globals["absurl"] = Urls(BASE).absurl   # what the sitemap templates read of the globals
    tasks = sitemap_tasks(env, BASE, [f"authors/a{i}/" for i in range(n)], most, most_bytes)
    return {t.rel_path: t.make() for t in tasks}   # type: ignore[misc]


def test_a_small_site_has_one_sitemap() -> None:
    files = _made()
    assert list(files) == ["sitemap.xml"]
    root = ET.fromstring(files["sitemap.xml"])
    assert root.tag == "{%s}urlset" % NS["s"] and len(root.findall("s:url/s:loc", NS)) == 25


def test_past_the_limit_sitemap_xml_is_the_index_of_parts_within_it() -> None:
    files = _made(most=10)
    assert sorted(files) == ["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml", "sitemap.xml"]
    index = ET.fromstring(files["sitemap.xml"])
    assert index.tag == "{%s}sitemapindex" % NS["s"]
    assert [e.text for e in index.findall("s:sitemap/s:loc", NS)] == [f"{BASE}sitemap-{n}.xml" for n in (1, 2, 3)]
    locs = []
    for n in (1, 2, 3):
        part = ET.fromstring(files[f"sitemap-{n}.xml"])
        assert part.tag == "{%s}urlset" % NS["s"]
        found = [e.text for e in part.findall("s:url/s:loc", NS)]
        assert len(found) <= 10
        locs += found
    assert locs == [f"{BASE}authors/a{i}/" for i in range(25)]   # every URL once, in order


def test_the_byte_limit_splits_too() -> None:
    files = _made(most_bytes=1_000)
    parts = sorted(k for k in files if k != "sitemap.xml")
    assert len(parts) > 1 and all(len(files[p]) <= 1_000 for p in parts)
