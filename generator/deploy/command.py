"""The ``authorsite deploy`` command's options and text (generator.cli adds it, with its error handling).

Importing this module imports click alone: the deploy stage (and boto3) is read when the command runs.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable

import click

log = logging.getLogger("generator")


def deploy_command(handle_errors: Callable[[Any], Any]) -> click.Command:
    """The command, its callback wrapped by ``handle_errors`` (generator.cli's)."""

    @click.command("deploy", short_help="Send the built site to S3-compatible storage: what changed, in link order.")
    @click.option("--to", "to", metavar="s3://BUCKET/PREFIX", help="The bucket and folder (default: site.yaml's "
                  "deploy.to).")
    @click.option("--endpoint-url", metavar="URL", help="The S3 API of a service other than AWS, such as Cloudflare "
                  "R2's https://ACCOUNT_ID.r2.cloudflarestorage.com (default: site.yaml's deploy.endpoint_url).")
    @click.option("--region", help="The bucket's region (default: site.yaml's deploy.region, else AWS_REGION).")
    @click.option("--output", "output", type=click.Path(file_okay=False, path_type=Path),
                  help="Deploy this built folder instead of site.yaml's output_dir.")
    @click.option("--jobs", default=8, show_default=True, type=click.IntRange(1, 64), help="Files sent at once.")
    @click.option("--dry-run", is_flag=True, help="Say what would be sent and deleted; change nothing.")
    @click.pass_context
    @handle_errors
    def deploy(ctx: click.Context, to: str | None, endpoint_url: str | None, region: str | None,
               output: Path | None, jobs: int, dry_run: bool) -> None:
        """Send the built site to a bucket (AWS S3, Cloudflare R2, Google Cloud Storage, MinIO, SeaweedFS):
        the files whose bytes changed, each after the files it links to and the home page last, then the
        deletions. It never builds. Credentials come from the standard places (AWS_ACCESS_KEY_ID and
        AWS_SECRET_ACCESS_KEY, AWS_PROFILE, a workflow's OIDC role), never from site.yaml."""
        from generator.config import load_site
        from generator.deploy.run import deploy as run_deploy
        from generator.deploy.target import own_hosts, resolve

        config = load_site(ctx.obj["root"])
        target = resolve(config.deploy, to, endpoint_url, region)
        out_dir = (output if output is not None else config.output_path).resolve()
        res = run_deploy(config.root, out_dir, target, own_hosts(config.base_url), workers=jobs, dry_run=dry_run)
        log.info("%s -> %s", res.summary(), target)

    return deploy
