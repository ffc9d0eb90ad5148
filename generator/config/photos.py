"""An author's ``photo:``: an image file under content/, checked and measured when the site is loaded.

The page writes the photo's width and height into its ``<img>`` so the layout does not move
while it loads; Pillow reads them from the file's header (it never decodes the whole image
here). Everything about the file is refused with the author file's line and key: a path
leaving content/ (absolute, '..', a symbolic link out), a missing file, a file that is not a
PNG, JPEG, WebP or GIF image (SVG is refused: it can carry scripts), a file over
``MAX_BYTES`` and an image over ``MAX_SIDE`` pixels a side (a decompression bomb).
"""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path


from generator.config.check import Checker
from generator.core.model import Photo

MAX_BYTES = 5_000_000
MAX_SIDE = 4000
FORMATS = {"PNG": ".png", "JPEG": ".jpg", "WEBP": ".webp", "GIF": ".gif"}


def read_photo(ck: Checker, root: Path, value: str | None, line: int | None) -> Photo | None:
    """The photo ``value`` names (a path under content/), or None with the problem recorded."""
    if value is None:
        return None
    content = (root / "content").resolve()
    try:
        path = (content / value).resolve()
    except (OSError, ValueError, RuntimeError):
        path = None
    if path is None or Path(value).is_absolute() or not path.is_relative_to(content):
        ck.err(line, f"'photo' must be a path to an image inside content/, such as photos/jane-doe.jpg, "
                     f"found {value!r}; copy the image into content/ and name it from there")
        return None
    if not path.is_file():
        ck.err(line, f"'photo': no file content/{value}; put the image there or correct the path")
        return None
    size = path.stat().st_size
    if size > MAX_BYTES:
        ck.err(line, f"'photo': content/{value} is {size:,} bytes, more than {MAX_BYTES:,}; a photo is shown "
                     f"small, so resize it (for example to 400 pixels wide)")
        return None
    data = path.read_bytes()
    return _measured(ck, value, line, path, data, path.relative_to(root.resolve()).as_posix())


def _measured(ck: Checker, value: str, line: int | None, path: Path, data: bytes, source: str) -> Photo | None:
    """The photo with its format checked and its size read, or None with the problem recorded.
    (Pillow is imported here, by the first photo read: 15 ms a build that reads none.)"""
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as img:
                fmt, (width, height) = img.format, img.size
                img.verify()
    except (UnidentifiedImageError, Image.DecompressionBombError, Image.DecompressionBombWarning,
            OSError, SyntaxError, ValueError) as exc:
        ck.err(line, f"'photo': content/{value} is not a readable PNG, JPEG, WebP or GIF image "
                     f"({type(exc).__name__}); export the photo again in one of these formats")
        return None
    if fmt not in FORMATS:
        ck.err(line, f"'photo': content/{value} is a {fmt} image; use a PNG, JPEG, WebP or GIF file")
        return None
    if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
        ck.err(line, f"'photo': content/{value} is {width}x{height} pixels, more than {MAX_SIDE} a side; "
                     f"resize it (a photo is shown small)")
        return None
    digest = hashlib.sha256(data).hexdigest()
    return Photo(source=source, digest=digest, suffix=FORMATS[fmt], width=width, height=height)
