"""``authorsite deploy`` against a real S3 server (SeaweedFS on 127.0.0.1: conftest.s3), by the CLI.

Issue 44's acceptance 1 and 2: the demo deploys whole (same bytes, the right types), a second
deploy sends nothing, an author's edit sends exactly the files whose bytes changed, a removed
author's pages leave the bucket; a bucket that lost its manifest is compared by content; and
deploys killed by SIGKILL at ten points of a site-wide edit each leave no page in the bucket
linking to a missing object, the next deploy making the bucket equal to the build.
"""

from __future__ import annotations

import posixpath
import re
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from helpers import build, cli_command, copy_demo, tree_state

PREFIX = "lab/"
GITHUB_ONLY = {".nojekyll", "CNAME"}   # GitHub Pages' own files: never sent
STATE = ".authorsite/"                 # the deploy's manifest and journal, beside the site

# What each kind of file must be served as, written out here apart from generator.deploy.headers.
TYPES = {
    ".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml; charset=utf-8", ".png": "image/png",
    ".txt": "text/plain; charset=utf-8", ".bib": "application/x-bibtex; charset=utf-8",
    ".json": "application/json; charset=utf-8", ".xml": "application/xml; charset=utf-8",
}
NAMED = {"feed.xml": "application/atom+xml; charset=utf-8",
         "publications.json": "application/vnd.citationstyles.csl+json; charset=utf-8"}


def run_deploy(s3: Any, root: Path, bucket: str, *args: str) -> subprocess.CompletedProcess[str]:  # noqa: ANN401
    cmd = [*cli_command(), "-C", str(root), "deploy", "--to", f"s3://{bucket}/{PREFIX}", "--endpoint-url",
           s3.endpoint, "-v", *args]
    res = subprocess.run(cmd, capture_output=True, text=True, env=s3.env, timeout=600)
    assert res.returncode == 0, res.stderr
    return res


def sent(res: subprocess.CompletedProcess[str]) -> set[str]:
    return set(re.findall(r"^sent (\S+)$", res.stderr, re.M))


def output_files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.relative_to(out).as_posix() not in GITHUB_ONLY}


def bucket_keys(s3: Any, bucket: str) -> list[str]:  # noqa: ANN401
    pages = s3.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=PREFIX)
    return sorted(o["Key"][len(PREFIX):] for page in pages for o in page.get("Contents", ()))


