"""Issue text is hostile input (issue 32, acceptance 2 and point 4).

Each hostile issue is given to the real command, in a folder of its own: it must exit non-zero
with a message that names the issue and the field, change nothing in the site, and run nothing
(no file 'x' appears, which ``$(touch x)`` or a backticked command would make). The YAML editor
is then given hostile values directly: whatever the text, the file reads back as the old values
plus exactly that text, or is not written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from generator.core.errors import SiteError
from generator.intake.yamledit import add_item
from helpers import ISSUES, copy_issue_site, run_cli, tree_state


HOSTILE = {
    "hostile-command.json": "issue #20: 'Author': '$(touch x)' is not an author's page address",
    "hostile-backticks.json": "issue #21: 'Record': '\\x60touch x\\x60' is not a record id",
    "hostile-newline.json": "issue #22: 'Record' must be one line; it holds a line break",
    "hostile-anchor.json": "issue #23: 'Record': '&a arxiv:2401.01234' is not a record id",
    "hostile-slug.json": "issue #24: 'Author': '../../site' is not an author's page address",
    "hostile-heading.json": "issue #25: the heading '### Record' is there twice",
}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return copy_issue_site(tmp_path / "work" / "site")


def _refused(site: Path, issue: Path, *command: str) -> str:
    before = tree_state(site.parent)
    res = run_cli("-C", site, *command, issue, cwd=site)
    assert res.returncode == 1, res.stdout + res.stderr
    assert res.stderr.startswith("error: ") and "Traceback" not in res.stderr
    assert tree_state(site.parent) == before, "a refused issue changed the site"
    assert not list(site.parent.rglob("x")), "a command in the issue ran"
    return res.stderr


@pytest.mark.parametrize("fixture", sorted(HOSTILE))
def test_a_hostile_issue_changes_nothing_and_says_why(site: Path, fixture: str) -> None:
    assert HOSTILE[fixture] in _refused(site, ISSUES / fixture, "triage")


def test_a_one_megabyte_body_is_refused(site: Path, tmp_path: Path) -> None:
    event = json.loads((ISSUES / "not-mine.json").read_text("utf-8"))
    event["issue"]["body"] += "A" * 1_000_000
    issue = tmp_path / "huge.json"
    issue.write_text(json.dumps(event), encoding="utf-8")
    said = _refused(site, issue, "triage")
    assert "issue #12: the issue's text is 1,000," in said and "at most 65,536" in said


def test_a_file_that_is_no_issue_is_refused(site: Path, tmp_path: Path) -> None:
    for text, words in (("not json", "not JSON"), ('{"issue": {"number": "7"}}', "no issue in it"),
                        ("[" * 1_000_000 + "]" * 1_000_000, "not JSON (nested too deep)"),
                        ('{"number": 7, "body": null}', "issue #7: the issue has no text")):
        issue = tmp_path / "issue.json"
        issue.write_text(text, encoding="utf-8")
        assert words in _refused(site, issue, "triage")


def test_a_body_not_written_by_the_form_is_refused(site: Path, tmp_path: Path) -> None:
    event = json.loads((ISSUES / "not-mine.json").read_text("utf-8"))
    event["issue"]["body"] = "exclude: []\n### Author\n\njane-roe\n"
    issue = tmp_path / "issue.json"
    issue.write_text(json.dumps(event), encoding="utf-8")
    assert "the issue was not written by the form not-mine.yml: 'Record' is missing" in _refused(site, issue, "triage")


@pytest.mark.parametrize("value", [
    "x\nexclude: []", "*a", "&a x", "]: {", "# c", "'", '"', "yes", "null", "2401.01234", "- x", "{a: b}",
    "a: b", "!!python/object/apply:os.system ['touch x']", "`touch x`", "$(touch x)", "\u2028", "%YAML 1.1",
])
def test_a_value_is_written_as_data_whatever_it_holds(value: str) -> None:
    """The editor alone (what an id that passed every check goes through): the file reads back as
    the old values with exactly this text added, in each layout of the list."""
    for text in ("name: A\nexclude: ['1']  # c\nbio: b\n", "name: A\nexclude:\n  - '1'\nbio: b\n",
                 "name: A\nexclude:\nbio: b\n", "name: A\n# end\n"):
        old = yaml.safe_load(text)
        try:
            new = add_item(text, "exclude", value, "a.yaml")
        except SiteError as exc:   # refused as a whole is fine; written wrongly is not
            assert "without changing anything else" in str(exc)
            continue
        want = (old.get("exclude") or []) + [value]
        assert yaml.safe_load(new) == {**old, "exclude": want}
        pair = add_item(text, "separate", (value, "doi:10.1/x"), "a.yaml")
        assert yaml.safe_load(pair)["separate"] == [[value, "doi:10.1/x"]]


def test_an_author_file_that_is_a_link_is_not_edited(site: Path) -> None:
    """A link inside content/authors/ could point at site.yaml, or out of the site."""
    jane = site / "content/authors/jane-roe.yaml"
    jane.rename(site / "jane-roe.yaml")
    jane.symlink_to(site / "jane-roe.yaml")
    said = _refused(site, ISSUES / "not-mine.json", "triage")
    assert "issue #12: 'Author': content/authors/jane-roe.yaml is a link to another file; it is not edited" in said
