"""The records-per-year chart of an author page, laid out at build time (an inline SVG, no script).

Every year from the first to the last is a column, a year with no record too (its bar is empty and
its count reads 0), so gaps are seen as gaps. Sizes are CSS pixels at the SVG's natural size: the
theme never shrinks it, so its 13-14 px labels stay legible on a phone; a chart wider than a phone
scrolls sideways inside its figure, starting at the newest year (style.css).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

STEP = 40          # one year's column
BAR = 28           # the bar inside it
TOP = 22           # room for the count above the tallest bar
PLOT = 90          # the tallest bar
BOTTOM = 26        # room for the year under the baseline
PAD = 4
FITS_A_PHONE = 7   # columns that fit a 320 px screen (288 px of content) without scrolling


@dataclass(frozen=True, slots=True)
class Bar:
    year: int
    count: int
    x: float        # left edge of the bar
    y: float        # top edge of the bar
    height: float
    mid: float      # centre of the column, where its labels are anchored


@dataclass(frozen=True, slots=True)
class Chart:
    bars: tuple[Bar, ...]
    width: int
    height: int
    baseline: int

    @property
    def scrolls(self) -> bool:
        """Wider than a small phone: the figure is a keyboard-focusable scroll region."""
        return len(self.bars) > FITS_A_PHONE


def year_chart(years: Sequence[tuple[int, int]]) -> Chart:
    """The chart of (year, count) pairs (any order), every year between the first and last included."""
    counts = dict(years)
    first, last = min(counts), max(counts)
    top = max(counts.values()) or 1
    baseline = TOP + PLOT
    bars = []
    for i, year in enumerate(range(first, last + 1)):
        n = counts.get(year, 0)
        h = round(n / top * PLOT, 1)
        x = PAD + i * STEP + (STEP - BAR) / 2
        bars.append(Bar(year, n, x, baseline - h, h, PAD + i * STEP + STEP / 2))
    return Chart(tuple(bars), PAD * 2 + len(bars) * STEP, baseline + BOTTOM, baseline)
