"""Where the package's own files are (kept import-light: the 'nothing changed' check uses it)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
SOURCE_THEME = PACKAGE.parent / "themes" / "default"
# site.yaml's output_dir default: here, not in the config schema that declares it, because the
# 'nothing changed' check must find the output folder before importing the config package.
DEFAULT_OUTPUT_DIR = "output"


def builtin_theme_dir() -> Path:
    """The default theme shipped with the package: generator/_theme in a wheel, else the
    source tree's themes/default (editable installs and checkouts)."""
    packaged = PACKAGE / "_theme"
    return packaged if packaged.is_dir() else SOURCE_THEME
