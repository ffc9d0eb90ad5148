"""The ``authorsite`` command line (also ``python -m generator``).

Every expected failure is a ``SiteError``: printed as ``error: ...`` on stderr with
exit status 1 (or the error's own code), never a traceback. Any other exception
is a bug and keeps its traceback.
"""

from __future__ import annotations

import functools
import logging
import shutil
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Callable, TypeVar

import click

from generator import __version__
from generator.errors import SiteError

F = TypeVar("F", bound=Callable[..., Any])
log = logging.getLogger("generator")


class Terminated(KeyboardInterrupt):
    """SIGTERM (a CI job cancelled, ``kill``): unwinds like Ctrl-C, so every cleanup runs."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated()


def _handle_errors(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:  # noqa: ANN401
        try:
            return fn(*args, **kwargs)
        except SiteError as exc:
            click.echo(f"error: {_printable(str(exc))}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt as exc:
            what, code = ("terminated", 143) if isinstance(exc, Terminated) else ("interrupted", 130)
            click.echo(f"{what}; the previous output and cache were left as they were", err=True)
            sys.exit(code)
    return wrapper  # type: ignore[return-value]


def _printable(msg: str) -> str:
    """Messages can quote feed text or YAML keys: keep control characters from reaching the terminal."""
    return "".join(c if c in "\n\t" or c.isprintable() else f"\\x{ord(c):02x}" for c in msg)


class _Formatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        msg = _printable(record.getMessage())
        if record.levelno >= logging.WARNING:
            return f"{record.levelname.lower()}: {msg}"
        return msg


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="authorsite")
@click.option("-C", "--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="The site folder (where site.yaml is).")
@click.option("-q", "--quiet", is_flag=True, help="Only print warnings and errors.")
@click.option("-v", "--verbose", is_flag=True, help="Print every step.")
@click.pass_context
def cli(ctx: click.Context, root: Path, quiet: bool, verbose: bool) -> None:
    """Build static author-profile sites from YAML files and arXiv records."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Formatter())
    log.handlers[:] = [handler]
    log.setLevel(logging.WARNING if quiet else logging.DEBUG if verbose else logging.INFO)
    log.propagate = False
    ctx.obj = {"root": root, "quiet": quiet}


@cli.command()
@click.option("--base-url", help="Override site.yaml's base_url (e.g. https://user.github.io/repo/).")
@click.option("--output", "output", type=click.Path(file_okay=False, path_type=Path),
              help="Write here instead of site.yaml's output_dir.")
@click.option("--strict", is_flag=True, help="Treat warnings (e.g. a missing cache) as errors.")
@click.option("--no-search", is_flag=True, help="Skip the search index (Pagefind); the search page then finds nothing.")
@click.pass_context
@_handle_errors
def build(ctx: click.Context, base_url: str | None, output: Path | None, strict: bool, no_search: bool) -> None:
    """Build the site from the configuration and the committed cache (no network)."""
    from generator.build import build as run_build

    res = run_build(ctx.obj["root"], base_url=base_url, out_dir=output, strict=strict, search=not no_search)
    if res.unchanged:
        return
    log.info("built %d files (%.1f MB written) for %d authors, %d records, %d subjects in %.2f s -> %s",
             res.files, res.bytes / 1e6, res.authors, res.records, res.subjects, res.seconds, res.out_dir)


@cli.command()
@click.option("--strict", is_flag=True, help="Exit non-zero if any source could not be fetched.")
@click.option("--author", "authors", multiple=True, metavar="SLUG",
              help="Fetch only this author's sources (repeatable), e.g. one just added.")
@click.option("--budget", metavar="TIME", help="Stop before this much time (20m, 90s, 1h) is spent; the least "
              "recently refreshed sources go first, the rest next run.")
