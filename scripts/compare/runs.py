#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""runs.py - issue 18's figures over several pairs of runs of one workload.

One pair's anomaly count is a handful of jobs and moves with the host's timing (one
run of a contended stream read 3, another 26, under the same plugin): a ratio of two
such counts says little. This reads the report.json of each pair (report.py) and writes
every pair's figures beside their sum over the pairs, and the targets judged on the
sums: anomaly jobs summed, utilisation as a mean of the runs, affinity hits over jobs
summed, preemptions summed. Definitions: doc/compare.md.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (the one definition of the targets)


def die(msg):
    print("runs: " + msg, file=sys.stderr)
    sys.exit(1)


def load(path):
    r = report.load_json(path)
    for k in ("cons_tres", "hived", "meta"):
        if k not in r:
            die("%s: no '%s' (not a report.py report)" % (path, k))
    return r


def figures(run):
    """The figures one run contributes (sums and shares are rebuilt from them)."""
    a, aff = run["anomaly"], run["affinity"]
    return {
        "anomaly_jobs": a["jobs"],
        "anomaly_seconds": a["under_quota_wait"],
        "anomaly_own_room": a.get("jobs_own_room"),
        "utilization": run["gpu_utilization"],
        "affinity": {k: {"hits": aff[k]["hits"], "jobs": aff[k]["jobs"]}
                     for k in ("socket", "node", "rack")},
        "preemptions": run["preemptions"],
        "preempted_gpu_seconds": run["preempted_gpu_seconds"],
    }


def total(runs):
    def s(key):
        vals = [r[key] for r in runs]
        return None if any(v is None for v in vals) else sum(vals)
    return {
        "anomaly_jobs": s("anomaly_jobs"),
        "anomaly_seconds": s("anomaly_seconds"),
        "anomaly_own_room": s("anomaly_own_room"),
        "anomaly_jobs_median": statistics.median(r["anomaly_jobs"] for r in runs),
        "anomaly_jobs_range": [min(r["anomaly_jobs"] for r in runs),
                               max(r["anomaly_jobs"] for r in runs)],
        "utilization": statistics.mean(r["utilization"] or 0 for r in runs),
        "affinity": {k: {"hits": sum(r["affinity"][k]["hits"] for r in runs),
                         "jobs": sum(r["affinity"][k]["jobs"] for r in runs)}
                     for k in ("socket", "node", "rack")},
        "preemptions": s("preemptions"),
        "preempted_gpu_seconds": s("preempted_gpu_seconds"),
    }


def share(a):
    return (a["hits"] / a["jobs"]) if a["jobs"] else None


def targets(c, h):
    t = {"anomaly": report.tenfold(c["anomaly_jobs"], h["anomaly_jobs"]),
         "anomaly_own_room": report.tenfold(c["anomaly_own_room"], h["anomaly_own_room"]),
         "utilization": {"cons_tres": c["utilization"], "hived": h["utilization"],
                         "met": h["utilization"] >= c["utilization"]}}
    for k in ("socket", "node", "rack"):
        cs, hs = share(c["affinity"][k]), share(h["affinity"][k])
        t["affinity_" + k] = {"cons_tres": cs, "hived": hs,
                              "met": None if cs is None or hs is None else hs >= cs}
    return t


def pct(v):
    return "—" if v is None else "%.1f" % (100.0 * v)


def ratio_text(a):
    if a is None:
        return "—"
    r = a["ratio_cons_tres_over_hived"]
    return ("%.1f×" % r) if r is not None else ("∞" if a["cons_tres"] else "—")


def yn(m):
    return "—" if m is None else ("met" if m else "**missed**")


