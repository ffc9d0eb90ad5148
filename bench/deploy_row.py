#!/usr/bin/env python3
"""The bench row "deploy": the bench site sent to a real S3 server on 127.0.0.1, then one author's edit.

  python bench/deploy_row.py [--authors 1000] [--records 100] [--seed 1] [--jobs 8]

Issue 44 (acceptance 3): the corpus of bench/run.py (made or reused the same way, without its
Hugo site) is copied (cache files hard-linked), built for ``host: s3`` (whose default puts the
paper pages on, which is what the acceptance asks of that host), and deployed by the real CLI
to SeaweedFS (tests/deploy/seaweed.py: ``weed`` from the test extra) into a new bucket; then one
author's affiliation is edited, the site rebuilt and deployed again. The row: for each
deploy, files sent, MB sent and seconds (wall, the child process); and the check that the second
deploy sent no more files than the rebuild changed (output files whose bytes differ, counted
here by digest). Loopback, so the seconds measure our side and the server, not a network.
JSON in benchmark-results/deploy-<timestamp>.json. ``--keep DIR`` leaves the built site (after the
edit) in DIR, for checks of its output (bench/sitemap_check.py) without another cold build.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE), str(REPO / "tests" / "deploy")]

SUMMARY = re.compile(r"deploy: sent ([\d,]+) files \(([\d.]+) MB\), deleted ([\d,]+), unchanged ([\d,]+), ([\d.]+) s")


def _copy(site: Path, dest: Path) -> None:
    """The corpus site for ``host: s3``, papers left to that host's default (on); the cache
    hard-linked (a build never writes it)."""
    dest.mkdir(parents=True)
    text = (site / "site.yaml").read_text("utf-8")
    text = re.sub(r"(?m)^(papers|host):.*\n", "", text)
    (dest / "site.yaml").write_text(text.rstrip("\n") + "\nhost: s3\n", "utf-8")
    shutil.copytree(site / "content" / "authors", dest / "content" / "authors")
    shutil.copytree(site / "content" / "cache", dest / "content" / "cache", copy_function=os.link)


def _digests(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in out.rglob("*") if p.is_file()}


def _cli(site: Path, env: dict[str, str], *args: str) -> tuple[float, str]:
    script = Path(sys.executable).with_name("authorsite")
    cmd = [str(script)] if script.is_file() else [sys.executable, "-m", "generator"]
    t0 = time.perf_counter()
    proc = subprocess.run([*cmd, "-C", str(site), *args], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"error: authorsite {' '.join(args)} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return wall, proc.stderr


def _deployed(label: str, wall: float, stderr: str) -> dict[str, Any]:
    found = SUMMARY.findall(stderr)
    if not found:
        sys.exit(f"error: no summary line in the deploy's output:\n{stderr[-2000:]}")
    sent, mb, deleted, unchanged, _ = found[-1]
    return {"label": label, "files": int(sent.replace(",", "")), "mb": float(mb),
            "deleted": int(deleted.replace(",", "")), "unchanged": int(unchanged.replace(",", "")), "wall": wall}


def _edit_author(site: Path) -> str:
    files = sorted((site / "content" / "authors").glob("*.yaml"))
    path = files[len(files) // 2]
    text = path.read_text("utf-8")
    edited, n = re.subn(r"(?m)^affiliation: '(.*)'$", r"affiliation: '\1 (bench edit)'", text, count=1)
    if not n:
        sys.exit(f"error: no affiliation line in {path}")
    path.write_text(edited, "utf-8")
    return path.stem


def deploy_row(site: Path, scratch_parent: Path, jobs: int = 8, keep: Path | None = None) -> dict[str, Any]:
    from seaweed import seaweed

    scratch = Path(tempfile.mkdtemp(prefix="deploy-", dir=scratch_parent))
    try:
        copy = scratch / "site"
        _copy(site, copy)
        with seaweed(scratch / "seaweedfs") as s3:
            env = dict(s3.env)
            build_cold, _ = _cli(copy, env, "-q", "build")
            out = copy / "output"
            bucket = s3.bucket()
            to = ["deploy", "--to", f"s3://{bucket}/", "--endpoint-url", s3.endpoint, "--jobs", str(jobs)]
            first = _deployed("first deploy", *_cli(copy, env, *to))
            before = _digests(out)
            slug = _edit_author(copy)
            build_author, _ = _cli(copy, env, "-q", "build")
            after = _digests(out)
            changed = sorted(k for k, d in after.items() if before.get(k) != d and k not in (".nojekyll", "CNAME"))
            gone = sorted(set(before) - set(after))
            second = _deployed(f"deploy after one author's edit ({slug})", *_cli(copy, env, *to))
        if not (out / "papers").is_dir():
            sys.exit(f"error: the host: s3 build of {copy} has no paper pages (papers/)")
        if keep is not None:
            shutil.rmtree(keep, ignore_errors=True)
            shutil.move(copy, keep)
            out = keep / "output"
        size = sum((out / k).stat().st_size for k in after)
        return {"site_files": len(after), "site_mb": size / 1e6, "build_cold": build_cold,
                "build_author": build_author, "first": first, "second": second, "changed_files": len(changed),
                "gone_files": len(gone), "target_met": second["files"] <= len(changed) and second["deleted"] <= len(gone),
                "changed_sample": changed[:10]}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def print_row(row: dict[str, Any]) -> None:
    print(f"site: {row['site_files']:,} files, {row['site_mb']:,.1f} MB (paper pages on); cold build "
          f"{row['build_cold']:.1f} s, rebuild after the edit {row['build_author']:.1f} s")
    for d in (row["first"], row["second"]):
        print(f"  {d['label']}: {d['files']:,} files, {d['mb']:,.1f} MB, deleted {d['deleted']:,}, "
              f"unchanged {d['unchanged']:,}, {d['wall']:.1f} s")
    print(f"  the rebuild changed {row['changed_files']:,} files ({row['gone_files']} gone); the deploy sent "
          f"{row['second']['files']:,}: {'met' if row['target_met'] else 'MISSED'} (no more than the rebuild changed)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1] if __doc__ else None)
    ap.add_argument("--authors", type=int, default=1000)
    ap.add_argument("--records", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--force", action="store_true", help="make the corpus anew")
    ap.add_argument("--keep", type=Path, help="leave the built site (after the edit) in this folder")
    args = ap.parse_args(argv)
    from run import RESULTS, prepare_corpus

    corpus = prepare_corpus(args.authors, args.records, args.seed, args.force, hugo=False)
    row = deploy_row(corpus.site, corpus.dir, args.jobs, args.keep.resolve() if args.keep else None)
    row["params"] = {**vars(args), "keep": str(args.keep) if args.keep else None}
    print_row(row)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"deploy-{stamp}.json").write_text(json.dumps(row, indent=1) + "\n", "utf-8")
    return 0 if row["target_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
