"""One accelerator ON (this checkout's code) vs OFF (/tmp/off-NAME, made by mkoff.py), at 1,000 x 100.

Extends /work/runs/ab.py (old vs new code by PYTHONPATH, interleaved, medians, same bytes checked)
with the rows each accelerator is meant to save on:

  cold    a first build of a fresh copy of the inputs
  author  one author's affiliation edited (a different author each repeat)
  record  one cached record's title edited (a record only that author lists, written with
          generator.store.cache, as bench/run.py's "ours record")
  ci      a fresh clone of the variant's own site with output/ and .authorsite/ restored (cp -a)
          and 10 records changed in 10 authors' cache files (bench/ci_row.py), then the build
  noop    the build again, nothing changed

Each variant rebuilds its own copy of a built site (BASE, copied with cp -a; one untimed warm-up
build each, so the OFF code's state is its own), repeats alternate which variant goes first, and
after each row the two outputs must be the same bytes (cold and ci: the two builds of that row).
The load average (/proc/loadavg, 1 min) is recorded before every timed build.

  python bench/accelerators/measure.py NAME --rows author,record,noop --reps 5 [--cold-reps 3]
"""
import argparse, json, os, re, resource, shutil, statistics, subprocess, sys, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ON = str(HERE.parent.parent)
SRC = Path("/work/main/benchmark-results/corpus-a1000-r100-s1")
BASE = Path(os.environ.get("ACC_BASE", "/tmp/acc/base"))   # SRC's inputs built (and rebuilt once) by ON
PY = "/work/main/.venv/bin/python"
WORK = Path("/tmp/acc")

sys.path[:0] = [ON, "/work/main/bench"]
from ci_row import change_records, edit_targets, fresh_clone  # noqa: E402


def load() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def build(code: str, site: Path) -> float:
    """Wall seconds; the CPU seconds (user + system, the build and the processes it waited for)
    go to CPU[-1]: on 2 cores shared with other agents (load 8-10) wall times swing by seconds."""
    env = dict(os.environ, PYTHONPATH=code)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    # cwd="/": with `python -m`, the current folder comes before PYTHONPATH on sys.path, so run from
    # this checkout both variants would run ON's code (the first run of this script did: an A/A test)
    r = subprocess.run([PY, "-m", "generator", "-C", str(site), "-v", "build"], env=env, capture_output=True, text=True, cwd="/")
    dt = time.perf_counter() - t
    STAGES.append({m.group(1).split(" (")[0]: float(m.group(2)) for m in re.finditer(
        r"^.*?\s{2}(load config|read cache \(.*?\)|assemble|plan jobs|run jobs \(.*?\)|swap|check inputs)\s+(\d+\.\d+) s$",
        r.stderr + r.stdout, re.M)})
    LAST_LOG[code] = [l for l in r.stderr.splitlines() if re.search(
        r"kept from the last build|never read here|hollow records filled|rendering \d+ of|parsed inputs:|search index|staging ready|nothing changed|early", l)]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if r.returncode:
        sys.exit(f"{code} {site}: {r.stderr[-2000:]}")
    return dt


CPU: list[float] = []
LAST_LOG: dict[str, list[str]] = {}   # per code: the telling debug lines of its last build
STAGES: list[dict[str, float]] = []   # the build's own clock (-v), per stage, wall seconds


def same(a: Path, b: Path) -> bool:
    d = subprocess.run(["diff", "-rq", str(a), str(b)], capture_output=True, text=True)
    if d.stdout or d.returncode:
        print("  DIFFER:", d.stdout[:600], d.stderr[:300], flush=True)
    return not d.stdout and d.returncode == 0