@click.pass_context
@_handle_errors
def fetch(ctx: click.Context, strict: bool, authors: tuple[str, ...], budget: str | None) -> None:
    """Fetch every author's sources into content/cache/ (the only command that uses the network)."""
    import difflib

    from generator.config import load_site
    from generator.fetch import fetch_site, summary_table
    from generator.refresh import parse_budget

    config = load_site(ctx.obj["root"])
    known = [a.slug for a in config.authors]
    for slug in authors:
        if slug not in known:
            close = difflib.get_close_matches(slug, known, n=1)
            raise SiteError(f"no author '{slug}' in content/authors/", path="content/authors/",
                            hint=f"did you mean '{close[0]}'?" if close else "the slug is the author file's name "
                            "without .yaml")
    try:
        seconds = parse_budget(budget) if budget is not None else None
    except ValueError:
        raise SiteError(f"--budget {budget!r} is not a time", hint="e.g. --budget 20m, 90s or 1h") from None
    report = fetch_site(config, only=authors, budget=seconds)
    for line in summary_table(report):
        log.info("%s", line)
    if report.failed:
        names = ", ".join(sorted({r.slug for r in report.failed}))
        message = (f"{len(report.failed)} source(s) could not be fetched ({names}); "
                   "their cached records were kept as they were")
        refused = [r.error for r in report.failed if r.refused]
        if refused:
            message += ": " + "; ".join(refused)
        if strict:
            raise SiteError(message, hint="fix the refused queries in the files named above" if refused else
                            "upstream unavailable; run 'authorsite fetch' again later", exit_code=3)
        log.warning("%s; the build will use the cache", message)


@cli.command()
@click.argument("slug")
@click.pass_context
@_handle_errors
def review(ctx: click.Context, slug: str) -> None:
    """List every fetched record of author SLUG as KEPT or DROPPED, with the rule that decided."""
    from generator.config import load_site
    from generator.review import format_review, review_author

    for line in format_review(review_author(load_site(ctx.obj["root"]), slug)):
        click.echo(line)


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0: any free port).")
@click.pass_context
@_handle_errors
def serve(ctx: click.Context, host: str, port: int) -> None:
    """Build into a temporary folder and preview it on http://HOST:PORT/, rebuilding on every edit
    of site.yaml, content/, templates/, static/ or themes/ (never fetches)."""
    from generator.serve import serve as run_serve

    run_serve(ctx.obj["root"], host=host, port=port)


@cli.command()
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too.")
@click.pass_context
@_handle_errors
def check(ctx: click.Context, strict: bool) -> None:
    """Validate the configuration and cache, and check the built site's internal links."""
    from generator.check import run_check

    problems, warnings = run_check(ctx.obj["root"])
    for w in warnings:
        log.warning("%s", w)
    for p in problems:
        click.echo(f"error: {_printable(p)}", err=True)
    if problems or (strict and warnings):
        sys.exit(1)
    log.info("check: no problems%s", f", {len(warnings)} warning(s)" if warnings else "")


@cli.command()
@click.pass_context
@_handle_errors
def clean(ctx: click.Context) -> None:
    """Remove the built site (output_dir) and any leftovers of interrupted builds."""
    from generator.config import load_site
    from generator.output import build_lock, check_output_dir, old_dir, staging_dir

    config = load_site(ctx.obj["root"])
    out = config.output_path
    check_output_dir(out, config.root)
    with build_lock(config.root):  # never pull the staging folder from under a running build
        for p in (out, staging_dir(out), old_dir(out)):
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
                log.info("removed %s", p)
            elif p != out and p.is_symlink():   # a planted link: remove the link, never what it points to
                p.unlink()
                log.info("removed the link %s", p)


@cli.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--title", default="Author profiles", show_default=True)
@_handle_errors
def init(directory: Path, title: str) -> None:
    """Create a new site in DIRECTORY with one example author."""
    from generator.newsite import create_site

    create_site(directory, title=title)
    log.info("created a new site in %s; next: cd %s && make site", directory, directory)


@cli.command("new-author")
@click.argument("name")
@click.option("--slug", help="Page address (default: from the name, e.g. jane-doe).")
@click.pass_context
@_handle_errors
def new_author(ctx: click.Context, name: str, slug: str | None) -> None:
    """Add content/authors/SLUG.yaml for NAME with an arXiv query to fill by 'fetch'."""
    from generator.newsite import add_author

    path = add_author(ctx.obj["root"], name, slug)
    log.info("created %s; edit it, then run 'authorsite fetch --author %s' and 'authorsite build'",
             path, path.stem)


def main() -> None:
    cli(prog_name="authorsite")
