"""The publish workflow's shards, run here (issue 43, "What to build" point 2, acceptance 3).

A site made by ``authorsite init --shards 4``, with the demo's authors and cache, runs the commands
of its own .github/workflows/publish.yml in the order a run takes them: the first job's step that
reads the matrix, then each shard job's build step (each on a fresh copy of the site, as a fresh
runner has it), their folders handed to the merge job as its artifact steps name them, then the
merge job's step. The steps' scripts are taken from the workflow as they are, run by bash as a
runner runs them (``bash -e -o pipefail``), with the values GitHub would put in their environment;
``make install`` finds the authorsite of this test's environment installed already (a ``.venv``
whose ``authorsite`` runs this checkout, with the pin the site's Makefile asks for). The merged
output is what ``authorsite build`` writes from the same inputs, byte for byte. The same holds for the
workflow ``init --host s3`` writes (issue 44: one template, the deploy chosen by host), whose merge job
hands the deploy job the output and the build's manifest: a finished build, as ``authorsite deploy`` asks.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from generator.deploy.local import finished_build
from generator.newsite import Pin, create_site
from helpers import REPO

BASE_URL = "https://example.github.io/site"
PIN = Pin(version="0.0.0")
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def runner(site: Path, dest: Path, host: str = "github-pages") -> Path:
    """A fresh runner's checkout of ``site`` (its committed files: no output, no .authorsite), with
    a .venv that runs this checkout's authorsite and holds the Makefile's pin (so make install is done)."""
    shutil.copytree(site, dest, ignore=shutil.ignore_patterns(".authorsite", "output", ".venv"))
    bin_dir = dest / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "authorsite"
    script.write_text(f"#!/bin/sh\nPYTHONPATH={REPO} exec {sys.executable} -m generator \"$@\"\n")
    script.chmod(0o755)
    pin = str(PIN) if host == "github-pages" else str(PIN).replace("authorsite", "authorsite[deploy]", 1)
    (dest / ".venv" / ".authorsite-pin").write_text(f"{pin}\n")
    return dest


def substitute(text: str, values: dict[str, str]) -> str:
    """The workflow's expressions in ``text`` replaced by the values a run gives them."""
    out = EXPRESSION.sub(lambda m: values[m.group(1)], text)
    assert "${{" not in out, out
    return out


def run_step(step: dict, cwd: Path, values: dict[str, str], output: Path | None = None) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update({k: substitute(str(v), values) for k, v in step.get("env", {}).items()})
    if output is not None:
        env["GITHUB_OUTPUT"] = str(output)
    res = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step["run"]], cwd=cwd,
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, f"{step.get('name')}: {res.stdout[-2000:]}{res.stderr[-3000:]}"


def step(job: dict, key: str) -> dict:
    return next(s for s in job["steps"] if s.get("id") == key)


def uses(job: dict, action: str) -> list[dict]:
    return [s["with"] for s in job["steps"] if s.get("uses", "").startswith(action + "@")]


@pytest.mark.parametrize("host", ["github-pages", "s3"])
def test_the_matrix_commands_of_the_publish_workflow_run_here_with_four_shards(tmp_path: Path, host: str) -> None:
    site = tmp_path / "site"
    create_site(site, title="Four machines", pin=PIN, shards=4, host=host)
    pages = host == "github-pages"
    shutil.rmtree(site / "content")
    shutil.copytree(REPO / "content", site / "content")
    jobs = yaml.safe_load((site / ".github/workflows/publish.yml").read_text("utf-8"))["jobs"]

    first = runner(site, host=host, dest=tmp_path / "runner-build")   # the first job: its step that emits the matrix
    output = tmp_path / "github-output"
    run_step(step(jobs["build"], "shards"), first, {}, output)
    matrix = json.loads(dict(line.split("=", 1) for line in output.read_text().splitlines())["matrix"])
    assert matrix == {"count": 4, "shard": [1, 2, 3, 4]}

    values = {"fromJSON(needs.build.outputs.matrix).count": str(matrix["count"])}
    if pages:   # the Pages URL configure-pages gives; a bucket's site is built for site.yaml's base_url
        values["needs.build.outputs.base_url"] = BASE_URL
    (upload,) = uses(jobs["shard"], "actions/upload-artifact")
    downloads = [w for w in uses(jobs["merge"], "actions/download-artifact") if w.get("pattern") == "shard-*"]
    (download,) = downloads
    merger = runner(site, host=host, dest=tmp_path / "runner-merge")
    clean = runner(site, host=host, dest=tmp_path / "one-machine")
    shards = {k: ({**values, "matrix.shard": str(k)}, runner(site, host=host, dest=tmp_path / f"runner-shard-{k}"))
              for k in matrix["shard"]}   # each shard job, on its own runner
    # The shard jobs run at once, as a run's matrix does, and the one-machine build beside them:
    # each its own process in its own checkout.
    with ThreadPoolExecutor(max_workers=len(shards) + 1) as machines:
        running = [machines.submit(run_step, step(jobs["shard"], "shard-build"), machine, mine)
                   for mine, machine in shards.values()]
        running.append(machines.submit(subprocess.run, [str(clean / ".venv/bin/authorsite"), "-q", "build",
                                                        *(["--base-url", BASE_URL + "/"] if pages else [])],
                                       cwd=clean, check=True, timeout=300))
        for build in running:
            build.result()
    for mine, machine in shards.values():
        name, path = substitute(upload["name"], mine), substitute(upload["path"], mine)
        assert re.fullmatch(download["pattern"].replace("*", ".*"), name)
        shutil.copytree(machine / path, merger / download["path"] / name)   # upload, then download
    run_step(step(jobs["merge"], "merge"), merger, values)
    merged, built = tree(merger / "output"), tree(clean / "output")
    assert sorted(merged) == sorted(built)
    assert [k for k in built if merged[k] != built[k]] == []
    assert (merger / "content/cache/feed-ids.json").read_bytes() == (clean / "content/cache/feed-ids.json").read_bytes()
    if not pages:   # the merge job's upload, downloaded by the deploy job into its checkout: a finished build
        (upload,) = [s["with"] for s in jobs["merge"]["steps"] if s.get("name") == "Upload the site"]
        (download,) = uses(jobs["deploy"], "actions/download-artifact")
        assert download == {"name": upload["name"], "path": "."}
        deployer = runner(site, host=host, dest=tmp_path / "runner-deploy")
        for pattern in upload["path"].split():
            for found in merger.glob(pattern):
                copy = shutil.copytree if found.is_dir() else shutil.copy2
                (deployer / found.relative_to(merger)).parent.mkdir(parents=True, exist_ok=True)
                copy(found, deployer / found.relative_to(merger))
        manifest = finished_build(deployer, deployer / "output")
        assert manifest.outputs and tree(deployer / "output") == merged
