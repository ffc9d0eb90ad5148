"""results.jsonl (measure.py's lines) as markdown: per accelerator switched off and row, the median
wall and CPU seconds, ON vs OFF, and the saving (OFF - ON)."""
import json
from pathlib import Path

for line in open(Path(__file__).with_name("results.jsonl")):
    r = json.loads(line)
    on = r["variants"]["on"]
    print(f"\nrun of {r['started']} UTC ({r['minutes']} min); load (1 min) per row: "
          + ", ".join(f"{k} median {v['median']} [{v['range'][0]}-{v['range'][1]}]" for k, v in r["load"].items()) + "\n")
    print("| off | row | n | wall ON | wall OFF | wall saving | CPU ON | CPU OFF | CPU saving | same bytes |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, rows in r["variants"].items():
        if name == "on":
            continue
        for row, v in rows.items():
            print(f"| {name} | {row} | {v['n']} | {on[row]['wall']:.2f} | {v['wall']:.2f} | {v['wall_saving']:+.2f} | "
                  f"{on[row]['cpu']:.2f} | {v['cpu']:.2f} | {v['cpu_saving']:+.2f} | "
                  f"{'yes' if r['same_bytes'].get(name) else 'NO'} |")
