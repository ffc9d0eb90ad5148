"""``authorsite check``: validate configuration and cache, and the built site's links.

``site_warnings`` is the one list of warnings that ``--strict`` turns into errors, for
``check --strict`` and ``build --strict`` alike, so the two agree on every site (they
once did not: a source never fetched was a build warning but only a check note):
cache files that cannot be read, sources never fetched (one warning, the list of them: a build
says nothing of them unless ``--strict``), sources fetched only in part
(an ``incomplete`` mark), and the data-quality lint. Both then exit with status 1
(``errors.EXIT_SITE``).
"""

from __future__ import annotations

import logging
from pathlib import Path

from generator.config import SiteConfig, load_site
from generator.config.site import domain_mismatch
from generator.core.errors import SiteError
from generator.render.i18n import language_warning, shipped_tags, site_language, translations
from generator.write.linkcheck import check_links
from generator.lint import lint
from generator.write.sitesize import report
from generator.store.reader import Store, incomplete_sources, read_all, unfetched_warning
from generator.core.taxonomy import load_taxonomy
from generator.render.themes import theme_problems

log = logging.getLogger(__name__)


def site_warnings(config: SiteConfig, store: Store, *, with_lint: bool = True) -> list[str]:
    """What ``--strict`` refuses: the cache's warnings and notes, incomplete sources, and (unless
    ``with_lint`` is False, for a plain build that only logs them) the lint findings."""
    warnings = [*store.warnings, *store.notes, *unfetched_warning(store.unfetched), *incomplete_sources(config, store),
                *domain_mismatch(config), *language_warning(config.root, config.language)]
    if with_lint:
        warnings.extend(lint(config, store, load_taxonomy()))
    return warnings


def run_check(root: Path) -> tuple[list[str], list[str]]:
    """(problems, warnings) as lines for the user; configuration errors are problems."""
    try:
        config = load_site(root)
    except SiteError as exc:
        return [str(p) for p in exc.problems] or [str(exc)], []
    store = read_all(config)
    log.debug("%s", language_note(config))   # (-v): a language that lacks words warns (language_warning)
    problems: list[str] = [str(p) for p in sorted(theme_problems(config), key=lambda p: p.order)]
    try:
        translations(site_language(config.root, config.language))   # the site's own catalogue compiles
    except SiteError as exc:
        problems.append(str(exc))
    warnings = site_warnings(config, store)
    out = config.output_path
    if (out / "index.html").is_file():
        problems.extend(str(b) for b in check_links(out, config.base_url))
        problems.extend(_size_warnings(out, config.output_dir, config.host))
    else:
        log.info("note: %s/ is not built yet; run 'authorsite build' to check its links", config.output_dir)
    return problems, warnings


def language_note(config: SiteConfig) -> str:
    """Which languages the theme ships, and what the site's ``language`` takes of them."""
    lang = site_language(config.root, config.language)
    took = f"its {lang.catalogue.replace('_', '-')} catalogue" if lang.catalogue else "English words"
    mine = f", with the site's own {lang.override.relative_to(config.root).as_posix()}" if lang.override else ""
    return (f"theme languages: {shipped_tags()} ship; site.yaml's language {config.language} takes {took}{mine}"
            f"{', right to left' if lang.direction == 'rtl' else ''}")


def _size_warnings(out: Path, name: str, host: str) -> list[str]:
    """The built site's size (logged), and the one message past its host's limits (generator.write.sitesize)."""
    warning = report(out, name=name, host=host)
    return [warning] if warning else []
