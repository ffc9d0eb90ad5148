"""The ``authorsite`` command line (also ``python -m generator``).

Every expected failure is a ``SiteError``: printed as ``error: ...`` on stderr with
exit status 1 (or the error's own code), never a traceback. Any other exception
is a bug and keeps its traceback.
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import shutil
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Callable, NoReturn, TypeVar

import click

from generator import __version__, shard_commands
from generator.buildinfo import report_build, report_size
from generator.core.errors import SiteError, plural
from generator.deploy.command import deploy_command
from generator.publish_workflow import INIT_HOSTS

F = TypeVar("F", bound=Callable[..., Any])
log = logging.getLogger("generator")


class Terminated(KeyboardInterrupt):
    """SIGTERM (a CI job cancelled, ``kill``): unwinds like Ctrl-C, so every cleanup runs."""


_HANDLER_PID = [0]   # the process that set _on_sigterm


def _on_sigterm(signum: int, frame: object) -> None:
    """Unwind the build. In a render process forked before it set its own handler (a SIGTERM
    from the stopping build can come that early, generator.write.parallel._child), exit as that
    handler would: the inherited one raised Terminated there, which multiprocessing printed as
    a traceback."""
    if os.getpid() != _HANDLER_PID[0]:
        from generator.core.processes import stop_on_term   # (loaded already: the process that forked it had)
        stop_on_term(signum, frame)
    raise Terminated()


def _handle_errors(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:  # noqa: ANN401
        try:
            return fn(*args, **kwargs)
        except SiteError as exc:
            if exc.problems:   # one line per problem, as 'check' prints them (report_problems)
                report_problems([str(p) for p in exc.problems], exc.message, exc.hint)
            else:
                click.echo(f"error: {_printable(str(exc))}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt as exc:
            what, code = ("terminated", 143) if isinstance(exc, Terminated) else ("interrupted", 130)
            click.echo(f"{what}; the previous output and cache were left as they were", err=True)
            sys.exit(code)
    return wrapper  # type: ignore[return-value]


def report_problems(problems: list[str], summary: str, hint: str | None = None) -> None:
    """The one format of problems, for every command: ``error: FILE:LINE: message``, one a line
    (as compilers print them, so an editor can jump to each), then what the command did about them."""
    for p in problems:
        click.echo(f"error: {_printable(p)}", err=True)
    command = click.get_current_context(silent=True)
    name = command.info_name if command is not None and command.parent is not None else "authorsite"
    click.echo(f"{name} failed: {_printable(summary)} (above)", err=True)
    if hint:
        click.echo(f"  hint: {_printable(hint)}", err=True)


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
        _HANDLER_PID[0] = os.getpid()
        signal.signal(signal.SIGTERM, _on_sigterm)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Formatter())
    log.handlers[:] = [handler]
    log.setLevel(logging.WARNING if quiet else logging.DEBUG if verbose else logging.INFO)
    log.propagate = False
    ctx.obj = {"root": root, "quiet": quiet}


@cli.command(short_help="Build the site from the configuration and the committed cache (no network).")
@click.option("--base-url", help="Override site.yaml's base_url (e.g. https://user.github.io/repo/).")
@click.option("--output", "--out", "output", type=click.Path(file_okay=False, path_type=Path),
              help="Write here instead of site.yaml's output_dir (with --shard: .authorsite/shards/K-of-N/).")
@click.option("--strict", is_flag=True,
              help="Exit 1 on warnings (a missing or incomplete cache, lint findings), as 'check --strict' does.")
@click.option("--no-search", is_flag=True, help="Skip the search index; the search page then finds nothing.")
@click.option("--no-reuse", is_flag=True,
              help="Reuse nothing an earlier build made (its files, parsed inputs, orders, search index): "
                   "every page is made anew, with the same output. For checking a build, or after a doubt.")
@click.option("--shard", metavar="K/N", help="Build shard K of N (1-based) into its folder, for 'authorsite merge'.")
@click.pass_context
@_handle_errors
def build(ctx: click.Context, base_url: str | None, output: Path | None, strict: bool, no_search: bool,
          no_reuse: bool, shard: str | None) -> None:
    """Build the site from the configuration and the committed cache (no network)."""
    from generator.build import build as run_build
    options = {"base_url": base_url, "out_dir": output, "strict": strict, "search": not no_search, "reuse": not no_reuse}
    if shard is not None:   # a share of the build, for 'merge' (generator.shard_commands)
        return shard_commands.build_shard(ctx.obj["root"], shard, **options)
    res = run_build(ctx.obj["root"], **options)
    if res.unchanged:
        return
    report_build(res)


@cli.command(short_help="Fetch every author's sources into content/cache/ (the only command that uses the network).")
@click.option("--strict", is_flag=True, hidden=True,
              help="Kept for older scripts: a failed source always ends fetch with a non-zero status now.")
@click.option("--author", "authors", multiple=True, metavar="SLUG",
              help="Fetch only this author's sources (repeatable), e.g. one just added.")
@click.option("--budget", metavar="TIME", help="Stop before this much time (20m, 90s, 1h) is spent; the least "
              "recently refreshed sources go first, the rest next run.")
@click.pass_context
@_handle_errors
def fetch(ctx: click.Context, strict: bool, authors: tuple[str, ...], budget: str | None) -> None:
    """Fetch every author's sources into content/cache/ (the only command that uses the network).

    Exit status 0 when every source was fetched; 3 when a source could not be fetched, or only
    in part (the cache is kept and the site can be built from it); 4 when arXiv refused a query
    as written (the message names the author file and line to fix); 6 when another fetch of
    the site is running.
    """
    import difflib

    from generator.config import load_site
    from generator.fetch.run import fetch_site, summary_table
    from generator.fetch.refresh import parse_budget

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
        _fetch_failed(report)


def _fetch_failed(report: Any) -> None:  # noqa: ANN401 - a fetch.FetchReport (imported lazily)
    """Say which sources failed and why, then exit with the report's status (3 or 4)."""
    names = ", ".join(sorted({r.slug for r in report.failed}))
    partial = [r for r in report.failed if r.incomplete]
    message = (f"{len(report.failed)} source(s) could not be fetched ({names})"
               + (f", {len(partial)} of them in part (marked incomplete; the next fetch resumes them)"
                  if partial else "")
               + ("; the cached records were kept" if any(r.had_cache for r in report.failed) else
                  "; none of them was fetched before, so content/cache/ is as it was"))
    refused = [r.error for r in report.failed if r.refused]
    if refused:
        message += ": " + "; ".join(refused)
    hint = ("fix the refused queries in the files named above" if refused else
            "a host name could not be resolved: this machine looks offline, or fetch.arxiv_api (a feed URL) "
            "is wrong; the site can still be built from the cache" if any(r.offline for r in report.failed) else
            "upstream unavailable; run 'authorsite fetch' again later (the site can be built from the cache)")
    raise SiteError(message, hint=hint, exit_code=report.exit_status)


