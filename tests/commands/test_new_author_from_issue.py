"""``authorsite new-author --from-issue ISSUE.json`` (issue 32, acceptance 3).

A good "Add me" issue writes an author file that passes ``authorsite check``; a wrong ORCID check
digit, a group site.yaml does not list and a page address that is taken each give one message (one
``error:`` line, naming the issue and the field) and write nothing. The commands run as
subprocesses on a copy of tests/fixtures/issues/site/.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from helpers import ISSUES, copy_issue_site, run_cli, tree_state



@pytest.fixture
def site(tmp_path: Path) -> Path:
    return copy_issue_site(tmp_path / "site")


def test_a_good_issue_writes_a_file_that_passes_check(site: Path) -> None:
    res = run_cli("-C", site, "new-author", "--from-issue", ISSUES / "add-me.json")
    assert res.returncode == 0, res.stderr
    path = site / "content/authors/grace-hopper.yaml"
    assert "created" in res.stderr and "grace-hopper.yaml" in res.stderr
    text = path.read_text("utf-8")
    assert text.splitlines()[1] == "# Added from issue #30; the page address is the file name: authors/grace-hopper/."
    assert yaml.safe_load(text) == {
        "name": "Grace Hopper", "role": "PhD student", "group": "current",
        "links": {"orcid": "0000-0002-1825-0097"},
        "sources": [{"orcid": {"id": "0000-0002-1825-0097"}}, {"dblp": {"pid": "12/3456"}},
                    {"openalex": {"author": "A5023888391"}}, {"arxiv": {"ids": ["2401.01234", "2402.05678"]}}],
    }
    check = run_cli("-C", site, "check")
    assert check.returncode == 0, check.stderr
    assert "content/authors/grace-hopper.yaml" in check.stderr   # read by check: its sources are not fetched yet


@pytest.mark.parametrize(("fixture", "message"), [
    ("add-me-bad-orcid.json", "error: issue #31: 'ORCID iD': the ORCID iD 0000-0002-1825-0098 fails its checksum "
                              "(ISO 7064 MOD 11-2): its last character, the check digit, is 8 but the 15 digits "
                              "before it give 7"),
    ("add-me-unknown-group.json", "error: issue #32: 'Group': 'postdocs' is not one of this site's groups "
                                  "(current, alumni)"),
    ("add-me-taken.json", "error: issue #33: 'Name': the page address 'jane-roe' is taken: "
                          "content/authors/jane-roe.yaml exists"),
])
def test_a_wrong_answer_gives_one_message_and_writes_nothing(site: Path, fixture: str, message: str) -> None:
    before = tree_state(site)
    res = run_cli("-C", site, "new-author", "--from-issue", ISSUES / fixture)
    assert res.returncode == 1
    assert res.stderr.count("error:") == 1 and res.stderr.startswith(message), res.stderr
    assert tree_state(site) == before


def test_a_name_query_when_no_identifier_is_given_and_a_chosen_slug(site: Path, tmp_path: Path) -> None:
    event = json.loads((ISSUES / "add-me.json").read_text("utf-8"))
    body = event["issue"]["body"]
    for value in ("0000-0002-1825-0097", "12/3456", "A5023888391", "2401.01234, 2402.05678"):
        body = body.replace(f"\n\n{value}\n\n", "\n\n_No response_\n\n")
    event["issue"]["body"] = body.replace("Grace Hopper", "Jane Roe")
    issue = tmp_path / "issue.json"
    issue.write_text(json.dumps(event), encoding="utf-8")
    res = run_cli("-C", site, "new-author", "--from-issue", issue, "--slug", "jane-roe-2")
    assert res.returncode == 0, res.stderr
    data = yaml.safe_load((site / "content/authors/jane-roe-2.yaml").read_text("utf-8"))
    assert data["sources"] == [{"arxiv": {"query": 'au:"Jane Roe"'}}] and "links" not in data
    assert run_cli("-C", site, "check").returncode == 0


def test_new_author_takes_a_name_or_an_issue(site: Path) -> None:
    both = run_cli("-C", site, "new-author", "Ada Byron", "--from-issue", ISSUES / "add-me.json")
    neither = run_cli("-C", site, "new-author")
    assert both.returncode == neither.returncode == 2
    assert "give NAME or --from-issue ISSUE.json" in both.stderr + neither.stderr
    assert run_cli("-C", site, "new-author", "Ada Byron").returncode == 0


def test_a_not_mine_issue_is_no_add_me_issue(site: Path) -> None:
    before = tree_state(site)
    res = run_cli("-C", site, "new-author", "--from-issue", ISSUES / "not-mine.json")
    assert res.returncode == 1 and "was not written by the form add-me.yml: 'Name' is missing" in res.stderr
    assert tree_state(site) == before


def test_nothing_is_written_through_a_folder_link_out_of_the_site(site: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(site / "content/authors")
    (site / "content/authors").symlink_to(elsewhere)
    res = run_cli("-C", site, "new-author", "--from-issue", ISSUES / "add-me.json")
    assert res.returncode == 1 and "content/authors/ is a link to a folder outside the site" in res.stderr
    assert list(elsewhere.iterdir()) == []
