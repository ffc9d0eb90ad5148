"""``authorsite serve``: build into a temporary folder and preview it on 127.0.0.1.

The preview is built with base_url set to the server's own address, so links work
locally whatever site.yaml says; output/ is not touched. This is the static
preview; live reload is added on top of it.
"""

from __future__ import annotations

import functools
import logging
import tempfile
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from generator.build import build

log = logging.getLogger(__name__)


def serve(root: Path, host: str = "127.0.0.1", port: int = 8000) -> None:
    with tempfile.TemporaryDirectory(prefix="authorsite-serve-") as tmp:
        out = Path(tmp) / "site"
        handler = functools.partial(SimpleHTTPRequestHandler, directory=str(out))
        server = ThreadingHTTPServer((host, port), handler)
        url = f"http://{host}:{server.server_port}/"
        res = build(root, base_url=url, out_dir=out)
        log.info("built %d files; serving %s (Ctrl-C to stop)", res.files, url)
        try:
            server.serve_forever()
        finally:
            server.server_close()