@cli.command(short_help="List author SLUG's fetched records as kept or dropped, and by which rule.")
@click.argument("slug")
@click.pass_context
@_handle_errors
def review(ctx: click.Context, slug: str) -> None:
    """List every fetched record of author SLUG as KEPT or DROPPED, with the rule that decided."""
    from generator.config import load_site
    from generator.review import format_review, review_author

    for line in format_review(review_author(load_site(ctx.obj["root"]), slug)):
        click.echo(line)


@cli.command(short_help="Preview the site on a local web server, rebuilt on every edit.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0: any free port).")
@click.option("--no-reuse", is_flag=True, help="Keep nothing between edits (slower, the same pages).")
@click.pass_context
@_handle_errors
def serve(ctx: click.Context, host: str, port: int, no_reuse: bool) -> None:
    """Build into a temporary folder and preview it on http://HOST:PORT/, rebuilding on every edit
    of site.yaml, content/, templates/, static/ or themes/ (never fetches)."""
    from generator.serve.server import serve as run_serve

    run_serve(ctx.obj["root"], host=host, port=port, reuse=not no_reuse)


@cli.command(short_help="Check the configuration, the cache and the built site's internal links.")
@click.option("--strict", is_flag=True,
              help="Exit 1 on warnings too (a missing or incomplete cache, lint findings), as 'build --strict' does.")
