"""The GitHub Actions workflows: valid, pinned, least-privilege, and free of zizmor findings.

The repository's own workflows (.github/workflows/) and the copies that
`authorsite init` puts into new sites (generator/scaffold/github/workflows/)
must stay byte-identical, so every check on one holds for the other: test.yml is
copied, publish.yml rendered from publish.yml.jinja (generator.publish_workflow),
whose GitHub Pages rendering is the repository's file. Its renderings for a bucket
(`init --host s3`, `--host cloudflare-r2`: `authorsite deploy`) are checked here
as the repository's are: schema, zizmor, pins, permissions.

check-jsonschema and zizmor are run from the environment running the tests
(next to sys.executable), so they come from the project's virtualenv. Both run
without the network: check-jsonschema validates against the GitHub-workflow
schema vendored in its package, and zizmor --offline turns off its online audits.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from generator.publish_workflow import publish_workflow

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW_DIR = ROOT / ".github" / "workflows"
SCAFFOLD_DIR = ROOT / "generator" / "scaffold" / "github" / "workflows"
NAMES = ("test.yml", "publish.yml")   # in both: the repository and every new site
ALL = (*NAMES, "release.yml")          # release.yml publishes authorsite itself: the repository only
BUCKETS = ("s3", "cloudflare-r2")      # init --host: publish.yml deploys with `authorsite deploy`
HOSTED = tuple(f"publish-{host}.yml" for host in BUCKETS)
EVERY = (*ALL, *HOSTED)
# Not resolved: in a virtualenv sys.executable is a symlink in .venv/bin, and
# that directory, not the base interpreter's, holds the tools.
BIN = Path(sys.executable).parent

SHA_PIN = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$")
USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(\S+)(.*)$")
VERSION_COMMENT = re.compile(r"^\s+#\s+v\d+\.\d+\.\d+\s*$")
BLOCKING_SEVERITIES = {"medium", "high"}


def _tool(name: str) -> Path:
    path = BIN / name
    if not path.exists():
        pytest.fail(f"{name} is not installed next to {sys.executable}; install the project's test extras")
    return path


def _load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), path
    return data


def _triggers(workflow: dict) -> dict:
    # YAML 1.1 (PyYAML) reads the bare key `on` as the boolean True.
    on = workflow.get("on", workflow.get(True))
    assert on is not None, "workflow has no triggers"
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return {name: None for name in on}
    return on


def _steps(workflow: dict):
    for job_id, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield job_id, step


@pytest.fixture(scope="module")
def hosted_dir(tmp_path_factory) -> Path:
    """The publish workflows `init --host s3` and `--host cloudflare-r2` write, side by side."""
    folder = tmp_path_factory.mktemp("hosted") / ".github" / "workflows"
    folder.mkdir(parents=True)
    for host, name in zip(BUCKETS, HOSTED):
        (folder / name).write_text(publish_workflow(host), encoding="utf-8")
    return folder


def _path(name: str, hosted: Path) -> Path:
    return hosted / name if name in HOSTED else WORKFLOW_DIR / name


@pytest.fixture(scope="module")
def workflows(hosted_dir) -> dict[str, dict]:
    return {name: _load(_path(name, hosted_dir)) for name in EVERY}


def test_scaffold_copy_is_identical():
    assert (SCAFFOLD_DIR / "test.yml").read_bytes() == (WORKFLOW_DIR / "test.yml").read_bytes(), (
        "generator/scaffold/github/workflows/test.yml differs from .github/workflows/test.yml")
    assert publish_workflow("github-pages") == (WORKFLOW_DIR / "publish.yml").read_text(encoding="utf-8"), (
        "generator/scaffold/github/workflows/publish.yml.jinja for GitHub Pages differs from .github/workflows/publish.yml")


def test_scaffold_holds_only_these_workflows():
    # triage.yml acts on a site's issue forms: new sites only (tests/commands/test_issue_workflows.py checks it)
    assert sorted(p.name for p in SCAFFOLD_DIR.iterdir()) == sorted(("test.yml", "publish.yml.jinja", "triage.yml"))


@pytest.mark.parametrize("name", EVERY)
def test_schema_valid(name, hosted_dir):
    result = subprocess.run(
        [str(_tool("check-jsonschema")), "--builtin-schema", "vendor.github-workflows",
         str(_path(name, hosted_dir))],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("where", ["repository", "buckets"])
def test_zizmor_has_no_medium_or_high_findings(where, hosted_dir):
    # --no-exit-codes: exit 0 unless the tool itself failed, so findings are read from the JSON.
    # --strict-collection: a workflow zizmor cannot parse is an error, not a skipped input
    # (which would otherwise hide its findings).
    result = subprocess.run(
        [str(_tool("zizmor")), "--offline", "--strict-collection", "--format", "json",
         "--no-exit-codes", "--no-progress", "--color", "never",
         str(WORKFLOW_DIR if where == "repository" else hosted_dir)],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    findings = json.loads(result.stdout)
    assert isinstance(findings, list)
    blocking = [
        f for f in findings
        if not f.get("ignored") and f["determinations"]["severity"].lower() in BLOCKING_SEVERITIES
    ]
    summary = [
        (f["ident"], f["determinations"]["severity"], f["locations"][0]["concrete"]["feature"])
        for f in blocking
    ]
    assert not blocking, f"zizmor findings of medium or high severity: {summary}"


@pytest.mark.parametrize("name", EVERY)
def test_every_action_is_pinned_to_a_commit_with_a_version_comment(name, hosted_dir):
    path = _path(name, hosted_dir)
    workflow = _load(path)
    uses = [step["uses"] for _, step in _steps(workflow) if "uses" in step]
    uses += [job["uses"] for job in workflow["jobs"].values() if "uses" in job]
    assert uses, f"{name} uses no actions"
    for ref in uses:
        assert SHA_PIN.match(ref), f"{name}: {ref!r} is not pinned to a full commit SHA"
    lines = [m for m in map(USES_LINE.match, path.read_text(encoding="utf-8").splitlines()) if m]
    assert len(lines) == len(uses)
    for m in lines:
        assert VERSION_COMMENT.match(m.group(2)), f"{name}: {m.group(1)} lacks a '# vX.Y.Z' comment"


def test_an_action_has_one_pin_across_workflows(workflows):
    pins: dict[str, set[str]] = {}
    for workflow in workflows.values():
        for _, step in _steps(workflow):
            if "uses" in step:
                action, sha = step["uses"].split("@")
                pins.setdefault(action, set()).add(sha)
    assert {a: s for a, s in pins.items() if len(s) > 1} == {}


@pytest.mark.parametrize("name", EVERY)
def test_checkout_does_not_persist_credentials(name, hosted_dir):
    workflow = _load(_path(name, hosted_dir))
    checkouts = [s for _, s in _steps(workflow) if s.get("uses", "").startswith("actions/checkout@")]
    assert checkouts
    for step in checkouts:
        assert step.get("with", {}).get("persist-credentials") is False


@pytest.mark.parametrize("name", EVERY)
def test_no_expressions_inside_run_scripts(name, hosted_dir):
    # Expressions reach scripts only through env: (template injection).
    workflow = _load(_path(name, hosted_dir))
    for job_id, step in _steps(workflow):
        assert "${{" not in step.get("run", ""), f"{name}: job {job_id} step {step.get('name')!r}"


def test_permissions_are_declared_everywhere(workflows):
    for name, workflow in workflows.items():
        assert "permissions" in workflow, f"{name} has no top-level permissions"
        assert workflow["permissions"] != "write-all"
        for job_id, job in workflow["jobs"].items():
            perms = job.get("permissions", workflow["permissions"])
            assert perms != "write-all", f"{name}: {job_id}"
            assert isinstance(perms, dict), f"{name}: {job_id} permissions {perms!r}"


def test_test_workflow(workflows):
    workflow = workflows["test.yml"]
    assert set(_triggers(workflow)) == {"push", "pull_request"}
    assert workflow["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in workflow["jobs"].values())
    (job,) = workflow["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest"
    setup = [s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-python@")]
    assert setup and str(setup[0]["with"]["python-version"]) == "3.11"
    assert job["steps"][-1]["run"].strip() == "bash .ci/run"


def test_publish_workflow(workflows):
    workflow = workflows["publish.yml"]
    triggers = _triggers(workflow)
    assert set(triggers) == {"schedule", "workflow_dispatch", "push"}
    assert len(triggers["schedule"]) == 1 and len(triggers["schedule"][0]["cron"].split()) == 5
    assert triggers["push"]["branches"] == ["main"]
    assert workflow["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    assert workflow["permissions"] == {}

    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    assert build["permissions"] == {"contents": "write", "pages": "read"}
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["needs"] == ["build", "merge"]
    assert deploy["environment"] == {
        "name": "github-pages", "url": "${{ steps.deployment.outputs.page_url }}",
    }
    (deploy_step,) = deploy["steps"]
    assert deploy_step["id"] == "deployment"
    assert deploy_step["uses"].startswith("actions/deploy-pages@")

    steps = build["steps"]
    by_id = {s["id"]: s for s in steps if "id" in s}
    fetch = by_id["fetch"]
    assert "authorsite fetch --budget 20m" in fetch["run"] and "GITHUB_STEP_SUMMARY" in fetch["run"]
    # exit status 3 (some sources failed, the cache intact) publishes with a warning; any other fails the run
    assert '"$status" -eq 3' in fetch["run"] and "::warning" in fetch["run"] and 'exit "$status"' in fetch["run"]
    assert "continue-on-error" not in fetch
    assert 30 <= build["timeout-minutes"] <= 45, "sized for the 20-minute fetch budget and the build"
    restore = next(s for s in steps if s.get("uses", "").startswith("actions/cache/restore@"))
    save = next(s for s in steps if s.get("uses", "").startswith("actions/cache/save@"))
    assert restore["with"]["path"].split() == save["with"]["path"].split() == ["output", ".authorsite"]
    assert restore["with"]["key"] == save["with"]["key"] and "github.run_id" in save["with"]["key"]
    assert save["with"]["key"].startswith(restore["with"]["restore-keys"])
    assert by_id["pages"]["uses"].startswith("actions/configure-pages@")
    order = [s.get("id") or s.get("uses", "").split("@")[0] or s.get("name") for s in steps]
    assert order.index("fetch") < order.index("pages") < order.index("actions/upload-pages-artifact")
    assert order.index("actions/cache/restore") < steps.index(next(s for s in steps if "make site" in s.get("run", ""))) \
        < order.index("actions/cache/save")

    (commit,) = [s for s in steps if "env" in s and "PUSH_TOKEN" in s["env"]]
    assert commit["env"] == {"PUSH_TOKEN": "${{ github.token }}"}
    assert commit["if"] == f"steps.fetch.outcome == 'success' && {ONE}"
    assert re.search(r"\bpush \"\$GITHUB_SERVER_URL/\$GITHUB_REPOSITORY\.git\"", commit["run"])
    assert 'git status --porcelain -- content/cache' in commit["run"]
    assert "[skip ci]" in commit["run"]
    assert "git add -A -- content/cache" in commit["run"]

    site = next(s for s in steps if "make site" in s.get("run", ""))
    assert site["env"] == {"PAGES_BASE_URL": "${{ steps.pages.outputs.base_url }}"}
    assert site["run"].strip() == 'make site BASE_URL="$PAGES_BASE_URL/"'

    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"] == {"path": "output"}
    # one machine (shards: 1): the build job alone builds and uploads, as it did before shards
    assert {s.get("if") for s in (restore, save, site, upload)} == {ONE}


ONE = "fromJSON(steps.shards.outputs.matrix).count == 1"
COUNT = "fromJSON(needs.build.outputs.matrix).count"


def test_publish_workflow_spreads_a_build_over_the_shards_site_yaml_asks_for(workflows):
    """issue 43: the first job reads ``shards:`` at run time and emits the matrix; N shard jobs each
    restore their own cache and upload their folder under a name of their own; one merge job joins
    them, commits the cache and uploads the site; the deploy follows whichever built. With N = 1
    the shard and merge jobs are skipped: one job builds, as before."""
    jobs = workflows["publish.yml"]["jobs"]
    build, shard, merge, deploy = (jobs[k] for k in ("build", "shard", "merge", "deploy"))
    by_id = {s["id"]: s for s in build["steps"] if "id" in s}
    assert by_id["shards"]["run"].split("\n")[0] == 'matrix="$(.venv/bin/authorsite shards)"'
    assert build["outputs"]["matrix"] == "${{ steps.shards.outputs.matrix }}"
    assert shard["if"] == merge["if"] == f"{COUNT} > 1"
    assert shard["strategy"]["matrix"] == {"shard": "${{ fromJSON(needs.build.outputs.matrix).shard }}"}
    assert shard["permissions"] == {"contents": "read"}
    assert merge["permissions"] == {"contents": "write"} and merge["needs"] == ["build", "shard"]
    assert deploy["if"] == f"always() && needs.build.result == 'success' && ({COUNT} == 1 || " \
        "needs.merge.result == 'success')"
    name = "${{ matrix.shard }}-of-${{ " + COUNT + " }}"
    uses = {s.get("uses", "").split("@")[0]: s for s in shard["steps"]}
    restore, save = uses["actions/cache/restore"]["with"], uses["actions/cache/save"]["with"]
    assert restore["path"] == save["path"] == ".authorsite" and restore["key"] == save["key"]
    assert f"authorsite-shard-{name}-" in save["key"] and save["key"].startswith(restore["restore-keys"])
    upload = uses["actions/upload-artifact"]["with"]
    assert upload["name"] == f"shard-{name}" and upload["path"] == f".authorsite/shards/{name}"
    assert upload["include-hidden-files"] is True   # the shard's manifest and .nojekyll
    taken = [s["with"] for s in merge["steps"] if s.get("uses", "").startswith("actions/download-artifact@")]
    assert {"pattern": "shard-*", "path": "shards"} in taken and {"name": "content-cache", "path": "content/cache"} in taken
    steps = {s.get("id") or s.get("name"): s for s in merge["steps"]}
    assert steps["merge"]["run"].strip().endswith(".venv/bin/authorsite merge shards/*")
    order = list(steps)
    assert order.index("merge") < order.index("Commit the refreshed cache") < order.index("Upload the site")
    assert steps["Commit the refreshed cache"]["if"] == "needs.build.outputs.fetched == 'success'"


def test_release_workflow_publishes_with_trusted_publishing(workflows):
    """A tag publishes to PyPI through OIDC: the publish job alone holds id-token: write, in an
    environment, and hands the action no password; the build job checks the tag is the version."""
    workflow = workflows["release.yml"]
    assert _triggers(workflow) == {"push": {"tags": ["v*"]}}
    assert workflow["permissions"] == {}
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    assert build["permissions"] == {"contents": "read"}
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["needs"] == "build" and publish["environment"]["name"] == "pypi"
    step = publish["steps"][-1]
    assert step["uses"].startswith("pypa/gh-action-pypi-publish@") and "with" not in step
    text = (WORKFLOW_DIR / "release.yml").read_text(encoding="utf-8")
    assert "${{ secrets" not in text and "password:" not in text
    script = next(s["run"] for _, s in _steps(workflow) if "twine check" in s.get("run", ""))
    assert "python -m build" in script and '"$TAG" != "v$version"' in script


def _names(job: dict) -> list[str]:
    return [s.get("name") for s in job["steps"]]


@pytest.mark.parametrize("host", BUCKETS)
def test_a_bucket_workflow_builds_as_the_pages_one_and_deploys_with_authorsite_deploy(host, workflows, hosted_dir):
    """issue 44 (point 6): `init --host s3` / `cloudflare-r2` writes the Pages workflow's fetch, build, shards
    matrix and merge (one template), without the Pages steps; the site (with the build's manifest, which
    deploy asks for) goes to a deploy job that alone holds the credentials and runs `authorsite deploy`:
    AWS through OIDC (a role from a repository variable, id-token: write, no stored key), R2 with an API
    token from the repository's secrets."""
    pages, hosted = workflows["publish.yml"], workflows[f"publish-{host}.yml"]
    assert list(hosted["jobs"]) == list(pages["jobs"]) == ["build", "shard", "merge", "deploy"]
    assert _triggers(hosted) == _triggers(pages) and hosted["permissions"] == {}
    assert _names(hosted["jobs"]["build"]) == [n for n in _names(pages["jobs"]["build"]) if n != "Configure Pages"]
    for job in ("shard", "merge"):
        assert _names(hosted["jobs"][job]) == _names(pages["jobs"][job])
        assert hosted["jobs"][job]["permissions"] == pages["jobs"][job]["permissions"]
    build = hosted["jobs"]["build"]
    assert build["permissions"] == {"contents": "write"} and "base_url" not in build["outputs"]
    same = {s["id"]: s for s in pages["jobs"]["build"]["steps"] if s.get("id") in ("fetch", "shards")}
    assert {s["id"]: s for s in build["steps"] if s.get("id") in same} == same
    text = (hosted_dir / f"publish-{host}.yml").read_text(encoding="utf-8")
    assert "pages" not in text.replace("GitHub Pages", "").replace("pages the new records", "").lower()
    assert "--base-url" not in text   # site.yaml's base_url: where the CDN serves the bucket
    uploads = [s for j in ("build", "merge") for s in hosted["jobs"][j]["steps"] if s.get("name") == "Upload the site"]
    assert len(uploads) == 2 and all(s["uses"].startswith("actions/upload-artifact@") for s in uploads)
    assert {s["with"]["name"] for s in uploads} == {"site"}
    assert all(s["with"]["path"].split() == ["output", ".authorsite/manifest-*.json"] for s in uploads)
    assert all(s["with"]["include-hidden-files"] is True for s in uploads)

    deploy = hosted["jobs"]["deploy"]
    assert deploy["needs"] == pages["jobs"]["deploy"]["needs"] and deploy["if"] == pages["jobs"]["deploy"]["if"]
    uses = {s["uses"].split("@")[0]: s for s in deploy["steps"] if "uses" in s}
    assert uses["actions/download-artifact"]["with"] == {"name": "site", "path": "."}
    run = deploy["steps"][-1]
    assert run["run"].startswith("make install\n") and ".venv/bin/authorsite deploy" in run["run"]
    if host == "s3":
        assert deploy["permissions"] == {"contents": "read", "id-token": "write"}
        aws = uses["aws-actions/configure-aws-credentials"]
        assert aws["with"] == {"role-to-assume": "${{ vars.AWS_ROLE_ARN }}", "aws-region": "${{ vars.AWS_REGION }}"}
        assert list(uses).index("aws-actions/configure-aws-credentials") == len(uses) - 1   # just before the deploy
        assert "secrets." not in text and "aws-access-key-id" not in text and "env" not in run
    else:
        assert deploy["permissions"] == {"contents": "read"} and "id-token" not in text
        assert run["env"] == {"AWS_ACCESS_KEY_ID": "${{ secrets.R2_ACCESS_KEY_ID }}",
                              "AWS_SECRET_ACCESS_KEY": "${{ secrets.R2_SECRET_ACCESS_KEY }}",
                              "AWS_REGION": "auto", "R2_ENDPOINT": "${{ vars.R2_ENDPOINT }}"}
        assert '--endpoint-url "$R2_ENDPOINT"' in run["run"]
        assert "aws-actions/" not in text
    # every secret and credential lives in the deploy job alone
    others = yaml.safe_dump({k: v for k, v in hosted["jobs"].items() if k != "deploy"})
    assert "secrets." not in others and "vars." not in others and "id-token" not in others
