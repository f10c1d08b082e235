#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""workload.py - a time-compressed slice of the ITP trace, as one submission stream.

Reads ../shared/traces/itp/clusterNN.csv (one file per tenant: each tenant is one
Slurm account / HiveD VC), takes the first --jobs jobs of at most --max-gpus GPUs that
the chosen tenants submitted from --start-day on, and maps them onto the replay clock:

  replay submit   = (trace submit - first submit) * span / (last - first submit)
  replay duration = clamp(trace duration * k, --min-dur, --max-dur)

k is solved so that the offered GPU-seconds equal --load x cluster GPUs x span: the
inter-arrival pattern and the relative lengths of the trace stay, the mean load is set.
About --opportunistic of the jobs of at most 8 GPUs (a hash of the trace's job id picks
them) run in QOS scavenger. Each account's quota is its share of the guaranteed
GPU-seconds, in even GPU counts summing to the cluster's GPUs, never below its largest
guaranteed job. Writes JSON (stdout or --out).

--scenario picks a documented preset (doc/compare.md); explicit options still win:
  slice      the defaults above (5 ITP tenants, 300 jobs, load 0.9): the kept 2026-11-21 run
  contended  3 ITP tenants of different shapes (itp03 mostly 8-GPU jobs, itp02 and itp07
             mostly 1-2 GPUs), 400 jobs, load 1.5, a quarter of the <=8-GPU jobs
             opportunistic: the tenants burst above their quotas, the cluster is full
  contended-nodes  the contended slice, but each job of a multiple of 8 GPUs asks for
             whole nodes (-N k --gpus-per-node=8, as training that needs NVLink inside
             its nodes is submitted) instead of a count that may be split over nodes
  churn      synthetic, no trace: VC "churn" (half the GPUs) keeps 1-2 GPU jobs coming
             above its quota (guaranteed up to it, opportunistic beyond), VC "whole" (the
             other half) is idle, then submits its whole quota as jobs of 1 or 2 whole nodes
             (-N1/-N2 --gpus-per-node=8), in three waves
