"""``authorsite triage ISSUE.json`` (issue 32, acceptance 2): a "Not mine?" issue becomes one edit.

The command runs as a subprocess on a copy of tests/fixtures/issues/site/, with the issue JSON
fixtures of tests/fixtures/issues/ (an event file as a workflow gets it, and a bare issue). The
edited author file is compared byte for byte with tests/golden/triage-*.yaml: the one id added,
every comment, key and line of the file as it was. ``AUTHORSITE_UPDATE_GOLDEN=1`` rewrites them.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest
import yaml

from helpers import GOLDEN, ISSUES, REPO, copy_issue_site, run_cli, tree_state



@pytest.fixture
def site(tmp_path: Path) -> Path:
    return copy_issue_site(tmp_path / "site")


def _matches_golden(actual: str, name: str) -> None:
    golden = GOLDEN / name
    if os.environ.get("AUTHORSITE_UPDATE_GOLDEN") == "1":
        golden.write_text(actual, encoding="utf-8", newline="")
        return
    expected = golden.read_text("utf-8")
    assert actual == expected, "".join(difflib.unified_diff(
        expected.splitlines(keepends=True), actual.splitlines(keepends=True), f"tests/golden/{name}", "triage"))


def _changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def test_not_mine_adds_exactly_that_id_to_exclude_keeping_the_file(site: Path) -> None:
    before = tree_state(site)
    res = run_cli("-C", site, "triage", ISSUES / "not-mine.json")
    assert res.returncode == 0, res.stderr
    assert "added '2401.01234' to 'exclude'" in res.stdout and "issue #12" in res.stdout
    assert _changed(before, tree_state(site)) == ["content/authors/jane-roe.yaml"]
    text = (site / "content/authors/jane-roe.yaml").read_text("utf-8")
    _matches_golden(text, "triage-jane-roe.yaml")
    old = yaml.safe_load((ISSUES / "site/content/authors/jane-roe.yaml").read_text("utf-8"))
    assert yaml.safe_load(text) == {**old, "exclude": ["2301.99999", "2401.01234"]}
    check = run_cli("-C", site, "check")
    assert check.returncode == 0, check.stderr


def test_a_wrong_merge_adds_the_pair_to_separate(site: Path) -> None:
    """wrong-merge.json is a bare issue object (as 'gh issue view --json' gives it), not an event."""
    res = run_cli("-C", site, "triage", ISSUES / "wrong-merge.json")
    assert res.returncode == 0, res.stderr
    text = (site / "content/authors/john-poe.yaml").read_text("utf-8")
    _matches_golden(text, "triage-john-poe.yaml")
    assert yaml.safe_load(text)["separate"] == [["arxiv:2201.00001", "doi:10.5555/old"],
                                                ["arxiv:2305.01234", "doi:10.5555/other.2023"]]
    assert run_cli("-C", site, "check").returncode == 0


@pytest.mark.parametrize("fixture", ["not-mine.json", "wrong-merge.json"])
def test_running_it_again_changes_nothing_and_says_so(site: Path, fixture: str) -> None:
    assert run_cli("-C", site, "triage", ISSUES / fixture).returncode == 0
    once = tree_state(site)
    again = run_cli("-C", site, "triage", ISSUES / fixture)
    assert again.returncode == 0, again.stderr
    assert "nothing to change" in again.stdout
    assert tree_state(site) == once


def _issue_for(tmp_path: Path, **answers: str) -> Path:
    """not-mine.json with some answers replaced, written as the form writes them."""
    event = json.loads((ISSUES / "not-mine.json").read_text("utf-8"))
    body = event["issue"]["body"]
    for label, value in answers.items():
        head = f"### {label}\n\n"
        start = body.index(head) + len(head)
        end = body.find("\n\n###", start)
        body = body[:start] + value + (body[end:] if end >= 0 else "")
    event["issue"]["body"] = body
    path = tmp_path / "issue.json"
    path.write_text(json.dumps(event), encoding="utf-8")
    return path


def test_an_absent_exclude_is_added_at_the_end_and_a_version_is_dropped(site: Path, tmp_path: Path) -> None:
    path = site / "content/authors/john-poe.yaml"
    old = path.read_text("utf-8")
    res = run_cli("-C", site, "triage", _issue_for(tmp_path, Author="john-poe", Record="2402.05678v3"))
    assert res.returncode == 0, res.stderr
    assert path.read_text("utf-8") == old + "exclude: ['2402.05678']\n"


def test_a_not_mine_record_without_an_arxiv_id_is_refused_in_words(site: Path, tmp_path: Path) -> None:
    before = tree_state(site)
    res = run_cli("-C", site, "triage", _issue_for(tmp_path, Record="doi:10.5555/x.1"))
    assert res.returncode == 1
    assert "issue #12: 'Record': 'doi:10.5555/x.1' has no arXiv id; 'exclude' lists arXiv ids" in res.stderr
    assert tree_state(site) == before


def test_an_unknown_author_is_named(site: Path, tmp_path: Path) -> None:
    res = run_cli("-C", site, "triage", _issue_for(tmp_path, Author="jane-rowe"))
    assert res.returncode == 1
    assert "issue #12: 'Author': there is no author 'jane-rowe' (no content/authors/jane-rowe.yaml)" in res.stderr


def test_the_sites_own_form_gives_the_labels(site: Path, tmp_path: Path) -> None:
    """The body is read by the labels of the site's form file when it has one (a site may reword them)."""
    form = (REPO / "generator/scaffold/github/ISSUE_TEMPLATE/not-mine.yml").read_text("utf-8")
    own = site / ".github/ISSUE_TEMPLATE/not-mine.yml"
    own.parent.mkdir(parents=True)
    own.write_text(form.replace("label: Author\n", "label: Author's page address\n"), encoding="utf-8")
    event = json.loads((ISSUES / "not-mine.json").read_text("utf-8"))
    assert run_cli("-C", site, "triage", ISSUES / "not-mine.json").returncode == 1   # '### Author' is not its label
    event["issue"]["body"] = event["issue"]["body"].replace("### Author\n", "### Author's page address\n")
    issue = tmp_path / "reworded.json"
    issue.write_text(json.dumps(event), encoding="utf-8")
    res = run_cli("-C", site, "triage", issue)
    assert res.returncode == 0, res.stderr
