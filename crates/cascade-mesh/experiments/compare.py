#!/usr/bin/env python3
"""Runs one configuration of an experiment of docs/sim-vs-real.md: the simulator once, the
mesh RUNS times, and prints the metrics side by side (simulated, mesh mean, mesh range) as the
page's tables, with the load average before each mesh run.

usage: compare.py SCENARIO [--set KEY=VALUE]... [--runs N] [--series METRIC]...
                  [--recovery METRIC START END HOLD] METRIC...

--recovery judges every run alike, simulated or measured, on METRIC's buckets: its level is
the mean of the measured buckets before START (s), its floor that less the wider of 5% and
three Poisson standard deviations over a bucket (the simulator's rule for fault.<i>.recovered),
and the recovery time is from END (s) to the start of the first bucket from which it stays at
or above the floor for HOLD seconds: "never" when no such bucket begins before the run's end.

Built first: cargo build --profile test-release -p cascade -p cascade-mesh (binaries from
$CARGO_TARGET_DIR, default target/). Not run in CI: every mesh run takes the scenario's
length in wall-clock time.

The simulated run gets the mesh's calibrated overhead as every service call's one-way network
latency (CALIBRATION, measured once on tests/scenarios/calibration.toml and frozen, never
fitted per experiment); the mesh runs the file as written, since it has that overhead itself.
A client's own call has no latency key in the scenario language, so its hop stays unmodelled.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import tomllib

# docs/sim-vs-real.md, "Calibration": 1.7 ms a hop at the median, half of it each way.
CALIBRATION = "0.85ms"


def calibration_sets(path):
    """`--set` overrides giving every service call (a plain `{ to = ... }` step) the latency."""
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    sets = []

    def calls(prefix, table):
        for i, c in enumerate(table.get("calls", [])):
            if not isinstance(c, dict) or "to" not in c:
                sys.exit(f"{path}: {prefix}.calls.{i} is not a plain call; give it its latency by hand")
            sets.append(f"{prefix}.calls.{i}.latency={CALIBRATION}")

    for s in doc.get("service", []):
        calls(f"service.{s['name']}", s)
        for o in s.get("operation", []):
            calls(f"service.{s['name']}.operation.{o['name']}", o)
    return sets


def target_dir():
    return os.environ.get("CARGO_TARGET_DIR", "target") + "/test-release"


def run(binary, scenario, sets, out):
    cmd = [f"{target_dir()}/{binary}", "run", scenario, "--out", out]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(f"{out}/summary.json") as f:
        summary = json.load(f)["metrics"]
    series = {}
    with open(f"{out}/timeseries.csv") as f:
        next(f)
        for line in f:
            t, name, value = line.rstrip("\n").split(",")
            series.setdefault(name, {})[float(t)] = float(value)
    return summary, series


def recovery(series, start, end, hold, warmup, bucket=1.0):
    """Seconds from `end` to the first bucket of a hold at the level of before `start`."""
    before = [v for t, v in series.items() if warmup <= t < start]
    level = sum(before) / len(before)
    floor = level - max(0.05 * level, 3 * (level * bucket) ** 0.5 / bucket)
    times = sorted(series)
    for i, t in enumerate(times):
        if t < end:
            continue
        span = [series[u] for u in times[i:] if u < t + hold]
        if len(span) * bucket >= hold and all(v >= floor for v in span):
            return t - end
    return None


def fmt(v):
    return f"{v:.4g}" if abs(v) < 1000 else f"{v:.0f}"


def main():
    args = sys.argv[1:]
    scenario, sets, runs, wanted, series_wanted, judged = None, [], 5, [], [], None
    while args:
        a = args.pop(0)
        if a == "--set":
            sets.append(args.pop(0))
        elif a == "--runs":
            runs = int(args.pop(0))
        elif a == "--recovery":
            judged = (args.pop(0), *(float(args.pop(0)) for _ in range(3)))
        elif a == "--series":
            series_wanted.append(args.pop(0))
        elif scenario is None:
            scenario = a
        else:
            wanted.append(a)
    if scenario is None or runs < 1:
        sys.exit(__doc__)
    tmp = tempfile.mkdtemp(prefix="cascade-compare-")
    sim, sim_series = run("cascade", scenario, sets + calibration_sets(scenario), f"{tmp}/sim")
    mesh, loads = [], []
    for k in range(runs):
        loads.append(os.getloadavg()[0])
        mesh.append(run("cascade-mesh", scenario, sets, f"{tmp}/mesh{k}"))
    print(f"{scenario} {' '.join('--set ' + s for s in sets)}: {runs} mesh runs, "
          f"load average {min(loads):.1f} to {max(loads):.1f}")
    print()
    print("| metric | simulated | mesh, mean | mesh, range |")
    print("|---|---|---|---|")
    for name in wanted:
        values = [m[0].get(name) for m in mesh]
        if name not in sim or any(v is None for v in values):
            print(f"| `{name}` | {sim.get(name, 'absent')} | absent | |")
            continue
        print(f"| `{name}` | {fmt(sim[name])} | {fmt(statistics.mean(values))} | "
              f"{fmt(min(values))}–{fmt(max(values))} |")
    if judged:
        name, start, end, hold = judged
        with open(scenario, "rb") as f:
            warmup = float(tomllib.load(f)["scenario"].get("warmup", "0s").rstrip("s"))
        got = [recovery(r[name], start, end, hold, warmup) for r in [sim_series] + [m[1] for m in mesh]]
        show = ["never" if g is None else f"{g:g}" for g in got]
        print(f"| recovery time of `{name}` (s) | {show[0]} | | {', '.join(show[1:])} |")
    shutil.rmtree(tmp)
    for name in series_wanted:
        print()
        print(f"`{name}` per bucket (s: simulated / mesh mean, range)")
        print()
        for t in sorted(sim_series.get(name, {})):
            values = [m[1].get(name, {}).get(t, 0.0) for m in mesh]
            print(f"- {t:g}: {fmt(sim_series[name][t])} / {fmt(statistics.mean(values))} "
                  f"({fmt(min(values))}–{fmt(max(values))})")


main()
