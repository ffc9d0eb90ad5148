"""The deploy job of the publish workflow ``init --host s3`` / ``--host cloudflare-r2`` writes, run here
against the loopback S3 server (issue 44, point 6).

A new site made for a bucket runs its own workflow's steps as a run takes them: the build job's build
step (``make site``), its upload of the site as the upload step's paths name it, downloaded into a fresh
checkout as the deploy job's download step says, then the deploy job's last step, its script run by bash
as a runner runs it, with the values GitHub would give its expressions: for R2 the API token from the
repository's secrets and the endpoint from the ``R2_ENDPOINT`` variable; for S3 the credentials that
aws-actions/configure-aws-credentials puts in the environment (it cannot run here: it asks AWS for them),
and the loopback server as site.yaml's deploy.endpoint_url. The bucket then holds the build, byte for byte.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.newsite import Pin, create_site
from seaweed import ACCESS_KEY, SECRET_KEY
from test_deploy import PREFIX, assert_equal
from test_publish_shards import EXPRESSION, runner

PIN = "authorsite[deploy]==0.0.0"   # what the Makefile of a site for a bucket asks for


def run_step(step: dict, cwd: Path, base: dict[str, str], values: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in base.items() if not k.startswith("GITHUB_")}
    env.update({k: EXPRESSION.sub(lambda m: values[m.group(1)], str(v)) for k, v in step.get("env", {}).items()})
    res = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step["run"]], cwd=cwd,
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, f"{step.get('name')}: {res.stdout[-2000:]}{res.stderr[-3000:]}"
    return res


@pytest.mark.parametrize("host", ["s3", "cloudflare-r2"])
def test_the_deploy_job_of_a_bucket_site_sends_its_build(s3: Any, tmp_path: Path, host: str) -> None:  # noqa: ANN401
    site = tmp_path / "site"
    create_site(site, title="A bucket", pin=Pin(version="0.0.0"), host=host)
    assert f'AUTHORSITE_PIP ?= {PIN.replace("0.0.0", "$(AUTHORSITE_VERSION)")}' in (site / "Makefile").read_text()
    bucket = s3.bucket()
    text = (site / "site.yaml").read_text("utf-8")   # the TODO done: the bucket named, its lines uncommented
    deploy = f"deploy:\n  to: s3://{bucket}/{PREFIX}\n" + (f"  endpoint_url: {s3.endpoint}\n" if host == "s3" else "")
    (site / "site.yaml").write_text(text.split("# deploy:\n")[0] + deploy, "utf-8")
    jobs = yaml.safe_load((site / ".github/workflows/publish.yml").read_text("utf-8"))["jobs"]

    builder = runner(site, tmp_path / "runner-build", "s3")
    (build,) = [s for s in jobs["build"]["steps"] if s.get("name") == "Build the site"]
    run_step(build, builder, dict(os.environ), {})
    (upload,) = [s["with"] for s in jobs["build"]["steps"] if s.get("name") == "Upload the site"]
    deployer = runner(site, tmp_path / "runner-deploy", "s3")
    for pattern in upload["path"].split():   # the artifact: upload-artifact's paths, downloaded into the checkout
        found = list(builder.glob(pattern))
        assert found, pattern
        for path in found:
            (deployer / path.relative_to(builder)).parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if path.is_dir() else shutil.copy2)(path, deployer / path.relative_to(builder))

    step = jobs["deploy"]["steps"][-1]
    if host == "s3":   # what configure-aws-credentials exports once AWS has given the role's credentials
        base, values = s3.env, {}
    else:              # no credentials but the step's own, from the repository's secrets
        base = {k: v for k, v in s3.env.items() if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION")}
        values = {"secrets.R2_ACCESS_KEY_ID": ACCESS_KEY, "secrets.R2_SECRET_ACCESS_KEY": SECRET_KEY,
                  "vars.R2_ENDPOINT": s3.endpoint}
    res = run_step(step, deployer, base, values)
    assert re.search(r"deploy: sent [1-9][\d,]* files", res.stderr), res.stderr
    assert_equal(s3, bucket, builder / "output")
    again = run_step(step, deployer, base, values)   # a second run of the job sends nothing
    assert "deploy: sent 0 files" in again.stderr, again.stderr