def bucket_files(s3: Any, bucket: str) -> dict[str, tuple[bytes, str, str]]:  # noqa: ANN401
    """The site in the bucket: key -> (bytes, Content-Type, Cache-Control); the deploy's state left out."""
    client = s3.client()

    def get(key: str) -> tuple[bytes, str, str]:
        obj = client.get_object(Bucket=bucket, Key=PREFIX + key)
        return obj["Body"].read(), obj["ContentType"], obj.get("CacheControl", "")

    keys = [k for k in bucket_keys(s3, bucket) if not k.startswith(STATE)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        return dict(zip(keys, pool.map(get, keys)))


def assert_equal(s3: Any, bucket: str, out: Path) -> dict[str, tuple[bytes, str, str]]:  # noqa: ANN401
    held = bucket_files(s3, bucket)
    want = output_files(out)
    assert sorted(held) == sorted(want)
    assert [k for k in want if held[k][0] != want[k]] == []
    return held


def test_the_demo_deploys_whole_then_only_what_changed(s3: Any, tmp_path: Path) -> None:  # noqa: ANN401
    root = copy_demo(tmp_path / "site")
    out = build(root)
    bucket = s3.bucket()

    first = run_deploy(s3, root, bucket)
    held = assert_equal(s3, bucket, out)
    assert sent(first) == set(held)
    for key, (_, ctype, cache) in held.items():
        name = posixpath.basename(key)
        assert ctype == NAMED.get(name, TYPES[posixpath.splitext(name)[1]]), key
        digest_named = re.fullmatch(r"search/index/[td]/\d+-[0-9a-f]{12}\.json", key) is not None
        assert cache == ("public, max-age=31536000, immutable" if digest_named else "public, max-age=300"), key
    assert any(k.startswith("search/index/t/") for k in held)

    second = run_deploy(s3, root, bucket)
    assert sent(second) == set()
    assert re.search(r"deploy: sent 0 files \(0\.0 MB\), deleted 0, unchanged \d+", second.stderr)

    before = tree_state(out)
    path = root / "content" / "authors" / "jane-doe.yaml"
    path.write_text(path.read_text("utf-8").replace("role: Example author (fictional)",
                                                    "role: Visiting author (fictional)"), "utf-8")
    build(root)
    after = tree_state(out)
    changed = {k for k, v in after.items() if v != "dir" and before.get(k) != v} - GITHUB_ONLY
    assert changed and "authors/jane-doe/index.html" in changed
    third = run_deploy(s3, root, bucket)
    assert sent(third) == changed
    assert_equal(s3, bucket, out)

    (root / "content" / "authors" / "bingning-wang.yaml").unlink()
    build(root)
    fourth = run_deploy(s3, root, bucket)
    assert re.search(r"^deleted authors/bingning-wang/index\.html$", fourth.stderr, re.M)
    assert [k for k in bucket_keys(s3, bucket) if k.startswith("authors/bingning-wang/")] == []
    assert_equal(s3, bucket, out)
    assert sorted(k for k in bucket_keys(s3, bucket) if k.startswith(STATE)) == [
        ".authorsite/deploy-manifest.json.gz"]   # the journal is gone once a deploy ends


def test_a_bucket_without_its_manifest_is_compared_by_content(s3: Any, tmp_path: Path) -> None:  # noqa: ANN401
    root = copy_demo(tmp_path / "site")
    out = build(root)
    bucket = s3.bucket()
    run_deploy(s3, root, bucket)
    client = s3.client()
    client.delete_object(Bucket=bucket, Key=PREFIX + ".authorsite/deploy-manifest.json.gz")
    # what other tools left: a page overwritten (another size, no digest of ours), a file of someone
    # else's, a file of ours that the build no longer has (it carries our digest)
    client.put_object(Bucket=bucket, Key=PREFIX + "authors/jane-doe/index.html", Body=b"<p>old</p>")
    client.put_object(Bucket=bucket, Key=PREFIX + "notes/keep-me.txt", Body=b"not ours")
    client.put_object(Bucket=bucket, Key=PREFIX + "authors/gone/index.html", Body=b"<p>gone</p>",
                      Metadata={"sha256": "0" * 64})

    res = run_deploy(s3, root, bucket)
    assert sent(res) == {"authors/jane-doe/index.html"}
    assert re.findall(r"^deleted (\S+)$", res.stderr, re.M) == ["authors/gone/index.html"]
    assert "1 objects under the prefix that authorsite did not write were left alone" in res.stderr
    client.delete_object(Bucket=bucket, Key=PREFIX + "notes/keep-me.txt")
    assert_equal(s3, bucket, out)
    assert sent(run_deploy(s3, root, bucket)) == set()   # the manifest is back


# ----------------------------------------------------------------------------- killed deploys

class _Links(HTMLParser):
    """A page's href and src values, as check reads them (not a meta's, not the canonical link's)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" or (tag == "link" and a.get("rel") == "canonical"):
            return
        self.links += [v for k in ("href", "src") if (v := a.get(k))]


def dangling(held: dict[str, tuple[bytes, str, str]], base_url: str) -> list[str]:
    """Every link of a page in the bucket to an object of the site that the bucket does not hold."""
    base = urlsplit(base_url)
    broken = []
    for key, (body, ctype, _) in held.items():
        if not ctype.startswith("text/html"):
            continue
        parser = _Links()
        parser.feed(body.decode("utf-8"))
        page = base_url + (key[: -len("index.html")] if key.endswith("index.html") else key)
        for link in parser.links:
            target = urlsplit(urljoin(page, link))
            if target.netloc != base.netloc or not target.path.startswith(base.path):
                continue
            rel = unquote(target.path)[len(base.path):]
            if (rel + "index.html" if rel == "" or rel.endswith("/") else rel) not in held:
                broken.append(f"{key} -> {link}")
    return broken


def killed_deploy(s3: Any, root: Path, bucket: str, out: Path, after: int) -> int:  # noqa: ANN401
    """A deploy of ``out`` killed by SIGKILL once it has said it sent ``after`` files (0: once it
    has said what it will send); the number of files it said it sent."""
    cmd = [*cli_command(), "-C", str(root), "deploy", "--output", str(out), "--to", f"s3://{bucket}/{PREFIX}",
           "--endpoint-url", s3.endpoint, "--jobs", "4", "-v"]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=s3.env)
    count = 0
    assert proc.stderr is not None
    for line in proc.stderr:
        count += line.startswith("sent ")
        if (line.startswith("deploy: ") and after == 0) or (after and count >= after):
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, f"the deploy ended before it was killed ({count} sent)"
    return count


def test_deploys_killed_anywhere_leave_a_whole_site_and_the_next_finishes(s3: Any, tmp_path: Path) -> None:  # noqa: ANN401
    """The site's title changed (every page changes): ten deploys, each killed after a different
    number of files, alternately from one title to the other and back."""
    root = copy_demo(tmp_path / "site")
    outs = [build(root)]
    site = root / "site.yaml"
    site.write_text(site.read_text("utf-8").replace("title: Author profiles", "title: Profiles of the lab"), "utf-8")
    outs.append(build(root, out_dir=root / "output-b"))
    base_url = "https://example.github.io/authorsite/"
    assert base_url in (outs[0] / "index.html").read_text("utf-8")
    first = output_files(outs[0])
    changed = [k for k, v in output_files(outs[1]).items() if first.get(k) != v]
    assert len(changed) > 60
    bucket = s3.bucket()
    run_deploy(s3, root, bucket)   # the first title
    for point in range(10):
        out = outs[1 - point % 2]
        after = point * len(changed) // 10
        count = killed_deploy(s3, root, bucket, out, after)
        held = bucket_files(s3, bucket)
        assert dangling(held, base_url) == [], f"killed after {count} files"
        run_deploy(s3, root, bucket, "--output", str(out))
        assert_equal(s3, bucket, out)
        assert not [k for k in bucket_keys(s3, bucket) if "journal" in k]


# ----------------------------------------------------------------------------- the command's own errors

def _cli(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cli_command(), "-C", str(root), "deploy", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_the_target_from_site_yaml_and_the_errors_that_say_what_to_do(s3: Any, tmp_path: Path) -> None:  # noqa: ANN401
    root = copy_demo(tmp_path / "site")
    res = _cli(root, s3.env)
    assert res.returncode == 1 and "error: site.yaml: no deploy target" in res.stderr and "--to s3://" in res.stderr
    res = _cli(root, s3.env, "--to", f"s3://{s3.bucket()}/")
    assert res.returncode == 1 and "no finished build in" in res.stderr and "authorsite build" in res.stderr

    build(root)
    bucket = s3.bucket()
    site = root / "site.yaml"
    text = site.read_text("utf-8")
    site.write_text(text + f"deploy:\n  to: s3://{bucket}/lab/\n  endpoint_url: {s3.endpoint}\n  secret: x\n", "utf-8")
    res = _cli(root, s3.env)
    assert res.returncode == 1 and re.search(r"site\.yaml:\d+: unknown key 'deploy\.secret'", res.stderr), res.stderr
    site.write_text(text + f"deploy:\n  to: s3://{bucket}/lab/\n  endpoint_url: {s3.endpoint}\n", "utf-8")
    res = _cli(root, {k: v for k, v in s3.env.items() if not k.startswith("AWS_ACCESS") and "SECRET" not in k})
    assert res.returncode == 1 and "AWS_ACCESS_KEY_ID" in res.stderr, res.stderr
    res = _cli(root, s3.env, "--to", f"s3://no-such-bucket-{bucket}/")
    assert res.returncode == 1 and "NoSuchBucket" in res.stderr and "create the bucket" in res.stderr, res.stderr
    res = _cli(root, s3.env, "--dry-run")
    assert res.returncode == 0 and "would send" in res.stderr and bucket_keys(s3, bucket) == []
    res = _cli(root, s3.env)
    assert res.returncode == 0, res.stderr
    assert_equal(s3, bucket, root / "output")