"""
import argparse
import csv
import hashlib
import json
import math
import os
import random
import sys


def die(msg):
    print("workload: " + msg, file=sys.stderr)
    sys.exit(1)


def read_tenant(path, tenant, max_gpus):
    jobs = []
    try:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                g = int(row["num_gpu"])
                if g < 1 or g > max_gpus:
                    continue
                jobs.append({
                    "tenant": tenant,
                    "trace_id": row["job_id"],
                    "trace_submit": float(row["submission_time"]),
                    "trace_duration": float(row["duration"]),
                    "gpus": g,
                })
    except (OSError, KeyError, ValueError) as e:
        die("cannot read %s: %s" % (path, e))
    return jobs


def opportunistic(trace_id, share):
    h = int(hashlib.sha1(trace_id.encode()).hexdigest()[:8], 16)
    return (h % 10000) < share * 10000


def solve_scale(jobs, target, lo, hi):
    """k such that sum(gpus * clamp(d * k, lo, hi)) == target (monotone in k)."""
    def offered(k):
        return sum(j["gpus"] * min(hi, max(lo, j["trace_duration"] * k)) for j in jobs)
    a, b = 1e-9, 1.0
    if offered(a) >= target:
        return a
    if offered(b) <= target:
        return b
    for _ in range(200):
        m = math.sqrt(a * b)
        if offered(m) < target:
            a = m
        else:
            b = m
    return b


def quotas(jobs, accounts, total, step):
    """Even GPU quotas by guaranteed GPU-seconds (largest remainder), each >= its
    largest guaranteed job, summing to total."""
    demand = {a: 0.0 for a in accounts}
    floor = {a: step for a in accounts}
    for j in jobs:
        if j["class"] == "guaranteed":
            demand[j["account"]] += j["gpus"] * j["duration"]
            floor[j["account"]] = max(floor[j["account"]], j["gpus"])
    units = total // step
    need = {a: -(-floor[a] // step) for a in accounts}
    if sum(need.values()) > units:
        die("the accounts' largest jobs (%s) do not fit %d GPUs" % (floor, total))
    s = sum(demand.values()) or 1.0
    exact = {a: demand[a] / s * units for a in accounts}
    q = {a: max(need[a], int(exact[a])) for a in accounts}
    # Give back or hand out units where the rounding error is largest.
    while sum(q.values()) > units:
        a = max((a for a in accounts if q[a] > need[a]), key=lambda a: q[a] - exact[a])
        q[a] -= 1
    while sum(q.values()) < units:
        a = max(accounts, key=lambda a: exact[a] - q[a])
        q[a] += 1
    return {a: q[a] * step for a in accounts}


# Presets of --scenario: option defaults (argparse dest -> value); explicit options win.
SCENARIOS = {
    "slice": {},
    "contended": {"tenants": "cluster02,cluster03,cluster07", "jobs": 400, "span": 180.0,
                  "load": 1.5, "opportunistic": 0.25, "deadline": 600.0},
    "churn": {"span": 240.0, "deadline": 480.0},
}
SCENARIOS["contended-nodes"] = dict(SCENARIOS["contended"], whole_nodes=True)


def churn_jobs(gpus_total, span, seed=18):
    """The classic sharing anomaly made explicit. "churn" owns half the GPUs and keeps
    them busy with short 1-2 GPU jobs; what it submits beyond its quota is opportunistic
    and spreads over the idle half. "whole" owns the other half, sits idle, then submits
    its whole quota at once as jobs of one or two whole nodes (sbatch -N1/-N2
    --gpus-per-node=8; waves at 20 %, 50 % and 80 % of the span): each of them fits its
    quota the moment it is submitted."""
    rnd = random.Random(seed)
    half = gpus_total // 2
    jobs = []
    # churn: Poisson arrivals; guaranteed demand ~1.2x its quota, opportunistic ~0.5x.
    mean_dur, mean_gpus = 60.0, 1.3
    for cls, load in (("guaranteed", 1.2), ("opportunistic", 0.5)):
        rate = load * half / (mean_dur * mean_gpus)
        t = 0.0
        while True:
            t += rnd.expovariate(rate)
            if t >= span:
                break
            jobs.append({"tenant": "churn", "account": "churn", "class": cls,
                         "submit": round(t, 2), "gpus": 1 if rnd.random() < 0.7 else 2,
                         "duration": int(rnd.uniform(30, 90))})
    for w in (0.2, 0.5, 0.8):
        sizes = [16] * (half // 64) + [8] * ((half - 16 * (half // 64)) // 8)
        rnd.shuffle(sizes)
        for k, g in enumerate(sizes):
            jobs.append({"tenant": "whole", "account": "whole", "class": "guaranteed",
                         "submit": round(w * span + 0.1 * k, 2), "gpus": g, "nodes": g // 8,
                         "duration": int(rnd.uniform(40, 70))})
    jobs.sort(key=lambda j: (j["submit"], j["account"]))
    for i, j in enumerate(jobs):
        j.update(idx=i, trace_id="churn-%d" % i, trace_submit=j["submit"],
                 trace_duration=j["duration"])
    return jobs, {"churn": half, "whole": gpus_total - half}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--traces", required=True, help="the shared traces directory")
    ap.add_argument("--scenario", choices=sorted(SCENARIOS), default="slice")
    ap.add_argument("--deadline", type=float, default=400.0,
                    help="suggested per-run deadline, stored in the workload")
    ap.add_argument("--tenants", default="cluster02,cluster03,cluster04,cluster06,cluster07")
    ap.add_argument("--start-day", type=float, default=54.0)
    ap.add_argument("--jobs", type=int, default=300)
    ap.add_argument("--max-gpus", type=int, default=32)
    ap.add_argument("--span", type=float, default=200.0, help="replay seconds of submissions")
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--min-dur", type=float, default=5.0)
    ap.add_argument("--max-dur", type=float, default=100.0)
    ap.add_argument("--opportunistic", type=float, default=0.15)
    ap.add_argument("--gpus-total", type=int, default=256)
    ap.add_argument("--quota-step", type=int, default=2)
    ap.add_argument("--gpus-per-node", type=int, default=8)
    ap.add_argument("--whole-nodes", action="store_true",
                    help="jobs of k x --gpus-per-node GPUs ask for k whole nodes")
    ap.add_argument("--out")
    a = ap.parse_args()
    # A preset changes only the options left at their defaults.
    for k, v in SCENARIOS[a.scenario].items():
        if getattr(a, k) == ap.get_default(k):
            setattr(a, k, v)
    params = {
        "scenario": a.scenario, "jobs": a.jobs, "max_gpus": a.max_gpus, "span": a.span,
        "load": a.load, "min_dur": a.min_dur, "max_dur": a.max_dur,
        "opportunistic": a.opportunistic, "gpus_total": a.gpus_total, "deadline": a.deadline,
        "whole_nodes": a.whole_nodes,
    }
    if a.scenario == "churn":
        jobs, q = churn_jobs(a.gpus_total, a.span)
        params.update(jobs=len(jobs), load=None, opportunistic=None,
                      min_dur=None, max_dur=None, max_gpus=16)
        write({"source": {"trace": "synthetic", "seed": 18}, "params": params,
               "submit_stretch": 1.0, "duration_scale": 1.0,
               "offered_gpu_seconds": sum(j["gpus"] * j["duration"] for j in jobs),
               "quotas": q, "jobs": jobs}, a.out)
        summary(jobs, "churn/whole (synthetic)", a.span, q)
        return

    itp = os.path.join(a.traces, "itp")
    if not os.path.isdir(itp):
        die("no itp/ under %s (pass TRACES=DIR)" % a.traces)
    jobs = []
    tenants = [t.strip() for t in a.tenants.split(",") if t.strip()]
    for t in tenants:
        jobs += read_tenant(os.path.join(itp, t + ".csv"), t, a.max_gpus)
    t0 = a.start_day * 86400
    jobs = sorted((j for j in jobs if j["trace_submit"] >= t0),
                  key=lambda j: (j["trace_submit"], j["tenant"], j["trace_id"]))[:a.jobs]
    if len(jobs) < a.jobs:
        die("only %d jobs from day %g on" % (len(jobs), a.start_day))
    first, last = jobs[0]["trace_submit"], jobs[-1]["trace_submit"]
    stretch = a.span / max(1.0, last - first)
    target = a.load * a.gpus_total * a.span
    k = solve_scale(jobs, target, a.min_dur, a.max_dur)
    for i, j in enumerate(jobs):
        j["idx"] = i
        # Account names: Slurm lower-cases them; VC names are the same strings.
        j["account"] = "itp" + j["tenant"][-2:]
        j["submit"] = round((j["trace_submit"] - first) * stretch, 2)
        j["duration"] = int(round(min(a.max_dur, max(a.min_dur, j["trace_duration"] * k))))
        j["class"] = ("opportunistic" if j["gpus"] <= 8 and
                      opportunistic(j["trace_id"], a.opportunistic) else "guaranteed")
        if a.whole_nodes and j["gpus"] % a.gpus_per_node == 0:
            j["nodes"] = j["gpus"] // a.gpus_per_node
    accounts = sorted({j["account"] for j in jobs})
    q = quotas(jobs, accounts, a.gpus_total, a.quota_step)
    out = {
        "source": {
            "trace": "itp", "tenants": tenants, "start_day": a.start_day,
            "trace_first_submit": first, "trace_last_submit": last,
            "trace_span_hours": round((last - first) / 3600, 2),
        },
        "params": params,
        "submit_stretch": stretch,
        "duration_scale": k,
        "offered_gpu_seconds": sum(j["gpus"] * j["duration"] for j in jobs),
        "quotas": q,
        "jobs": jobs,
    }
    write(out, a.out)
    print("workload: trace %.1f h -> %g s, duration x%.5f (%d-%d s)" % (
        (last - first) / 3600, a.span, k, a.min_dur, a.max_dur), file=sys.stderr)
    summary(jobs, ",".join(tenants), a.span, q)


def write(out, path):
    text = json.dumps(out, indent=1)
    if path:
        with open(path + ".tmp", "w") as f:
            f.write(text + "\n")
        os.replace(path + ".tmp", path)
    else:
        print(text)


def summary(jobs, source, span, q):
    g = {}
    for j in jobs:
        g[j["gpus"]] = g.get(j["gpus"], 0) + 1
    print("workload: %d jobs from %s over %g s, %d opportunistic, GPUs %s, quotas %s" % (
        len(jobs), source, span, sum(j["class"] == "opportunistic" for j in jobs),
        dict(sorted(g.items())), q), file=sys.stderr)

if __name__ == "__main__":
    main()