@click.pass_context
@_handle_errors
def check(ctx: click.Context, strict: bool) -> None:
    """Validate the configuration and cache, and check the built site's internal links."""
    from generator.check import run_check
    from generator.core.errors import EXIT_SITE

    problems, warnings = run_check(ctx.obj["root"])
    for w in warnings:
        log.warning("%s", w)
    if problems or (strict and warnings):
        why = [plural(len(problems), "problem")] if problems else []
        why += [f"{plural(len(warnings), 'warning')} and --strict is on"] if strict and warnings else []
        report_problems(problems, ", ".join(why))
        sys.exit(EXIT_SITE)
    log.info("check: no problems%s", f", {plural(len(warnings), 'warning')}" if warnings else "")


@cli.command(short_help="Remove the built site and the leftovers of interrupted builds.")
@click.pass_context
@_handle_errors
def clean(ctx: click.Context) -> None:
    """Remove the built site (output_dir) and any leftovers of interrupted builds."""
    from generator.config import load_site
    from generator.core.files import build_lock
    from generator.write.output import (check_output_dir, index_scratch_dir, legacy_spare_dir, old_dir, spare_dir,
                                  staging_dir)
    from generator.incremental.prelink import prelink_dir

    config = load_site(ctx.obj["root"])
    out = config.output_path
    check_output_dir(out, config.root)
    with build_lock(config.root):  # never pull the staging folder from under a running build
        prelinked = sorted(out.parent.glob(prelink_dir(out, 0).name[:-1] + "*")) if out.parent.is_dir() else []
        for p in (out, staging_dir(out), old_dir(out), spare_dir(out), legacy_spare_dir(out), index_scratch_dir(out),
                  *prelinked):
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
                log.info("removed %s", p)
            elif p != out and p.is_symlink():   # a planted link: remove the link, never what it points to
                p.unlink()
                log.info("removed the link %s", p)
        for old_lock in sorted(config.root.glob(".authorsite-*.lock")):   # beside site.yaml before .authorsite/
            old_lock.unlink()
            log.info("removed %s", old_lock)


@cli.command(short_help="Create a new site in DIRECTORY with one example author.")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--title", default="Author profiles", show_default=True)
@click.option("--repo", metavar="GIT-URL", help="Install authorsite from this git URL instead of PyPI's release "
              "of this version (default with --ref: the git URL this authorsite came from).")
@click.option("--ref", metavar="TAG-OR-COMMIT", help="With --repo: the tag or commit to install (default: the commit "
              "this authorsite came from).")
@click.option("--shards", type=click.IntRange(1, 256), default=1, help="Machines its publish workflow builds on (site.yaml's shards).")
@click.option("--host", type=click.Choice(INIT_HOSTS), default="github-pages", show_default=True,
              help="Where its publish workflow publishes: GitHub Pages, or a bucket 'authorsite deploy' fills (AWS S3 "
              "through OIDC, Cloudflare R2 with an API token).")
@_handle_errors
def init(directory: Path, title: str, repo: str | None, ref: str | None, shards: int, host: str) -> None:
    """Create a new site in DIRECTORY with one example author."""
    from generator.newsite import create_site, pin_warning, resolve_pin

    pin = create_site(directory, title=title, pin=resolve_pin(repo, ref), shards=shards, host=host)
    log.info("created a new site in %s; its Makefile installs %s", directory, pin)
    warning = pin_warning(pin, directory / "Makefile", default=repo is None and ref is None)
    if warning:
        log.warning("%s", warning)
    log.info("next: cd %s && make site", directory)


