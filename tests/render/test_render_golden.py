"""Golden-file test of what generator.render.pages makes from the demo site (pages, feeds, data.json).

The demo site is built once per session (``demo`` fixture) and an author page, a subject
page, an author feed, the site feed and the authors' index (data.json) are compared byte
for byte with the files in ``tests/golden/``; a failure shows a unified
diff. ``AUTHORSITE_UPDATE_GOLDEN=1`` (``make golden``) rewrites the golden file from
the current build instead: review the diff in git before committing it.
"""

from __future__ import annotations

import difflib
import os

import pytest

from helpers import GOLDEN

CASES = {
    "bin-cui.html": "authors/bin-cui/index.html",
    "jane-doe.html": "authors/jane-doe/index.html",   # records merged across arXiv and DBLP (issue 14)
    "subject-cs.CL.html": "subjects/cs.CL/index.html",
    "venue-sigmod.html": "venues/sigmod-conference/index.html",   # the per-venue index (issue 14)
    "bin-cui-feed.xml": "authors/bin-cui/feed.xml",
    "site-feed.xml": "feed.xml",
    "data.json": "data.json",
}


@pytest.mark.parametrize("golden_name, rel", sorted(CASES.items()))
def test_output_matches_golden(demo, golden_name: str, rel: str) -> None:
    actual = (demo.out / rel).read_text("utf-8")
    golden = GOLDEN / golden_name
    if os.environ.get("AUTHORSITE_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual, encoding="utf-8", newline="")
        return
    assert golden.is_file(), f"{golden} is missing; run 'make golden' to create it"
    expected = golden.read_text("utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(keepends=True), actual.splitlines(keepends=True),
            fromfile=f"tests/golden/{golden_name}", tofile=f"build: {rel}", n=2))
        pytest.fail(f"{rel} differs from tests/golden/{golden_name} "
                    f"(if the change is intended: make golden):\n{diff[:20000]}", pytrace=False)
