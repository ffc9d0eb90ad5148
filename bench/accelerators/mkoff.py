"""Make /tmp/off-NAME/generator: a copy of this checkout's generator/ with one accelerator switched
off (the smallest change that keeps the output the same), and write off-NAME.patch beside this file.

  python bench/accelerators/mkoff.py NAME [NAME...]    # or: all
Each edit is (file, old text, new text); the old text must occur exactly once."""
import shutil, subprocess, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent.parent / "generator"

EDITS = {
    # job digests: plain sequences encoded in Python, item by item, not by marshal in C
    "canonical": [("incremental/canonical.py",
                   '    types = set(map(type, v))\n    if all(issubclass(t, tuple)',
                   '    return None   # OFF: canonical\n    types = set(map(type, v))\n    if all(issubclass(t, tuple)')],
    # no search index started ahead in a forked process: the build's render pool makes it
    "early_index": [("build.py",
                     '    from generator.incremental.early_index import REBUILD_SHARE, EarlyIndex\n',
                     '    return None   # OFF: early_index\n    from generator.incremental.early_index import REBUILD_SHARE, EarlyIndex\n')],
    # subjects sorted, listings made anew every build
    "subject_order": [("build.py",
                       '    made = subjects(authors.authors, orders, tax, parsed)\n    listed = listings(authors.authors, orders, config.feed_size, parsed)\n',
                       '    made = subjects(authors.authors, orders, tax, None)   # OFF: subject_order\n    listed = listings(authors.authors, orders, config.feed_size, None)\n')],
    # every subject's and author's jobs digested read by read
    "subject_jobs": [("build.py",
                      '    kept = SubjectJobs.plan(site, digester, common, parsed) if parsed is not None and pages else None\n',
                      '    kept = None   # OFF: subject_jobs\n')],
    # the search index written whole (from the kept documents), never patched from the last one
    "search_patch": [("write/search.py", '    if kept is not None and out is not None:\n',
                      '    if False:   # OFF: search_patch\n'),
                     ("write/search.py", '    if kept is not None:\n        kept.keep(folder, keys, pages)\n',
                      '    pass   # OFF: search_patch (nothing kept to patch from)\n')],
    # no author's search documents taken from the last build: tokenized anew (the patch still runs)
    "search_kept": [("incremental/search_kept.py",
                     '        found = _entry(bucket, a.slug, self.keys[a.slug])\n',
                     '        found = None   # OFF: search_kept\n')],
    # both search accelerators: the plain path (no Kept, so no patch)
    "search_both": [("write/search.py",
                     '    kept = Kept.plan(site, made, digester, parsed) if digester is not None and parsed is not None else None\n',
                     '    kept = None   # OFF: search_kept + search_patch\n')],
    # over the index, no author's encoding or search key taken from it: every author digested by every plan
    "index_kept": [("render/digest.py", "        found = self._over[1].get(id(author))\n",
                    "        found = None   # OFF: index_kept\n")],
    # kept authors' records loaded whole (every field unpickled) as they load, not on first use
    "hollow": [("incremental/hollow.py",
                '    _HOLLOW.update(zip(map(id, records), repeat(_Author(records, rows, load))))\n    return records\n',
                '    _HOLLOW.update(zip(map(id, records), repeat(_Author(records, rows, load))))\n'
                '    fill([records])   # OFF: hollow\n    return records\n')],
    # the "nothing changed" check: a no-op build runs the whole pipeline (every job reused)
    "inputs_noop": [("build.py", "    if target is not None and not strict and reuse:\n",
                     "    if False:   # OFF: inputs (nothing-changed check)\n")],
    # inputs-stat.bin: every input file read and digested by every build (210 MB at 1,000 x 100)
    "inputs_stat": [("incremental/inputs.py", "    known = _StatCache(root, trust=reuse)\n",
                     "    known = _StatCache(root, trust=False)   # OFF: inputs (stat cache)\n")],
    # parsed author files: every author file parsed by every build, and no helper parsing ahead
    "parsed": [("config/authors.py", '        if self.parsed is None or b"photo" in data:',
                '        if True:   # OFF: parsed'),
               ("config/authors.py", "    with _helping(reader, names if helper and not unchanged else []):\n",
                "    with _helping(reader, []):   # OFF: parsed (its helper)\n")],
    # the forked parse helper of a cold build alone (the parsed cache kept)
    "parsed_helper": [("config/authors.py", "    with _helping(reader, names if helper and not unchanged else []):\n",
                       "    with _helping(reader, []):   # OFF: parsed helper\n")],
    # assembled authors: every author assembled from its cache files by every build (no part
    # kept or taken, so no hollow records either; no helper; no job digests kept per author)
    "snapshot": [("incremental/snapshot.py", "            hit = parsed.lookup(KIND, a.slug, key)\n",
                  "            hit = None   # OFF: snapshot\n"),
                 ("incremental/snapshot.py", "        helped = todo[len(todo) * _MAIN_SHARE // 100:] if workers > 1 and len(todo) >= _SHARE_FROM else []\n",
                  "        helped = []   # OFF: snapshot (its helper)\n"),
                 ("incremental/snapshot.py", "    a = part.author\n    where = {id(r): i for i, r in enumerate(a.records)}\n",
                  "    return   # OFF: snapshot (nothing kept)\n    a = part.author\n    where = {id(r): i for i, r in enumerate(a.records)}\n"),
                 ("incremental/snapshot.py", '    hit = parsed.lookup(DIGESTS, "site", b"") if parsed is not None else None\n',
                  '    hit = None   # OFF: snapshot (job digests)\n'),
                 ("incremental/snapshot.py", '        kept: dict[str, tuple[bytes, bytes, bytes, bytes]] = {}\n        for part, key in zip(self.parts, self.keys):\n',
                  '        return   # OFF: snapshot (job digests)\n        kept: dict[str, tuple[bytes, bytes, bytes, bytes]] = {}\n        for part, key in zip(self.parts, self.keys):\n')],
    # the forked assembling helper of a cold build alone (snapshot kept)
    "snapshot_share": [("incremental/snapshot.py", "        helped = todo[len(todo) * _MAIN_SHARE // 100:] if workers > 1 and len(todo) >= _SHARE_FROM else []\n",
                        "        helped = []   # OFF: snapshot helper\n")],
    # no helper linking the staging folder while the build loads: the build links it itself
    "prelink": [("build.py", "    return None if target is None else Prelink.start(root, target, workers)\n",
                 "    return None   # OFF: prelink\n")],
    # prelink and the output-spare: no helper, the previous build removed at the swap (not kept as
    # the next staging folder), no folders made ahead on a first build
    "prelink_all": [("build.py", "    return None if target is None else Prelink.start(root, target, workers)\n",
                     "    return None   # OFF: prelink\n"),
                    ("write/output.py", "    try:\n        shutil.rmtree(spare, ignore_errors=True)\n        spare.parent.mkdir(exist_ok=True)\n",
                     "    shutil.rmtree(tree, ignore_errors=True); return   # OFF: output-spare\n    try:\n        shutil.rmtree(spare, ignore_errors=True)\n        spare.parent.mkdir(exist_ok=True)\n"),
                    ("incremental/prelink.py", "        if workers < 2 or os.path.lexists(out_dir)",
                     "        if True or workers < 2 or os.path.lexists(out_dir)")],
}


def make(name: str) -> None:
    dest = Path(f"/tmp/off-{name}")
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(SRC, dest / "generator", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SRC.parent / "themes", dest / "themes")   # the built-in theme (paths.SOURCE_THEME) is beside the package
    for rel, old, new in EDITS[name]:
        p = dest / "generator" / rel
        text = p.read_text()
        assert text.count(old) == 1, (name, rel, text.count(old))
        p.write_text(text.replace(old, new))
    d = subprocess.run(["diff", "-ru", "-x", "__pycache__", "generator", str(dest / "generator")],
                       cwd=SRC.parent, capture_output=True, text=True).stdout
    d = d.replace(str(dest) + "/", "b/").replace("--- generator/", "--- a/generator/")
    (HERE / f"off-{name}.patch").write_text(d)
    print(name, "->", dest, f"({d.count(chr(10))} patch lines)")


if __name__ == "__main__":
    for n in (list(EDITS) if sys.argv[1:] == ["all"] else sys.argv[1:]):
        make(n)