@cli.command("new-author", short_help="Add an author file for NAME, with an arXiv query to fetch.")
@click.argument("name", required=False)
@click.option("--slug", help="Page address (default: from the name, e.g. jane-doe).")
@click.option("--from-issue", "issue", type=click.Path(dir_okay=False, path_type=Path), metavar="ISSUE.json",
              help="Take the name and sources from an 'Add me' issue's JSON; written only if it passes 'check'.")
@click.pass_context
@_handle_errors
def new_author(ctx: click.Context, name: str | None, slug: str | None, issue: Path | None) -> None:
    """Add content/authors/SLUG.yaml for NAME with an arXiv query to fill by 'fetch' (or --from-issue)."""
    from generator.intake.addme import new_author_from_issue
    from generator.newsite import add_author

    if (name is None) == (issue is None):
        raise click.UsageError("give NAME or --from-issue ISSUE.json (one of them)")
    path = add_author(ctx.obj["root"], name, slug) if name is not None else \
        new_author_from_issue(ctx.obj["root"], issue, slug)  # type: ignore[arg-type]
    log.info("created %s; edit it, then run 'authorsite fetch --author %s' and 'authorsite build'",
             path, path.stem)


@cli.command(short_help="Apply a 'Not mine?' issue: add its record to the author's exclude (or separate).")
@click.argument("issue", type=click.Path(dir_okay=False, path_type=Path), metavar="ISSUE.json")
@click.pass_context
@_handle_errors
def triage(ctx: click.Context, issue: Path) -> None:
    """Add a 'Not mine?' issue's record to its author's exclude: (a wrong merge's pair to separate:)."""
    from generator.intake.triage import triage as run_triage

    click.echo(run_triage(ctx.obj["root"], issue).summary)


def _set_verbosity(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:   # after the group's own -q/-v: the one nearer the command wins
        log.setLevel(logging.WARNING if param.name == "quiet" else logging.DEBUG)
        if isinstance(ctx.obj, dict):
            ctx.obj["quiet"] = param.name == "quiet"


def _accept_verbosity_after_command(group: click.Group) -> None:
    """-q/-v after the command name too (``authorsite build -q``), on every command, this one place."""
    for command in group.commands.values():
        command.params += [
            click.Option(["-q", "--quiet"], is_flag=True, expose_value=False, callback=_set_verbosity,
                         help="Only print warnings and errors."),
            click.Option(["-v", "--verbose"], is_flag=True, expose_value=False, callback=_set_verbosity,
                         help="Print every step."),
        ]


shard_commands.add_to(cli, _handle_errors, report_size)   # merge, shards
cli.add_command(deploy_command(_handle_errors))
_accept_verbosity_after_command(cli)


def main() -> None:
    """The ``authorsite`` script. Ends the process without tearing its heap down: after a build
    of 1,000 authors the interpreter's own exit spends a second freeing the model, object by
    object, which nobody needs. Exit handlers and output streams are run and flushed first."""
    try:
        cli(prog_name="authorsite")
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    _ignore_late_signals()
    _exit(code)


def _ignore_late_signals() -> None:
    """A SIGINT or SIGTERM that lands once the command has ended (its output written) ends the
    process with the signal's status, as its default action would, not with a traceback from
    inside the exit below."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) not in (signal.SIG_IGN, None):
            signal.signal(sig, lambda signum, frame: os._exit(128 + signum))


def _exit(code: object) -> NoReturn:
    """``sys.exit(code)``'s status and message, then ``os._exit``; a plain exit while another
    (non-daemon) thread still runs, as the interpreter would wait for it."""
    if any(t is not threading.main_thread() and not t.daemon for t in threading.enumerate()):
        sys.exit(code)
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()   # logging's flush, multiprocessing's cleanup
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):   # a closed pipe: as the interpreter, say nothing
            pass
    os._exit(code or 0)