def edit_author(site: Path, i: int, authors: list[str]) -> None:
    f = site / "content" / "authors" / authors[(i * 7 + 3) % len(authors)]
    s = re.sub(r"affiliation: '([^']*)'", lambda m: f"affiliation: '{m.group(1)} (m{i})'", f.read_text(), count=1)
    f.write_text(s)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("name", help="one NAME or several, comma-separated (each /tmp/off-NAME)")
    ap.add_argument("--rows", default="author,record,noop")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cold-reps", type=int, default=3)
    ap.add_argument("--ci-reps", type=int, default=3)
    args = ap.parse_args()
    variants = {"on": ON, **{n: f"/tmp/off-{n}" for n in args.name.split(",")}}
    rows = args.rows.split(",")
    res: dict[str, dict[str, list[float]]] = {v: {r: [] for r in rows} for v in variants}
    cpu: dict[str, dict[str, list[float]]] = {v: {r: [] for r in rows} for v in variants}
    stages: dict[str, dict[str, list[dict[str, float]]]] = {v: {r: [] for r in rows} for v in variants}
    loads: dict[str, list[float]] = {r: [] for r in rows}
    same_bytes: dict[str, bool] = {}
    order = lambda i: list(variants)[i % len(variants):] + list(variants)[:i % len(variants)]   # noqa: E731 - rotated
    started = time.time()

    if "cold" in rows:
        ok = True
        for i in range(args.cold_reps):
            for v in order(i):
                site = WORK / f"cold-{v}"
                shutil.rmtree(site, ignore_errors=True); site.mkdir(parents=True)
                shutil.copy(SRC / "site" / "site.yaml", site); shutil.copytree(SRC / "site" / "content", site / "content")
                subprocess.run(["sync"])
                loads["cold"].append(load())
                res[v]["cold"].append(build(variants[v], site)); cpu[v]["cold"].append(CPU[-1]); stages[v]["cold"].append(STAGES[-1])
                print(f"  cold {v} {res[v]['cold'][-1]:.2f} cpu {cpu[v]['cold'][-1]:.2f} (load {loads['cold'][-1]})", flush=True)
            ok &= all(same(WORK / "cold-on" / "output", WORK / f"cold-{v}" / "output") for v in list(variants)[1:])
        same_bytes["cold"] = ok
        for v in variants:
            shutil.rmtree(WORK / f"cold-{v}", ignore_errors=True)

    inc = [r for r in rows if r != "cold"]
    if inc:
        sites = {v: WORK / v for v in variants}
        for v, site in sites.items():
            shutil.rmtree(site, ignore_errors=True)
            # the inputs and .authorsite/ copied, output/ hard-linked (a build never writes into a file it
            # did not make: it links, renames and unlinks), to spare 1 GB of copying per variant
            site.mkdir()
            subprocess.run(["cp", "-a", str(BASE / "site.yaml"), str(BASE / "content"), str(BASE / ".authorsite"), str(site)], check=True)
            subprocess.run(["cp", "-al", str(BASE / "output"), str(site)], check=True)
        targets = edit_targets(SRC / "corpus", SRC / "site")   # ((cache file rel. to the site, key), ...) x 10
        authors = sorted(p.name for p in (BASE / "content" / "authors").glob("*.yaml"))
        for v, site in sites.items():   # warm-up: each variant's own state (untimed)
            edit_author(site, 999, authors)
            print(f"  warm-up {v} {build(variants[v], site):.2f}", flush=True)
        for row in [r for r in inc if r != "ci"]:
            for i in range(args.reps):
                for v in order(i):
                    site = sites[v]
                    if row == "author":
                        edit_author(site, i, authors)
                    elif row == "record":
                        change_records(site, (targets[i % len(targets)],))
                    loads[row].append(load())
                    res[v][row].append(build(variants[v], site)); cpu[v][row].append(CPU[-1]); stages[v][row].append(STAGES[-1])
                print(f"  {row} {i}: " + " ".join(f"{v} {res[v][row][-1]:.2f} (cpu {cpu[v][row][-1]:.2f})" for v in variants)
                      + f" (load {loads[row][-1]})", flush=True)
        for v in list(variants)[1:]:   # once all rows are done: the last build of each row is checked in the log
            same_bytes[v] = same(sites["on"] / "output", sites[v] / "output")
        if "ci" in rows:
            ok = True
            for i in range(args.ci_reps):
                for v in order(i):
                    clone = WORK / f"ci-{v}"
                    shutil.rmtree(clone, ignore_errors=True)
                    fresh_clone(sites[v], clone)
                    change_records(clone, targets)
                    subprocess.run(["sync"])
                    loads["ci"].append(load())
                    res[v]["ci"].append(build(variants[v], clone)); cpu[v]["ci"].append(CPU[-1]); stages[v]["ci"].append(STAGES[-1])
                print(f"  ci {i}: " + " ".join(f"{v} {res[v]['ci'][-1]:.2f} (cpu {cpu[v]['ci'][-1]:.2f})" for v in variants)
                      + f" (load {loads['ci'][-1]})", flush=True)
                ok &= all(same(WORK / "ci-on" / "output", WORK / f"ci-{v}" / "output") for v in list(variants)[1:])
            same_bytes["ci"] = ok
            for v in variants:
                shutil.rmtree(WORK / f"ci-{v}", ignore_errors=True)
        for site in sites.values():
            shutil.rmtree(site, ignore_errors=True)

    out = {"name": args.name, "started": time.strftime("%H:%M:%S", time.gmtime(started)),
           "minutes": round((time.time() - started) / 60, 1), "same_bytes": same_bytes, "variants": {}}
    med = lambda xs: round(statistics.median(xs), 3) if xs else None   # noqa: E731
    for v in variants:
        out["variants"][v] = {row: {
            "wall": med(res[v][row]), "cpu": med(cpu[v][row]), "n": len(res[v][row]),
            "wall_saving": None if v == "on" else round(med(res[v][row]) - med(res["on"][row]), 3),
            "cpu_saving": None if v == "on" else round(med(cpu[v][row]) - med(cpu["on"][row]), 3),
            "wall_all": [round(x, 2) for x in res[v][row]], "cpu_all": [round(x, 2) for x in cpu[v][row]],
            "stages_median": {k: med([d.get(k, 0.0) for d in stages[v][row]]) for k in sorted({k for d in stages[v][row] for k in d})},
        } for row in rows}
    out["load"] = {row: {"median": med(loads[row]), "range": [min(loads[row]), max(loads[row])]} for row in rows}
    out["last_log"] = {v: LAST_LOG.get(c, []) for v, c in variants.items()}
    print(json.dumps(out))
    with open(HERE / "results.jsonl", "a") as f:
        f.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
