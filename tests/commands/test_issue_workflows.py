"""The issue forms and the triage workflow a new site gets (issue 32, acceptance 4 and the contract).

The forms (generator/scaffold/github/ISSUE_TEMPLATE/) and triage.yml (generator/scaffold/github/
workflows/) must pass check-jsonschema with its vendored GitHub schemas and ``zizmor --offline``
with no finding at all; no ``run:`` script may expand an expression (values reach scripts through
environment variables, the issue through the event file); the workflow acts only on the two labels,
after asking GitHub whether the labeller has write access, with a scoped token per job. The form
field ids are the ones the "Not mine?" link fills in, and ``authorsite init`` writes them all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from generator.newsite import Pin, create_site
from generator.publish_workflow import publish_workflow

ROOT = Path(__file__).resolve().parents[2]
SCAFFOLD = ROOT / "generator" / "scaffold" / "github"
WORKFLOW = SCAFFOLD / "workflows" / "triage.yml"
FORMS = sorted((SCAFFOLD / "ISSUE_TEMPLATE").glob("*.yml"))
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.fail(f"{name} is not installed next to {sys.executable}; install the project's test extras")
    return str(path)


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text("utf-8"))


def test_the_forms_pass_githubs_issue_form_schema() -> None:
    assert [p.name for p in FORMS] == ["add-me.yml", "not-mine.yml"]
    res = _run(_tool("check-jsonschema"), "--builtin-schema", "vendor.github-issue-forms", *map(str, FORMS))
    assert res.returncode == 0, res.stdout + res.stderr


def test_the_workflow_passes_githubs_workflow_schema() -> None:
    res = _run(_tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(WORKFLOW))
    assert res.returncode == 0, res.stdout + res.stderr


def test_zizmor_finds_nothing_in_the_workflow() -> None:
    res = _run(_tool("zizmor"), "--offline", "--strict-collection", "--format", "json", "--no-exit-codes",
               "--no-progress", "--color", "never", "--persona", "pedantic", str(WORKFLOW))
    assert res.returncode == 0, res.stderr
    findings = json.loads(res.stdout)
    assert findings == [], [(f["ident"], f["determinations"]["severity"]) for f in findings]


def _steps(workflow: dict):
    for job_id, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield job_id, step


@pytest.mark.parametrize("name", ["triage.yml", "test.yml", "publish.yml"])
def test_no_run_script_expands_an_expression(name: str) -> None:
    text = publish_workflow() if name == "publish.yml" else (SCAFFOLD / "workflows" / name).read_text("utf-8")
    scaffold = yaml.safe_load(text)   # publish.yml: rendered from publish.yml.jinja, as init writes it
    for job_id, step in _steps(scaffold):
        assert "${{" not in step.get("run", ""), f"{name}: job {job_id}, step {step.get('name')!r}"


def test_the_workflow_acts_on_the_two_labels_of_a_writer_only(workflow: dict) -> None:
    on = workflow.get("on", workflow.get(True))   # PyYAML reads the bare key 'on' as True
    assert on == {"issues": {"types": ["labeled"]}}
    assert workflow["permissions"] == {}
    allowed, apply, answer = (workflow["jobs"][j] for j in ("allowed", "apply", "answer"))
    assert allowed["if"] == "github.event.label.name == 'not-mine' || github.event.label.name == 'add-me'"
    assert allowed["permissions"] == {}
    (ask,) = allowed["steps"]
    assert ask["env"]["LABELLER"] == "${{ github.event.sender.login }}"
    assert "collaborators/$LABELLER/permission" in ask["run"] and "admin|write) echo \"ok=true\"" in ask["run"]
    assert apply["needs"] == "allowed" and apply["if"] == "needs.allowed.outputs.ok == 'true'"
    assert apply["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert answer["permissions"] == {"issues": "write"}
    assert "needs.allowed.outputs.ok == 'true'" in answer["if"]


def test_the_workflow_passes_the_event_file_and_answers_through_files(workflow: dict) -> None:
    apply, answer = workflow["jobs"]["apply"], workflow["jobs"]["answer"]
    run = next(s for s in apply["steps"] if s.get("id") == "run")["run"]
    assert '.venv/bin/authorsite triage "$GITHUB_EVENT_PATH"' in run
    assert '.venv/bin/authorsite new-author --from-issue "$GITHUB_EVENT_PATH"' in run
    assert 'delimiter="END_$(openssl rand -hex 16)"' in run
    checkout = next(s for s in apply["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["persist-credentials"] is False
    pr = apply["steps"][-1]
    assert pr["env"]["PUSH_TOKEN"] == pr["env"]["GH_TOKEN"] == "${{ github.token }}"
    assert "printf 'Fixes #%s\\n\\n' \"$ISSUE\"" in pr["run"] and "gh pr create" in pr["run"]
    assert "--body-file" in pr["run"]
    (comment,) = answer["steps"]
    assert comment["env"]["MESSAGE"] == "${{ needs.apply.outputs.message }}"
    assert 'gh issue comment "$ISSUE" --body-file' in comment["run"]


def test_every_action_is_pinned_as_in_the_other_workflows(workflow: dict) -> None:
    publish = yaml.safe_load(publish_workflow())
    pins = {s["uses"].split("@")[0]: s["uses"] for _, s in _steps(publish) if "uses" in s}
    for _, step in _steps(workflow):
        if "uses" in step:
            assert step["uses"] == pins[step["uses"].split("@")[0]]


def _field_ids(form: dict) -> list[str]:
    return [f["id"] for f in form["body"] if f["type"] != "markdown"]


def test_the_form_fields_are_the_contract() -> None:
    """The "Not mine?" link fills author, record and page by these ids (issue 32 point 2)."""
    not_mine = yaml.safe_load((SCAFFOLD / "ISSUE_TEMPLATE" / "not-mine.yml").read_text("utf-8"))
    add_me = yaml.safe_load((SCAFFOLD / "ISSUE_TEMPLATE" / "add-me.yml").read_text("utf-8"))
    assert _field_ids(not_mine) == ["author", "record", "page", "problem", "merged_with", "details"]
    problem = next(f for f in not_mine["body"] if f.get("id") == "problem")
    assert problem["type"] == "dropdown"
    assert problem["attributes"]["options"] == ["Not this author's work", "Wrongly merged with another record"]
    assert _field_ids(add_me) == ["name", "orcid", "dblp", "openalex", "arxiv", "group", "role", "details"]
    for form in (not_mine, add_me):
        assert "labels" not in form, "a label put by the form itself would start the workflow on opening"


def test_init_writes_the_forms_and_the_workflow(tmp_path: Path) -> None:
    site = tmp_path / "site"
    create_site(site, pin=Pin(version="0.2.0"))
    for rel in ("workflows/triage.yml", "ISSUE_TEMPLATE/not-mine.yml", "ISSUE_TEMPLATE/add-me.yml"):
        assert (site / ".github" / rel).read_bytes() == (SCAFFOLD / rel).read_bytes(), rel