def row(label, c, h):
    return "| %s | %d (%.0f s) → %d (%.0f s) | %s → %s | %s → %s | %s → %s, %s → %s, %s → %s " \
           "| %d (%.0f) → %d (%.0f) |" % (
               label, c["anomaly_jobs"], c["anomaly_seconds"], h["anomaly_jobs"],
               h["anomaly_seconds"],
               "—" if c["anomaly_own_room"] is None else c["anomaly_own_room"],
               "—" if h["anomaly_own_room"] is None else h["anomaly_own_room"],
               pct(c["utilization"]), pct(h["utilization"]),
               pct(share(c["affinity"]["socket"])), pct(share(h["affinity"]["socket"])),
               pct(share(c["affinity"]["node"])), pct(share(h["affinity"]["node"])),
               "%d/%d" % (c["affinity"]["rack"]["hits"], c["affinity"]["rack"]["jobs"]),
               "%d/%d" % (h["affinity"]["rack"]["hits"], h["affinity"]["rack"]["jobs"]),
               c["preemptions"], c["preempted_gpu_seconds"], h["preemptions"],
               h["preempted_gpu_seconds"])


def markdown(pairs, sums, tg):
    out = ["| pair | anomaly, by GPU count: jobs (s) | own-room | utilisation % "
           "| socket %, node %, rack | preemptions (GPU-s) |",
           "|---|---|---|---|---|---|"]
    for p in pairs:
        out.append(row("%d (%s first, %s)" % (p["pair"], p["first"], p["date"]),
                       p["cons_tres"], p["hived"]))
    out.append(row("**sum of %d**" % len(pairs), sums["cons_tres"], sums["hived"]))
    c, h = sums["cons_tres"], sums["hived"]
    out.append("")
    out.append("cons_tres → hived in every cell; utilisation of the sum row is the mean of "
               "the runs, affinity of the sum row is hits over jobs of all runs.")
    out.append("")
    out.append("Anomaly jobs per run: cons_tres median %s (%d–%d), hived median %s (%d–%d)." % (
        c["anomaly_jobs_median"], c["anomaly_jobs_range"][0], c["anomaly_jobs_range"][1],
        h["anomaly_jobs_median"], h["anomaly_jobs_range"][0], h["anomaly_jobs_range"][1]))
    a, o = tg["anomaly"], tg["anomaly_own_room"]
    line = "Targets (issue 18) on the sums: anomaly %d vs %d jobs (%s, target ≥ 10×): %s; " % (
        a["cons_tres"], a["hived"], ratio_text(a), yn(a["met"]))
    if o:
        line += "own-room %d vs %d (%s): %s; " % (o["cons_tres"], o["hived"], ratio_text(o),
                                                 yn(o["met"]))
    line += "utilisation %s vs %s %%: %s; affinity " % (
        pct(tg["utilization"]["cons_tres"]), pct(tg["utilization"]["hived"]),
        yn(tg["utilization"]["met"]))
    line += ", ".join("%s %s vs %s %%: %s" % (k, pct(tg["affinity_" + k]["cons_tres"]),
                                               pct(tg["affinity_" + k]["hived"]),
                                               yn(tg["affinity_" + k]["met"]))
                      for k in ("socket", "node", "rack")) + "."
    out.append(line)
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("reports", nargs="+", help="report.json of each pair (report.py)")
    a = ap.parse_args()
    reports = [load(p) for p in a.reports]
    params = {json.dumps(r.get("workload", {}).get("params"), sort_keys=True) for r in reports}
    if len(params) != 1:
        die("the reports are of different workloads: a sum over them means nothing")
    pairs = []
    for i, r in enumerate(reports, 1):
        pairs.append({"pair": i, "report": os.path.abspath(a.reports[i - 1]),
                      "first": r["meta"].get("first", "cons_tres"),
                      "date": r["meta"].get("date", "?"),
                      "cons_tres": figures(r["cons_tres"]), "hived": figures(r["hived"])})
    sums = {s: total([p[s] for p in pairs]) for s in ("cons_tres", "hived")}
    tg = targets(sums["cons_tres"], sums["hived"])
    md = markdown(pairs, sums, tg)
    doc = {"pairs": pairs, "sum": sums, "targets": tg, "table_md": md}
    report.write_atomic(a.json, json.dumps(doc, indent=1) + "\n")
    report.write_atomic(a.md, md)


if __name__ == "__main__":
    main()
