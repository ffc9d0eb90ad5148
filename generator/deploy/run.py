"""``authorsite deploy``: the built site to a bucket, only what changed, in an order that keeps it whole.

1. Read the build (generator.deploy.local): refuse a folder that is not a finished build.
2. Read the bucket (generator.deploy.compare): its manifest, else a listing compared by content.
3. The difference (generator.deploy.plan.diff); nothing to do: no request more.
4. The journal (the keys about to change), then the files in waves, leaves first and the home
   page last (generator.deploy.plan.send_waves), each wave's files at once.
5. The new manifest, then the deletions (plan.delete_waves), then the journal removed.

A deploy stopped anywhere (killed, the network gone) leaves every page in the bucket linking
only to objects that are there, and a journal from which the next deploy finishes the job.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from generator.core.files import build_lock
from generator.deploy.compare import bucketed
from generator.deploy.headers import RULES, headers
from generator.deploy.local import LocalFile, finished_build, links_of, scan
from generator.deploy.plan import Diff, delete_waves, diff, is_page, send_waves
from generator.deploy.progress import Progress
from generator.deploy.remote import Bucket
from generator.deploy.state import JOURNAL, MANIFEST, journal_bytes, manifest_bytes
from generator.deploy.target import Target

log = logging.getLogger("generator")
_STATE_HEADERS = ("application/gzip", "no-store")


@dataclass(frozen=True, slots=True)
class DeployResult:
    sent: int
    deleted: int
    unchanged: int
    bytes_sent: int
    seconds: float
    foreign: int = 0       # objects under the prefix that no deploy wrote, left alone
    dry_run: bool = False

    def summary(self) -> str:
        verb = "would send" if self.dry_run else "sent"
        line = (f"deploy: {verb} {self.sent:,} files ({self.bytes_sent / 1e6:.1f} MB), "
                f"{'would delete' if self.dry_run else 'deleted'} {self.deleted:,}, unchanged {self.unchanged:,}, "
                f"{self.seconds:.1f} s")
        return line + (f"; {self.foreign:,} objects under the prefix that authorsite did not write were left alone"
                       if self.foreign else "")


def deploy(root: Path, out_dir: Path, target: Target, hosts: frozenset[str] = frozenset(), workers: int = 8,
           dry_run: bool = False) -> DeployResult:
    """Send the build in ``out_dir`` to ``target`` (see the module's docstring)."""
    started = time.monotonic()
    with build_lock(root), build_lock(root, "deploy"):   # no build swaps output/ under a deploy
        finished_build(root, out_dir)
        local = scan(out_dir)
        bucket = Bucket(target, workers)
        remote = bucketed(bucket, local, workers)
        change = diff({k: f.digest for k, f in local.items()}, remote.files)
        size = sum(local[k].size for k in change.send)
        log.info("deploy: %s files in %s, %s to send (%.1f MB), %s to delete", f"{len(local):,}", out_dir,
                 f"{len(change.send):,}", size / 1e6, f"{len(change.delete):,}")

        def result(dry: bool = False) -> DeployResult:
            return DeployResult(len(change.send), len(change.delete), len(change.unchanged), size,
                                time.monotonic() - started, remote.foreign, dry)

        if dry_run:
            return result(True)
        if not change.send and not change.delete and remote.current:
            return result()
        _apply(bucket, out_dir, local, change, hosts, workers)
    return result()


def _apply(bucket: Bucket, out_dir: Path, local: Mapping[str, LocalFile], change: Diff, hosts: frozenset[str],
           workers: int) -> None:
    """Journal, files, manifest, deletions, journal gone: the order that keeps the site whole."""
    if change.send or change.delete:
        bucket.put(JOURNAL, journal_bytes(change.send + change.delete), *_STATE_HEADERS)
    links = links_of(out_dir, [k for k in change.send if is_page(k)], local, hosts)
    waves = send_waves(change.send, links)
    log.debug("deploy: %d waves: %s", len(waves), ", ".join(str(len(w)) for w in waves))
    progress = Progress(len(change.send), sum(local[k].size for k in change.send))
    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for wave in waves:   # a wave starts when the one before it has landed
                jobs = [pool.submit(_send, bucket, out_dir, local[k], progress) for k in wave]
                done, _ = wait(jobs, return_when=FIRST_EXCEPTION)
                for job in jobs:
                    if job in done and job.exception() is not None:
                        for other in jobs:
                            other.cancel()
                        raise job.exception()   # type: ignore[misc]
                for job in jobs:
                    job.result()
    finally:
        progress.close()
    bucket.put(MANIFEST, manifest_bytes({k: f.digest for k, f in local.items()}, RULES), *_STATE_HEADERS)
    for wave in delete_waves(change.delete):
        bucket.delete(list(wave))
        for key in wave:
            log.debug("deleted %s", key)
    bucket.delete([JOURNAL])


def _send(bucket: Bucket, out_dir: Path, file: LocalFile, progress: Progress) -> None:
    body = (out_dir / file.key).read_bytes()
    content_type, cache_control = headers(file.key)
    bucket.put(file.key, body, content_type, cache_control, file.digest)
    progress.sent(file.key, file.size)
