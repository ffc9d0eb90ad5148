"""Where the package's own files are, and the folders a build makes beside the output or in the
site's tool folder ``.authorsite/`` (kept import-light: the 'nothing changed' check uses it)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
SOURCE_THEME = PACKAGE.parent / "themes" / "default"
# site.yaml's output_dir default: here, not in the config schema that declares it, because the
# 'nothing changed' check must find the output folder before importing the config package.
DEFAULT_OUTPUT_DIR = "output"
TOOL_DIR = ".authorsite"  # the site's own folder of what builds keep (manifests, parsed inputs, locks, the spare)
# The feeds' memory of the entry ids they published (generator.assemble.feed_ids): an input the build itself writes.
FEED_MEMORY = Path("content") / "cache" / "feed-ids.json"


def builtin_theme_dir() -> Path:
    """The default theme shipped with the package: generator/_theme in a wheel, else the
    source tree's themes/default (editable installs and checkouts)."""
    packaged = PACKAGE / "_theme"
    return packaged if packaged.is_dir() else SOURCE_THEME


def staging_dir(out_dir: Path) -> Path:
    # Distinctive names: recover() deletes these, so they must never be a user's own folder.
    return out_dir.with_name(f"{out_dir.name}.authorsite-staging")


def old_dir(out_dir: Path) -> Path:
    return out_dir.with_name(f"{out_dir.name}.authorsite-old")


def spare_dir(out_dir: Path) -> Path:
    """The folders of the previous build, without its files: the next build's staging folder.
    Kept in the site's tool folder (``.authorsite/output-spare/``) when the output is a folder
    of the site (the usual ``output/``: then on its file system, as a rename needs), so the site
    folder holds nothing more after a build; else (``serve``'s, ``--output`` elsewhere) a hidden
    sibling of the output."""
    tool = out_dir.parent / TOOL_DIR
    if (out_dir.parent / "site.yaml").is_file() and not tool.is_symlink():
        return tool / f"{out_dir.name}-spare"
    return legacy_spare_dir(out_dir)


def legacy_spare_dir(out_dir: Path) -> Path:
    """Where builds kept the spare beside the output before it moved into ``.authorsite/``."""
    return out_dir.with_name(f".{out_dir.name}.authorsite-spare")


def lock_path(root: Path, what: str = "build") -> Path:
    """The lock file of a build (or a fetch) of the site at ``root``, in its tool folder."""
    return root / TOOL_DIR / f"{what}.lock"
