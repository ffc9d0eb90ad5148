"""The preview's reload: which open page must reload after an update, and the script that asks.

Every open page runs a small script, injected into HTML *responses* only (never into files),
that long-polls ``/__livereload/<epoch>?page=<its output path>`` and reloads when told (as
MkDocs does, with the page's own file added). Each publish is a new epoch. A page is told to
reload when its own file has changed since the epoch it was read at, or when every page may
have (a new folder, an error shown or fixed), and no sooner: an edit that writes an author's
page, then the home page, reloads each page once. A page that is not a file of the site (the
error page, 404), or a poll without ``page``, reloads on any new epoch.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Collection

_SCRIPT = """<script>
(function () {
  var epoch = "%s";
  var page = %s;
  function poll() {
    var query = page === null ? "" : "?page=" + encodeURIComponent(page);
    fetch("/__livereload/" + epoch + query, {cache: "no-store"}).then(function (r) { return r.text(); })
      .then(function (t) {
        if (t === "reload" || (page === null && t !== epoch)) { location.reload(); } else { epoch = t; poll(); }
      })
      .catch(function () { setTimeout(poll, 1000); });
  }
  poll();
})();
</script>"""


class PreviewState:
    """What the server shows: the build folder, the reload epoch, the last error, and the epoch
    each output last changed at (``changed``; ``every``: the last change to every page)."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.epoch = 0
        self.error: str | None = None
        self.cond = threading.Condition()
        self.last_request = 0.0          # time.monotonic() of the last request answered
        self.changed: dict[str, int] = {}   # output path -> the epoch it last changed at
        self.every = 0                   # the epoch of the last change to every page
        self._polls = 0                  # long polls started
        self._waiting: dict[int, tuple[int, str | None]] = {}   # the polls waiting: (epoch, page)
        self._told = self._polls_then = 0   # pages the last publish told to reload; polls started before

    def wait_quiet(self, quiet: float, limit: float) -> None:
        """Wait until no request came for ``quiet`` seconds (at most ``limit``): the pages that
        reload after an edit are served before the search index is planned and built."""
        deadline = time.monotonic() + limit
        while (now := time.monotonic()) < deadline and now - self.last_request < quiet:
            time.sleep(min(quiet, deadline - now))

    def publish(self, error: str | None, paths: Collection[str] | None = None) -> int:
        """A new epoch: ``paths`` (output paths) changed, or every page (None). Returns how many
        open pages are told to reload."""
        with self.cond:
            self.epoch += 1
            if paths is None or error is not None or self.error is not None:
                self.every = self.epoch
            else:
                for rel in paths:
                    self.changed[rel] = self.epoch
            self.error = error
            self._told = sum(1 for epoch, page in self._waiting.values() if self._must(epoch, page))
            self._polls_then = self._polls
            self.cond.notify_all()
            return self._told

    def wait_reloaded(self, limit: float) -> None:
        """Wait until as many pages as the last publish told to reload have polled again (a page's
        script polls once the page is parsed and its style sheets loaded), at most ``limit`` seconds:
        the rest of an update waits for the reloaded page, not the page for the rest."""
        with self.cond:
            self.cond.wait_for(lambda: self._polls - self._polls_then >= self._told, timeout=limit)

    def wait_past(self, epoch: int, timeout: float, page: str | None = None) -> tuple[int, bool]:
        """(the epoch now, whether the page served at ``epoch`` must reload), once it must or
        after ``timeout`` seconds. ``page``: its output path, None for any new epoch."""
        with self.cond:
            token = self._polls = self._polls + 1
            self._waiting[token] = (epoch, page)
            self.cond.notify_all()
            try:
                must = self.cond.wait_for(lambda: self._must(epoch, page), timeout=timeout)
            finally:
                del self._waiting[token]
            return self.epoch, must

    def _must(self, epoch: int, page: str | None) -> bool:
        if page is None or epoch > self.epoch:      # a page from before serve restarted
            return self.epoch != epoch
        return self.every > epoch or self.changed.get(page, 0) > epoch


def inject(data: bytes, epoch: int, page: str | None = None) -> bytes:
    """An HTML page with the reload script, told the epoch the page was read at and its output
    path (None: not a file of the site, such as the error page)."""
    name = "null" if page is None else json.dumps(page).replace("<", "\\u003c")
    script = (_SCRIPT % (epoch, name)).encode()
    idx = data.rfind(b"</body>")
    return data[:idx] + script + data[idx:] if idx >= 0 else data + script
