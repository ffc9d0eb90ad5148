"""Issue 30's look, in pure functions: the records-per-year chart (generator.render.chart) and the
site's accent colour (generator.config.accent, site.yaml ``accent``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.render.chart import FITS_A_PHONE, PLOT, year_chart
from generator.config import load_site
from generator.config.accent import AA_TEXT, DARK_BG, LIGHT_BG, contrast, dark_variant, problem
from generator.core.errors import SiteError
from helpers import make_project  # tests/ is on sys.path (tests/conftest.py)


def test_chart_shows_every_year_between_the_first_and_the_last() -> None:
    chart = year_chart([(2025, 1), (2024, 2), (2020, 1)])
    assert [(b.year, b.count) for b in chart.bars] == [(2020, 1), (2021, 0), (2022, 0), (2023, 0), (2024, 2), (2025, 1)]
    heights = {b.year: b.height for b in chart.bars}
    assert heights[2024] == PLOT and heights[2020] == PLOT / 2 and heights[2021] == 0
    assert all(b.y + b.height == chart.baseline for b in chart.bars)
    xs = [b.x for b in chart.bars]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    assert chart.width >= len(chart.bars) * 40 and not chart.scrolls


def test_a_long_chart_becomes_a_scroll_region() -> None:
    assert year_chart([(2000, 1), (2000 + FITS_A_PHONE, 1)]).scrolls
    assert not year_chart([(2000, 1), (2000 + FITS_A_PHONE - 1, 1)]).scrolls


def test_contrast_matches_wcag_examples() -> None:
    assert round(contrast("#000000", "#ffffff"), 2) == 21.0
    assert round(contrast("#767676", "#ffffff"), 2) == 4.54   # the classic lightest AA grey on white


@pytest.mark.parametrize("colour", ["#0b5cad", "#6b3fa0", "#000000", "#1a7f37", "#B3261E"])
def test_dark_variant_reaches_aa_on_the_dark_background(colour: str) -> None:
    dark = dark_variant(colour)
    assert contrast(dark, DARK_BG) >= AA_TEXT
    assert problem(colour) is None and contrast(colour, LIGHT_BG) >= AA_TEXT


def test_a_light_accent_is_refused_with_a_darker_suggestion() -> None:
    msg = problem("#ffcc00")
    assert msg is not None and "1.51:1" in msg and "4.5:1" in msg
    suggestion = msg.rsplit(" ", 1)[-1]
    assert contrast(suggestion, LIGHT_BG) >= AA_TEXT


def test_site_yaml_accent_is_located(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"site.yaml": "title: T\nbase_url: /\naccent: '#ffcc00'\n"})
    with pytest.raises(SiteError) as info:
        load_site(root)
    [p] = info.value.problems
    assert (p.path, p.line) == ("site.yaml", 3) and "'accent' #ffcc00" in p.message and "such as #8f7300" in p.message
    bad = make_project(tmp_path / "b", {"site.yaml": "title: T\nbase_url: /\naccent: blue\n"})
    with pytest.raises(SiteError) as info:
        load_site(bad)
    assert [str(p) for p in info.value.problems][0].startswith("site.yaml:3: 'accent' must be a colour written #rrggbb")
    good = make_project(tmp_path / "c", {"site.yaml": "title: T\nbase_url: /\naccent: '#6b3fa0'\n"})
    assert load_site(good).accent == "#6b3fa0"
