"""Issue 44, acceptance 4: sitemap.xml, and past sitemaps.org's limits the sitemap index and every
part of it, valid against sitemaps.org's schemas (lxml's XML Schema validator) and within 50,000
URLs and 50 MB a file. The split is made by the build's own sitemap_tasks over the URLs of a real
build of a generated site (60 authors x 25 records, paper pages on), with small limits so that it
splits; bench/sitemap_check.py checks the bench site at 1,000 x 100, whose sitemap splits at the
real ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import REPO, build
from sitemap_schema import MOST_BYTES, MOST_URLS, check, check_output, invalid
from test_jobs import synthetic_site

from generator.core.routes import Urls
from generator.render.pages import SITEMAP_BYTES, SITEMAP_URLS, sitemap_tasks
from generator.render.themes import make_environment

BASE = "https://example.org/lab/"   # synthetic_site's base_url


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = synthetic_site(tmp_path_factory.mktemp("sitemap") / "site")
    return build(root)


def _split(urls: list[str], **limits: int) -> dict[str, bytes]:
    """The sitemap files the build makes of ``urls`` under these limits (sitemap_tasks' own)."""
    env = make_environment(REPO, "default")
    env.globals["absurl"] = Urls(BASE).absurl   # what the sitemap templates read of the globals
    return {t.rel_path: t.make() for t in sitemap_tasks(env, BASE, urls, **limits)}   # type: ignore[misc]


def _site_urls(out: Path) -> list[str]:
    """The built site's sitemap URLs, relative to the base (as plan_tasks hands them to sitemap_tasks)."""
    parts, problems = check_output(out, BASE)
    assert problems == [] and len(parts) == 1
    return [u.removeprefix(BASE) for u in parts[0].urls]


def test_the_limits_are_sitemaps_orgs() -> None:
    assert (SITEMAP_URLS, SITEMAP_BYTES) == (MOST_URLS, MOST_BYTES) == (50_000, 50 * 1024 * 1024)


def test_the_validator_refuses_what_sitemaps_org_forbids() -> None:
    """The schemas are not vacuous: each of these breaks sitemaps.org's protocol and fails."""
    head = f'<?xml version="1.0" encoding="utf-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    assert invalid(f"{head}<url><loc>{BASE}</loc></url></urlset>".encode(), "sitemap.xsd") == []
    assert invalid(f"{head}<url><lastmod>2026-01-01</lastmod></url></urlset>".encode(), "sitemap.xsd")  # no loc
    assert invalid(f"{head}<url><loc>/a/</loc></url></urlset>".encode(), "sitemap.xsd")   # under 12 characters
    assert invalid(f"{head}<url><loc>{BASE}</loc><priority>2</priority></url></urlset>".encode(), "sitemap.xsd")
    assert invalid(f"{head}</urlset>".encode(), "sitemap.xsd")   # no url
    index = head.replace("urlset", "sitemapindex") + f"<sitemap><loc>{BASE}s.xml</loc></sitemap></sitemapindex>"
    assert invalid(index.encode(), "siteindex.xsd") == [] and invalid(index.encode(), "sitemap.xsd")
    wrong = index.replace("<sitemap><loc>", "<url><loc>").replace("</loc></sitemap>", "</loc></url>")
    assert invalid(wrong.encode(), "siteindex.xsd")


def test_a_built_sites_sitemap_validates(built: Path) -> None:
    urls = _site_urls(built)
    assert len(urls) > 1500 and sum(u.startswith("papers/") for u in urls) == 1500   # 60 x 25 paper pages


@pytest.mark.parametrize("limits", [{"most": 400}, {"most_bytes": 30_000}], ids=["urls", "bytes"])
def test_a_split_sitemap_is_an_index_of_valid_parts_within_the_limits(built: Path, limits: dict[str, int]) -> None:
    urls = _site_urls(built)
    files = _split(urls, **limits)
    parts, problems = check(files.__getitem__, BASE)
    assert problems == []
    assert len(parts) >= 4 and sorted(files) == sorted(["sitemap.xml", *(p.path for p in parts)])
    most, most_bytes = limits.get("most", SITEMAP_URLS), limits.get("most_bytes", SITEMAP_BYTES)
    assert all(len(p.urls) <= most and p.size <= most_bytes for p in parts)
    assert [u for p in parts for u in p.urls] == [BASE + u for u in urls]   # every URL once, in order


def test_the_check_finds_a_part_over_the_limit() -> None:
    """What sitemap_tasks would write with no limit, past 50,000 URLs: one file the check refuses."""
    urls = [f"papers/p{i}/" for i in range(MOST_URLS + 1)]
    files = _split(urls, most=MOST_URLS + 1)
    parts, problems = check(files.__getitem__, BASE)
    assert [p.path for p in parts] == ["sitemap.xml"] and len(problems) == 1 and "over sitemaps.org" in problems[0]
