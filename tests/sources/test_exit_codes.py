"""The exit-code table (generator.core.errors, README.md "Exit codes") as fetch, build --strict and
check --strict use it, through the real CLI; and offline fetches that end fast (issue 15, item 5).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from atomgen import corpus
from fakearxiv import Corpus, Reply, Script
from fetchkit import JANE, cache_path, hazard, run_cli, write_site

from generator.core import errors
from generator.config import load_site

README = Path(__file__).resolve().parents[2] / "README.md"
UNRESOLVABLE = "http://arxiv-api.invalid/api/query"    # RFC 6761: .invalid never resolves

TWO = {"jane-doe": JANE, "ann-other": "name: Ann Other\nsources:\n  - arxiv: 'au:\"Ann Other\"'\n"}


def test_the_readme_table_lists_every_code_of_errors_py() -> None:
    codes = {v: k for k, v in vars(errors).items() if k.startswith("EXIT_")}
    section = README.read_text("utf-8").split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| (\d) \| `(EXIT_[A-Z]+)` \|", section, re.M))
    assert {int(k): v for k, v in rows.items()} == codes
    assert codes[2] == "EXIT_USAGE"


def test_fetch_exits_0_then_3_on_an_outage_then_4_on_a_refused_query(arxiv_server, tmp_path: Path) -> None:
    good = arxiv_server(Corpus(corpus(2)))
    root = write_site(tmp_path / "site", {"jane-doe": JANE}, api=good.url, delay=0.05, retries=1)
    assert run_cli(root, "fetch").returncode == errors.EXIT_OK
    before = cache_path(load_site(root)).read_bytes()

    down = arxiv_server(Script(Reply(status=503)))
    outage = run_cli(root, "fetch", env={"ARXIV_API_URL": down.url})
    assert outage.returncode == errors.EXIT_UPSTREAM and "upstream unavailable" in outage.stderr

    payload, _ = hazard("error-entry-400.xml")
    refusing = arxiv_server(Script(Reply(payload, status=400)))
    refused = run_cli(root, "fetch", env={"ARXIV_API_URL": refusing.url})
    assert refused.returncode == errors.EXIT_REFUSED
    assert "content/authors/jane-doe.yaml:3: arXiv 'au:\"Jane Doe\"' could not be fetched: the query was " \
           "refused" in refused.stderr and "REFUSED, fix the author file" in refused.stderr
    assert cache_path(load_site(root)).read_bytes() == before
    assert len(refusing.hits) == 1
    assert run_cli(root, "fetch", "--bogus").returncode == errors.EXIT_USAGE


def test_an_unresolvable_host_fails_fast_and_exits_3(tmp_path: Path) -> None:
    """Two authors, retries 4 and 1 s between requests: one retry for the first source, none for the
    second (same host, same run): seconds, not the minutes of five tries each."""
    root = write_site(tmp_path / "site", TWO, api=UNRESOLVABLE, delay=1, retries=4)
    t0 = time.monotonic()
    res = run_cli(root, "fetch")
    elapsed = time.monotonic() - t0
    assert res.returncode == errors.EXIT_UPSTREAM, res.stderr
    # The behaviour is "gives up in seconds" (five tries each would take minutes), not a speed:
    # the whole test's median is 2.0 s here (5 runs), so 15 s is 7.4x, under 10 s a source.
    assert elapsed < 15, elapsed
    assert "could not be resolved" in res.stderr and "after 2 attempts" in res.stderr
    assert "earlier in this run; not tried again" in res.stderr
    assert "looks offline" in res.stderr and "2 source(s) could not be fetched" in res.stderr
    assert not (root / "content/cache").exists() or not list((root / "content/cache").rglob("*.json"))
    built = run_cli(root, "build")
    assert built.returncode == 0          # the site still builds (from what cache there is)


SITES = {
    "clean": ("name: A\nsources:\n  - records:\n      - {title: Fine, year: 2024, abstract: x, subjects: [cs.CL]}\n",
              0),
    "never fetched": ("name: A\nsources:\n  - arxiv: 'au:A'\n", 1),
    "lint finding": ("name: A\nsources:\n  - records:\n      - {title: No abstract, year: 2024, subjects: [cs.CL]}\n",
                     1),
}


@pytest.mark.parametrize("case", sorted(SITES))
def test_build_strict_and_check_strict_exit_the_same(tmp_path: Path, case: str) -> None:
    """Before: a source never fetched made build --strict exit 1 and check --strict exit 0."""
    author, expected = SITES[case]
    root = write_site(tmp_path / "site", {"a": author})
    build = run_cli(root, "build", "--strict")
    check = run_cli(root, "check", "--strict")
    assert (build.returncode, check.returncode) == (expected, expected), build.stderr + check.stderr
    assert run_cli(root, "build").returncode == 0 and run_cli(root, "check").returncode == 0
    assert "Traceback" not in build.stderr + check.stderr
