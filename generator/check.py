"""``authorsite check``: validate configuration and cache, and the built site's links."""

from __future__ import annotations

import logging
from pathlib import Path

from generator.config import load_site
from generator.errors import SiteError
from generator.linkcheck import check_links
from generator.lint import lint
from generator.store import read_all
from generator.taxonomy import load_taxonomy


log = logging.getLogger(__name__)


def run_check(root: Path) -> tuple[list[str], list[str]]:
    """(problems, warnings) as lines for the user; configuration errors are problems."""
    try:
        config = load_site(root)
    except SiteError as exc:
        return [str(p) for p in exc.problems] or [str(exc)], []
    store = read_all(config)
    for note in store.notes:
        log.info("note: %s", note)
    problems: list[str] = []
    warnings = [*store.warnings, *lint(config, store, load_taxonomy())]
    out = config.output_path
    if (out / "index.html").is_file():
        problems.extend(str(b) for b in check_links(out, config.base_url))
    else:
        warnings.append(f"{config.output_dir}/ is not built yet; run 'authorsite build' to check its links")
    return problems, warnings
