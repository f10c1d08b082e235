#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The compare report's counters on a fixed, hand-made run (no cluster): the anomaly
(a guaranteed job pending >= 5 s while it fits its account's unused quota), per-VC
GPU-seconds, preemptions and affinity, and the churn/contended workload presets."""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COMPARE = os.path.join(HERE, "..", "..", "scripts", "compare")
sys.path.insert(0, COMPARE)
import report  # noqa: E402

T0 = 1_700_000_000.0
failures = []


def check(what, got, want):
    if got != want:
        failures.append("%s: got %r, want %r" % (what, got, want))


def stamp(t):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(T0 + t))


# Account a: quota 8. b: quota 8.
# 0: a, 4 GPUs, runs 0-20.  1: a, 4 GPUs, pends 0-8 while 0 runs: fits (4+4 <= 8) -> anomaly.
# 2: a, 8 GPUs, pends 0-20 behind 0: never fits (4+8 > 8), starts at 20 -> no anomaly.
# 3: b, 2 GPUs, pends 0-3 (fits, but shorter than the grace) -> no anomaly.
# 4: b, 8 GPUs opportunistic, pends 0-10: opportunistic jobs never count.
# 5: b, 16 GPUs, runs 0-10 on two nodes of different racks, preempted once at 5.
# 6: a, 4 GPUs, pends 0-18 behind 1 and 2 (submitted earlier): alone it fits at 0-7
#    (4+4 <= 8), with its account's queue ahead it never does -> no anomaly, but
#    counted by the "alone" figure.
WORKLOAD = {
    "params": {"gpus_total": 32},
    "quotas": {"a": 8, "b": 8},
    "jobs": [
        {"idx": 0, "account": "a", "class": "guaranteed", "gpus": 4, "submit": 0, "duration": 20},
        {"idx": 1, "account": "a", "class": "guaranteed", "gpus": 4, "submit": 0, "duration": 10},
        {"idx": 2, "account": "a", "class": "guaranteed", "gpus": 8, "submit": 0, "duration": 5},
        {"idx": 3, "account": "b", "class": "guaranteed", "gpus": 2, "submit": 0, "duration": 5},
        {"idx": 4, "account": "b", "class": "opportunistic", "gpus": 8, "submit": 0, "duration": 5},
        {"idx": 5, "account": "b", "class": "guaranteed", "gpus": 16, "submit": 0, "duration": 5},
        {"idx": 6, "account": "a", "class": "guaranteed", "gpus": 4, "submit": 0, "duration": 5},
    ],
}
RUNS = {  # sacct -D rows: (state, start, end)
    0: [("COMPLETED", 0, 20)], 1: [("COMPLETED", 8, 18)], 2: [("COMPLETED", 20, 25)],
    3: [("COMPLETED", 3, 8)], 4: [("COMPLETED", 10, 15)],
    5: [("REQUEUED", 0, 5), ("COMPLETED", 6, 11)], 6: [("COMPLETED", 18, 23)],
}
PLACED = {0: {"node1": [0, 1, 2, 3]}, 1: {"node2": [0, 1, 4, 5]}, 2: {"node1": list(range(8))},
          3: {"node3": [4, 5]}, 4: {"node4": list(range(8))},
          5: {"node1": list(range(8)), "node5": list(range(8))}, 6: {"node2": [4, 5, 6, 7]}}


def state_at(i, t):
    for _, s, e in RUNS[i]:
        if s <= t < e:
            return "R"
    return "PD" if t < max(e for _, _, e in RUNS[i]) else None


def write_run(d):
    os.makedirs(d)
    with open(os.path.join(d, "run.json"), "w") as f:
        json.dump({"select": "test", "duration": 25, "deadline_hit": False, "t0_epoch": T0,
                   "nodes_per_rack": 4,
                   "submitted": [{"idx": i, "jobid": 100 + i, "t": 0.0} for i in RUNS]}, f)
    with open(os.path.join(d, "sacct.txt"), "w") as f:
        f.write("JobID|State|Submit|Start|End\n")
        for i, rs in RUNS.items():
            for st, s, e in rs:
                f.write("%d|%s|%s|%s|%s\n" % (100 + i, st, stamp(0), stamp(s), stamp(e)))
    with open(os.path.join(d, "polls.jsonl"), "w") as f:
        for t in range(0, 26):
            p = {"t": float(t), "R": [i for i in RUNS if state_at(i, t) == "R"],
                 "PD": [i for i in RUNS if state_at(i, t) == "PD"]}
            p["why"] = {"Resources": p["PD"]}
            f.write(json.dumps(p) + "\n")
    with open(os.path.join(d, "starts.jsonl"), "w") as f:
        for i, nodes in PLACED.items():
            f.write(json.dumps({"idx": i, "jobid": 100 + i, "t": 0.0, "nodes": nodes}) + "\n")
    # select/hived's start lines: 1 (the anomaly) and 2 were held, 2 on two nodes and
    # twice (a requeue), first on borrowed idle GPUs; 4 is opportunistic; 0 started at
    # once (no "waited").
    with open(os.path.join(d, "slurmctld.log"), "w") as f:
        p = "[2023-11-14T22:13:20.000] select/hived: JobId="
        f.write(p + "100 VC=a class=guaranteed GPUs=node1:0,1,2,3\n")
        f.write(p + "101 VC=a class=guaranteed GPUs=node2:0,1,4,5; waited 8 s: its VC's "
                "quota in use 2 s, no free cells of its shape 6 s\n")
        f.write(p + "102 VC=a class=guaranteed GPUs=node1:0,1,2,3 node5:0,1,2,3" +
                BORROWED_WORDS + "; waited 20 s: its VC's quota in use 20 s\n")
        f.write("[2023-11-14T22:13:21.000] " + PROMOTED_WORDS % ("102", "100") +
                " and its VC's cells now hold it where it runs\n")
        f.write(p + "102 VC=a class=guaranteed GPUs=node1:0,1,2,3,4,5,6,7; waited 3 s: "
                "behind its VC's head job 3 s\n")
        f.write(p + "104 VC=b class=opportunistic GPUs=node4:0-7; waited 10 s: "
                "no free cells of its shape 10 s\n")
        # 101 preempts two jobs, then one more once bound elsewhere.
        f.write(p + "101 " + PREEMPT_WORDS[0] % (2, "104,105") + "\n")
        f.write(p + "101 " + PREEMPT_WORDS[1] % (1, 2, "106") + "\n")


def plugin_promoted_words():
    """The start of select/hived's promotion line (src/slurm/hived_job.c)."""
    src = open(os.path.join(HERE, "..", "..", "src", "slurm", "hived_job.c")).read()
    m = re.search(r'info\("(select/hived: job %s is guaranteed again: job %s ended)', src)
    return m.group(1) if m else ""


def plugin_borrowed_words():
    """The clause select/hived's start line adds for a borrower (src/slurm/select_hooks.c)."""
    src = open(os.path.join(HERE, "..", "..", "src", "slurm", "select_hooks.c")).read()
    m = re.search(r'd->borrowed \? "(; borrowed idle GPUs[^"]*)"', src)
    return m.group(1) if m else ""


BORROWED_WORDS = plugin_borrowed_words()
PROMOTED_WORDS = plugin_promoted_words()


def plugin_preempt_words():
    """select/hived's two preemption lines, as printf formats for (K, [M,] ids)."""
    src = open(os.path.join(HERE, "..", "..", "src", "slurm", "select_hooks.c")).read()
    found = re.findall(r'"select/hived: %pJ (preempts %zu (?:more )?job\(s\)[^"]*)"', src)
    return [f.replace("%zu", "%d") for f in found]


PREEMPT_WORDS = plugin_preempt_words()


def plugin_wait_words():
    """The plugin's words -> keys, read from its tables in src/slurm/wait_history.c."""
    src = open(os.path.join(HERE, "..", "..", "src", "slurm", "wait_history.c")).read()
    tables = {}
    for name in ("key", "text"):
        m = re.search(r"\b%s\[WAIT_CAUSES\] = \{(.*?)\};" % name, src, re.S)
        tables[name] = re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)) if m else []
    return dict(zip(tables["text"], tables["key"]))


