#!/usr/bin/env python3
"""Writes tests/spread.json, the bands tests/mesh_vs_sim.rs holds the mesh to.

usage: measure_spread.py SIM_RUN_DIR MESH_RUN_DIR... > tests/spread.json

SIM_RUN_DIR is `cascade run tests/scenarios/retry-errors.toml --out DIR`; each MESH_RUN_DIR a
`cascade-mesh run` of the same file (at least 5). Per metric the band is |mean - sim| + 3 sd
of the mesh runs (the mesh's systematic offset and its own spread), at least FLOOR: a count
that came out identical in every run still gets room for one more event.
"""
import json
import statistics
import sys

# metric: floor of its band. Only the arrivals are common random numbers: the fault's draws
# come from the mesh's own stream (seeded alike in every mesh run, so five runs do not show
# their noise), which makes the simulated and the measured counts two binomial samples. The
# floors are 2.5 of their standard deviations: about 300 calls in the burst, 30% failing, up
# to 3 attempts: retries 117 +- 11 (0.014 of amplification per sd), calls failing all three
# 8 +- 2.8 (0.0036 of success ratio per sd).
METRICS = {
    "client.web.success_ratio": 0.01,
    "edge.front.back.amplification": 0.035,
    "edge.front.back.breaker_opens": 1.0,
    "edge.front.back.errors.unavailable": 7.0,
}


def metrics(run):
    with open(f"{run}/summary.json") as f:
        return json.load(f)["metrics"]


def main():
    sim, mesh = metrics(sys.argv[1]), [metrics(d) for d in sys.argv[2:]]
    if len(mesh) < 5:
        sys.exit("at least 5 mesh runs")
    out = {}
    for name, floor in METRICS.items():
        values = [m[name] for m in mesh]
        mean, sd = statistics.mean(values), statistics.stdev(values)
        band = max(abs(mean - sim[name]) + 3 * sd, floor)
        out[name] = {"sim": sim[name], "mesh": values, "band": round(band, 6)}
    json.dump({"scenario": "tests/scenarios/retry-errors.toml", "runs": len(mesh),
               "metrics": out}, sys.stdout, indent=2)
    print()


main()
