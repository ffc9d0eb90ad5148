"""The commands of a build spread over machines: ``build --shard K/N`` (its report), ``merge`` and
``shards`` (the publish workflow's matrix). Their work is generator.sharded's, imported when run."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Callable

import click

log = logging.getLogger("generator")


def build_shard(root: Path, text: str, **options: Any) -> None:  # noqa: ANN401
    """``build --shard K/N`` (generator.sharded.build_shard), said on the log."""
    from generator.sharded import build_shard as run
    from generator.write.shard import Spec

    res = run(root, Spec.parse(text), **options)
    if not res.unchanged:
        log.info("built shard %s: %d jobs (%d made, %d reused) in %.2f s -> %s", text.strip(), res.jobs,
                 res.rendered, res.jobs - res.rendered, res.seconds, res.folder)


class _Folders(click.Argument):
    """FOLDERS in the usage line, one or more (click writes "FOLDERS...", which reads as text cut short)."""

    def make_metavar(self, *args: Any) -> str:  # noqa: ANN401
        return "FOLDERS"


def add_to(cli: click.Group, handle_errors: Callable[[Any], Any], report_size: Callable[..., None]) -> None:
    """Add ``merge`` and ``shards`` to the command group ``cli`` (its error handling and size report given)."""

    @cli.command(short_help="Join the folders 'build --shard K/N' made into the site's output, as 'build' writes it.")
    @click.argument("folders", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path), cls=_Folders)
    @click.option("--output", "--out", "output", type=click.Path(file_okay=False, path_type=Path),
                  help="Write here instead of site.yaml's output_dir.")
    @click.pass_context
    @handle_errors
    def merge(ctx: click.Context, folders: tuple[Path, ...], output: Path | None) -> None:
        """Check that FOLDERS are the N shards of one plan ('build --shard K/N' for K = 1..N, each once and
        complete), and swap their union in as the site's output, with the manifest the next 'build' reuses.
        Nothing is written if they are not."""
        from generator.sharded import merge as run, site_values

        target, size = run(ctx.obj["root"], folders, output)
        log.info("merged %d shards -> %s", len(folders), target)
        report_size(target, size, str(site_values(ctx.obj["root"])["host"]))

    @cli.command(short_help="Print site.yaml's shards as JSON, for a GitHub Actions matrix.")
    @click.pass_context
    @handle_errors
    def shards(ctx: click.Context) -> None:
        """Print the shards site.yaml's 'shards: N' asks for, as JSON ({"count":2,"shard":[1,2]}): the publish
        workflow's matrix, read at run time."""
        from generator.sharded import matrix

        click.echo(json.dumps(matrix(ctx.obj["root"]), separators=(",", ":")))