# The report reads the start lines' words back into the status file's keys: a word
# changed in the plugin and not here would drop that cause from every report.
words = plugin_wait_words()
check("plugin's causes read", len(words) >= 7, True)
check("report's cause words", report.WAIT_WORDS, words)
check("plugin's borrowed clause read", BORROWED_WORDS.startswith("; borrowed idle GPUs"), True)
check("plugin's promotion line read", PROMOTED_WORDS.startswith("select/hived: job %s"), True)
check("plugin's preemption lines read", [w.split(" for")[0] for w in PREEMPT_WORDS],
      ["preempts %d job(s)", "preempts %d more job(s)"])

with tempfile.TemporaryDirectory() as tmp:
    run = os.path.join(tmp, "run")
    write_run(run)
    r = report.analyse(WORKLOAD, run, 4)
    check("anomaly jobs", r["anomaly"]["jobs"], 1)
    check("anomaly jobs judged alone", r["anomaly"]["jobs_alone"], 2)
    check("anomaly job", [i for i, j in r["jobs"].items() if j["anomaly"]], ["1"])
    check("seconds under quota", r["anomaly"]["under_quota_wait"], 7.0)  # polls 0..7
    check("seconds under quota by reason", r["anomaly"]["under_quota_seconds_by_reason"],
          {"Resources": 7.0})
    held = dict(r, anomaly=dict(r["anomaly"], under_quota_seconds_by_reason={
        "Resources": 4.0, "BeginTime": 3.0}))
    check("BeginTime row", "| … of those, seconds Slurm held a requeued job (BeginTime) | 0 | 3 |"
          in report.table(r, held, WORKLOAD), True)
    check("per VC anomaly", (r["per_account"]["a"]["anomaly_jobs"],
                             r["per_account"]["b"]["anomaly_jobs"]), (1, 0))
    check("preemptions", (r["preemptions"], r["per_account"]["b"]["preemptions"]), (1, 1))
    check("lost GPU-s of b", r["per_account"]["b"]["preempted_gpu_seconds"], 80.0)
    check("GPU-s of a", r["per_account"]["a"]["gpu_seconds"], 4 * 20 + 4 * 10 + 8 * 5 + 4 * 5.0)
    check("a's quota use", round(r["per_account"]["a"]["quota_utilization"], 3),
          round(180.0 / (8 * 25), 3))
    check("socket share", (r["affinity"]["socket"]["hits"], r["affinity"]["socket"]["jobs"]), (3, 4))
    check("held by hived", r["hived_wait_causes"],
          {"guaranteed": {"vcQuota": 22, "cells": 6, "behindVcHead": 3},
           "anomaly_jobs": {"vcQuota": 2, "cells": 6}, "jobs_held": 2, "borrowed_starts": 1,
           "promotions": 1,
           "preempts": {"preemptors": 1, "victims": 3, "rebindings": 1,
                        "rebinding_victims": 1}})
    check("held job 2", r["jobs"]["2"]["hived_waited"], {"vcQuota": 20, "behindVcHead": 3})
    check("causes line", report.wait_causes_md(r),
          "\nWhy select/hived held guaranteed jobs (its start lines; 2 jobs held): vcQuota 22 s, "
          "cells 6 s, behindVcHead 3 s; the whole waits of the jobs counted as waiting under "
          "quota: cells 6 s, "
          "vcQuota 2 s. Guaranteed starts on borrowed idle GPUs: 1. Demoted jobs promoted "
          "where they ran: 1. Victims it named: 3, "
          "for 1 preemptors; 1 of them added when a preemptor was bound again elsewhere "
          "(1 times).\n")
    check("rack share of b", (r["per_account"]["b"]["affinity"]["rack"]["hits"],
                              r["per_account"]["b"]["affinity"]["rack"]["jobs"]), (0, 1))
    # Same run on both sides: targets compare equal figures; anomaly 1 vs 1 is missed.
    t = report.targets(r, r)
    check("targets", (t["anomaly"]["met"], t["utilization"]["met"], t["affinity_socket"]["met"]),
          (False, True, True))
    # Whole-node jobs and their own account's room (report.own_room). c and d own two
    # nodes each (16 GPUs). 10, 11: c's 2-GPU jobs on node1 and node2; 12: c's one-node
    # job pends 0-9: 4 + 8 <= 16 GPUs fit, but c's own jobs touch both its nodes, so a
    # private cluster of c's quota would make it wait as well. 13: d's 2-GPU job on
    # node3; 14: d's one-node job pends 0-9 with one of d's nodes untouched: the anomaly
    # both ways. 15: c's 2-GPU job (a count) pends 0-9: the room rule leaves it alone.
    rj = {10: ("c", 2, None), 11: ("c", 2, None), 12: ("c", 8, 1), 13: ("d", 2, None),
          14: ("d", 8, 1), 15: ("c", 2, None)}
    rjobs = {i: dict({"idx": i, "account": a, "class": "guaranteed", "gpus": g},
                     **({"nodes": n} if n else {})) for i, (a, g, n) in rj.items()}
    rq = {"c": 16, "d": 16}
    rplaced = {10: {"node1": [0, 1]}, 11: {"node2": [0, 1]}, 13: {"node3": [0, 1]}}
    rpolls = [{"t": float(t), "R": [10, 11, 13], "PD": [12, 14, 15]} for t in range(10)]
    check("own room", report.own_room(rpolls[0], rjobs, rq, rplaced, 8), {"c": 0, "d": 1})
    def waited(room):
        u = report.under_quota(rpolls, rjobs, rq, queue=True, room=room)
        return sorted(i for i, v in u.items() if any(x[1] - x[0] >= report.GRACE for x in v))
    check("by count", waited(None), [12, 14, 15])
    check("with own room", waited(lambda p: report.own_room(p, rjobs, rq, rplaced, 8)), [14, 15])
    # runs.py: figures over pairs are sums, not a mean of ratios. Pair 1 is the run
    # above on both sides (anomaly 1 vs 1); pair 2 has cons_tres at 9 jobs, hived at 0.
    def pair(path, ct, hd, first):
        with open(path, "w") as f:
            json.dump({"meta": {"first": first, "date": "d"}, "workload": {"params": {"x": 1}},
                       "cons_tres": ct, "hived": hd}, f)
    worse = dict(r, anomaly=dict(r["anomaly"], jobs=9, under_quota_wait=90.0, jobs_own_room=4),
                 preemptions=5)
    none = dict(r, anomaly=dict(r["anomaly"], jobs=0, under_quota_wait=0.0, jobs_own_room=0))
    pair(os.path.join(tmp, "p1.json"), r, r, "cons_tres")
    pair(os.path.join(tmp, "p2.json"), worse, none, "hived")
    runs_cmd = [sys.executable, os.path.join(COMPARE, "runs.py"), "--json",
                os.path.join(tmp, "runs.json"), "--md", os.path.join(tmp, "runs.md"),
                os.path.join(tmp, "p1.json"), os.path.join(tmp, "p2.json")]
    rc = subprocess.run(runs_cmd, stderr=subprocess.PIPE, text=True)
    check("runs.py ran", (rc.returncode, rc.stderr), (0, ""))
    if rc.returncode == 0:
        rs = json.load(open(os.path.join(tmp, "runs.json")))
        check("runs: anomaly summed", (rs["sum"]["cons_tres"]["anomaly_jobs"],
                                       rs["sum"]["hived"]["anomaly_jobs"]), (10, 1))
        check("runs: ratio of the sums", rs["targets"]["anomaly"]["ratio_cons_tres_over_hived"],
              10.0)
        check("runs: 10x met on the sums", rs["targets"]["anomaly"]["met"], True)
        check("runs: own-room summed", rs["targets"]["anomaly_own_room"]["cons_tres"],
              r["anomaly"]["jobs_own_room"] + 4)
        check("runs: preemptions summed", rs["sum"]["cons_tres"]["preemptions"],
              r["preemptions"] + 5)
        check("runs: socket hits over jobs", rs["sum"]["hived"]["affinity"]["socket"],
              {"hits": 6, "jobs": 8})
        check("runs: range", rs["sum"]["cons_tres"]["anomaly_jobs_range"], [1, 9])
        check("runs: order kept", [p["first"] for p in rs["pairs"]], ["cons_tres", "hived"])
    # Reports of two workloads do not add up: refused, naming why.
    with open(os.path.join(tmp, "p2.json")) as f:
        other = json.load(f)
    other["workload"]["params"] = {"x": 2}
    with open(os.path.join(tmp, "p2.json"), "w") as f:
        json.dump(other, f)
    rc = subprocess.run(runs_cmd, stderr=subprocess.PIPE, text=True)
    check("runs: other workload refused", (rc.returncode, "different workloads" in rc.stderr),
          (1, True))
    # Presets: deterministic, and the contended slice offers more than the cluster holds.
    presets = {}
    for sc in ("churn", "contended", "contended-nodes"):
        outs = []
        for k in range(2):
            path = os.path.join(tmp, "%s%d.json" % (sc, k))
            subprocess.run([sys.executable, os.path.join(COMPARE, "workload.py"), "--traces",
                            os.environ.get("HIVED_TRACES", os.path.join(HERE, "..", "..", "..",
                                                                        "shared", "traces")),
                            "--scenario", sc, "--out", path], check=False,
                           stderr=subprocess.DEVNULL)
            outs.append(open(path).read() if os.path.exists(path) else None)
        if outs[0] is None and sc != "churn":
            print("test_report: no ITP trace, %s preset not checked" % sc)
            continue
        check(sc + " deterministic", outs[0] == outs[1], True)
        w = presets[sc] = json.loads(outs[0])
        if sc == "churn":
            check("churn quotas", w["quotas"], {"churn": 128, "whole": 128})
            check("whole's jobs are whole nodes",
                  {(j["gpus"], j.get("nodes")) for j in w["jobs"] if j["account"] == "whole"},
                  {(8, 1), (16, 2)})
        else:
            check(sc + " load", w["offered_gpu_seconds"] > 256 * w["params"]["span"], True)
    if "contended-nodes" in presets:
        # The same stream as contended; only the shape of 8k-GPU jobs differs.
        plain, nodes = presets["contended"]["jobs"], presets["contended-nodes"]["jobs"]
        check("contended-nodes: same jobs",
              [{k: v for k, v in j.items() if k != "nodes"} for j in nodes], plain)
        check("contended-nodes: 8k GPUs ask k nodes",
              {(j["gpus"], j.get("nodes")) for j in nodes if j["gpus"] % 8 == 0},
              {(8, 1), (16, 2), (32, 4)})
        check("contended asks counts", any("nodes" in j for j in plain), False)

for f in failures:
    print("FAIL " + f)
print("test_report: %s" % ("FAIL" if failures else "PASS"))
sys.exit(1 if failures else 0)
