"""What the bucket holds of the build, by content: from its deploy manifest, else by listing it once.

With a manifest (the usual case) the bucket costs two GETs: the manifest and the journal (absent
unless a deploy stopped half way). The keys a stopped deploy's journal names are asked for by a
HEAD each, since each may hold the old bytes or the new: the digest we store with every object
(``x-amz-meta-sha256``) says which, without downloading it.

Without one (a first deploy, or someone deleted it) the bucket is listed (1,000 keys a request),
and each object is compared by content once: a key the build has, of the same size, by a HEAD
for its stored digest (an object another tool wrote has none: it is sent again); of another
size it is sent without asking. A key the build has not is deleted only when it carries our
digest (a deploy wrote it); anything else under the prefix is left alone and counted.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Mapping

from generator.deploy.headers import RULES
from generator.deploy.local import LocalFile
from generator.deploy.plan import UNKNOWN
from generator.deploy.remote import Bucket
from generator.deploy.state import JOURNAL, MANIFEST, OURS, remote_state

STALE = "-"   # a digest no file has: the object is sent again (another size, or older headers' rules)


@dataclass(frozen=True, slots=True)
class Bucketed:
    """The bucket's side of a deploy."""

    files: dict[str, str]      # key -> digest of ours in the bucket (STALE: to send again)
    current: bool              # the manifest is there, under today's headers' rules, with no journal
    foreign: int = 0           # objects under the prefix that no deploy of ours wrote (left alone)
    asked: int = 0             # HEAD requests made


def bucketed(bucket: Bucket, local: Mapping[str, LocalFile], workers: int) -> Bucketed:
    """The bucket's key -> digest for comparing with ``local``."""
    state = remote_state(bucket.get(MANIFEST), bucket.get(JOURNAL), UNKNOWN)
    if state is None:
        return _by_listing(bucket, local, workers)
    files = dict(state.files)
    if state.rules != RULES:   # sent under other headers: every file again
        return Bucketed({k: STALE for k in files}, False)
    unknown = [k for k, d in files.items() if d == UNKNOWN and k in local]
    found = _ask(bucket, unknown, workers)
    for key in unknown:
        files[key] = found[key] or STALE
    return Bucketed(files, not state.journal, asked=len(unknown))


def _ask(bucket: Bucket, keys: list[str], workers: int) -> dict[str, str | None]:
    """Each key's stored digest by a HEAD ("" for an object without one, None for no object)."""
    if not keys:
        return {}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return dict(zip(keys, pool.map(bucket.digest, keys)))


def _by_listing(bucket: Bucket, local: Mapping[str, LocalFile], workers: int) -> Bucketed:
    listed = [o for o in bucket.listing() if o.key not in OURS and o.key]
    files: dict[str, str] = {}
    ask: list[str] = []
    for obj in listed:
        mine = local.get(obj.key)
        if mine is not None and mine.size != obj.size:
            files[obj.key] = STALE
        else:
            ask.append(obj.key)
    found = _ask(bucket, ask, workers)
    foreign = 0
    for key in ask:
        digest = found[key]
        if key in local:
            files[key] = digest or STALE
        elif digest:
            files[key] = digest    # ours, gone from the build: deleted
        elif digest == "":
            foreign += 1
    return Bucketed(files, False, foreign, len(ask))
