#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""replay.py - submit one workload to a running local cluster and watch it.

One thread submits the jobs at their replay times (sbatch --gpus=K, sleep of the
compressed duration); the main thread polls squeue every --poll seconds and, for
each job it sees newly RUNNING, reads its nodes and GPU indices from
`scontrol -d -o show job`. When every job has ended (or --deadline passed: the rest
is cancelled and marked censored) it saves sdiag, sacct -D, the plugin's status file
and its log lines. Everything goes to --out:
  run.json         what was submitted when (job ids), cluster shape, censored jobs
  polls.jsonl      one line per poll: {"t": s, "R": [idx...], "PD": [idx...],
                   "why": {Slurm's pending reason: [idx...]}}
  starts.jsonl     one line per observed start: idx, job id, t, {node: [GPU index]}
  sdiag.txt, sacct.txt, hived_status.json, hived.log (select/hived lines)
Times are seconds since the first submission's due time.
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import time

TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "BOOT_FAIL",
            "DEADLINE", "OUT_OF_MEMORY", "PREEMPTED", "SPECIAL_EXIT"}


def log(msg):
    print("replay: " + msg, file=sys.stderr, flush=True)


def run(args, timeout=60):
    try:
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timed out"


def expand_hosts(expr):
    """node[1-3,7],node9 -> [node1, node2, node3, node7, node9]"""
    out = []
    for m in re.finditer(r"([^,\[]+)(?:\[([^\]]+)\])?", expr):
        base, ranges = m.group(1), m.group(2)
        if not ranges:
            out.append(base)
            continue
        for part in ranges.split(","):
            if "-" in part:
                a, b = part.split("-")
                width = len(a) if a.startswith("0") else 0
                out += ["%s%0*d" % (base, width, i) for i in range(int(a), int(b) + 1)]
            else:
                out.append(base + part)
    return out


def expand_index(expr):
    out = []
    for part in expr.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += list(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


def placement(jobid):
    """({node: [GPU index]}, restarts) of a running job, or (None, None)."""
    rc, out, _ = run(["scontrol", "-d", "-o", "show", "job", str(jobid)], timeout=30)
    if rc != 0 or "JobState=RUNNING" not in out:
        return None, None
    nodes = {}
    for m in re.finditer(r" Nodes=(\S+) CPU_IDs=\S+ Mem=\S+ GRES=(\S*)", out):
        idx = re.search(r"\(IDX:([0-9,\-]+)\)", m.group(2))
        gpus = expand_index(idx.group(1)) if idx else []
        for h in expand_hosts(m.group(1)):
            nodes[h] = gpus
    r = re.search(r"\bRestarts=(\d+)", out)
    return nodes, int(r.group(1)) if r else None


class Submitter(threading.Thread):
    def __init__(self, jobs, t0, select, opp_account):
        super().__init__(daemon=True)
        self.jobs, self.t0, self.select, self.opp_account = jobs, t0, select, opp_account
        self.lock = threading.Lock()
        self.by_id = {}          # Slurm job id -> workload idx
        self.submitted = []      # {"idx", "jobid", "t"}
        self.failed = []
        self.stop = False

    def args(self, j):
        account = j["account"]
        qos = "normal"
        if j["class"] == "opportunistic":
            qos = "scavenger"
            if self.select == "cons_tres" and self.opp_account:
                account = self.opp_account
        # A limit above the run time (whole minutes) so backfill can plan with it.
        minutes = max(2, math.ceil((j["duration"] + 60) / 60))
        # A job with "nodes" asks for whole nodes (the churn scenario's owner);
        # the others for a GPU count, placed where the scheduler likes.
        shape = (["--nodes=%d" % j["nodes"], "--gpus-per-node=%d" % (j["gpus"] // j["nodes"])]
                 if j.get("nodes") else ["--gpus=%d" % j["gpus"]])
        return ["sbatch", "--parsable", "-J", "cmp%d" % j["idx"], "-A", account,
                "--qos=" + qos] + shape + ["--time=%d" % minutes,
                "-o", "/dev/null", "-e", "/dev/null", "--wrap", "sleep %d" % j["duration"]]

    def run(self):
        for j in self.jobs:
            if self.stop:
                return
            delay = self.t0 + j["submit"] - time.time()
            if delay > 0:
                time.sleep(delay)
            for attempt in range(3):
                rc, out, err = run(self.args(j))
                if rc == 0 and out.strip().split(";")[0].isdigit():
                    jobid = int(out.strip().split(";")[0])
                    with self.lock:
                        self.by_id[jobid] = j["idx"]
                        self.submitted.append({"idx": j["idx"], "jobid": jobid,
                                               "t": round(time.time() - self.t0, 3)})
                    break
                time.sleep(0.5)
            else:
                log("sbatch of job %d failed: %s" % (j["idx"], err.strip()))
                with self.lock:
                    self.failed.append({"idx": j["idx"], "error": err.strip()})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workload", required=True)
    ap.add_argument("--select", required=True, choices=["hived", "cons_tres"])
    ap.add_argument("--cluster", required=True, help="hived-cluster --dir")
    ap.add_argument("--out", required=True)
    ap.add_argument("--deadline", type=float, default=480.0,
                    help="seconds after the first submission; then the rest is cancelled")
    ap.add_argument("--poll", type=float, default=1.0)
    ap.add_argument("--opp-account", default="scav",
                    help="account of opportunistic jobs in the cons_tres run")
    ap.add_argument("--nodes-per-rack", type=int, required=True)
    a = ap.parse_args()

    with open(a.workload) as f:
        w = json.load(f)
    jobs = sorted(w["jobs"], key=lambda j: (j["submit"], j["idx"]))
    os.makedirs(a.out, exist_ok=True)
    os.environ["SLURM_CONF"] = os.path.join(a.cluster, "etc", "slurm.conf")
    rc, out, err = run(["scontrol", "ping"])
    if rc != 0 or "is UP" not in out:
        sys.exit("replay: slurmctld of %s does not answer: %s" % (a.cluster, (out + err).strip()))
    rc, out, _ = run(["squeue", "-h", "-o", "%i"])
    if out.strip():
        sys.exit("replay: the queue of %s is not empty" % a.cluster)
    run(["sdiag", "-r"])

    t0 = time.time() + 1.0
    sub = Submitter(jobs, t0, a.select, a.opp_account)
    sub.start()
    polls = open(os.path.join(a.out, "polls.jsonl"), "w")
    starts = open(os.path.join(a.out, "starts.jsonl"), "w")
    running = set()          # job ids RUNNING at the previous poll
    ended = set()            # job ids seen in a terminal state (or gone)
    seen = set()
    censored = []
    deadline_hit = False
    next_poll = t0
    log("%s: %d jobs over %.0f s, deadline %.0f s" % (a.select, len(jobs), jobs[-1]["submit"], a.deadline))
    last_report = 0
    failures = 0
    while True:
        now = time.time()
        if next_poll > now:
            time.sleep(next_poll - now)
        next_poll = max(next_poll + a.poll, time.time())
        t = time.time() - t0
        rc, out, err = run(["squeue", "-h", "-t", "all", "-o", "%i|%j|%T|%r"], timeout=30)
        if rc != 0:
            failures += 1
            log("squeue failed at t=%.0f: %s" % (t, err.strip()))
            if failures >= 30 or t > a.deadline + 60:
                sub.stop = True
                sys.exit("replay: slurmctld stopped answering; giving up")
            continue
        failures = 0
        with sub.lock:
            by_id = dict(sub.by_id)
            n_sub = len(sub.submitted) + len(sub.failed)
        state, why = {}, {}
        for line in out.splitlines():
            parts = line.split("|")
            if len(parts) != 4 or not parts[0].isdigit():
                continue
            jid = int(parts[0])
            if jid in by_id:
                state[jid] = parts[2]
                if parts[2] == "PENDING":
                    why.setdefault(parts[3], []).append(by_id[jid])
        for jid in by_id:
            if jid in state:
                seen.add(jid)
                if state[jid] in TERMINAL:
                    ended.add(jid)
            elif jid in seen:
                ended.add(jid)   # purged after MinJobAge
        now_running = {j for j, s in state.items() if s == "RUNNING"}
        for jid in sorted(now_running - running):
            nodes, restarts = placement(jid)
            starts.write(json.dumps({"idx": by_id[jid], "jobid": jid, "t": round(t, 2),
                                     "nodes": nodes, "restarts": restarts}) + "\n")
        running = now_running
        polls.write(json.dumps({
            "t": round(t, 2),
            "R": sorted(by_id[j] for j in now_running),
            "PD": sorted(by_id[j] for j, s in state.items() if s == "PENDING"),
            "why": {r: sorted(v) for r, v in sorted(why.items())},
        }) + "\n")
        if t - last_report >= 30:
            last_report = t
            log("%s t=%3.0f s: %d submitted, %d running, %d pending, %d ended" % (
                a.select, t, n_sub, len(now_running),
                sum(1 for s in state.values() if s == "PENDING"), len(ended)))
        if n_sub == len(jobs) and len(ended) == len(by_id):
            break
        if t > a.deadline:
            deadline_hit = True
            sub.stop = True
            live = sorted(j for j in by_id if j not in ended)
            censored = sorted(by_id[j] for j in live)
            log("%s: deadline %.0f s reached; cancelling %d jobs" % (a.select, a.deadline, len(live)))
            if live:
                run(["scancel"] + [str(j) for j in live])
            for _ in range(60):
                rc, out, _ = run(["squeue", "-h", "-t", "PD,R,CG,CF", "-o", "%i"])
                if not out.strip():
                    break
                time.sleep(0.5)
            break
    polls.close()
    starts.close()
    t_end = time.time() - t0
    sub.stop = True
    sub.join(timeout=5)

    # Let the status thread and the accounting catch up.
    time.sleep(6)
    rc, out, _ = run(["sdiag"])
    with open(os.path.join(a.out, "sdiag.txt"), "w") as f:
        f.write(out)
    start_str = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t0 - 120))
    fields = "JobID,JobName,Account,QOS,State,Submit,Eligible,Start,End,AllocTRES,NodeList"
    for attempt in range(5):
        rc, out, err = run(["sacct", "-D", "-X", "-P", "-a", "-S", start_str,
                            "--format=" + fields])
        rows = [l for l in out.splitlines()[1:] if "|cmp" in l]
        if rc == 0 and len({l.split("|")[0] for l in rows}) >= len(by_id):
            break
        time.sleep(3)
    with open(os.path.join(a.out, "sacct.txt"), "w") as f:
        f.write(out)
    status = os.path.join(a.cluster, "state", "hived_status.json")
    if a.select == "hived" and os.path.exists(status):
        shutil.copy(status, os.path.join(a.out, "hived_status.json"))
    ctld_log = os.path.join(a.cluster, "log", "slurmctld.log")
    if os.path.exists(ctld_log):
        with open(ctld_log, errors="replace") as f, \
                open(os.path.join(a.out, "hived.log"), "w") as g:
            for line in f:
                if "select/hived:" in line:
                    g.write(line)
    for name in ("slurm.conf", "hived.conf"):
        src = os.path.join(a.cluster, "etc", name)
        if os.path.exists(src):
            shutil.copy(src, os.path.join(a.out, name))
    with open(os.path.join(a.out, "run.json"), "w") as f:
        json.dump({
            "select": a.select, "t0_epoch": t0, "duration": round(t_end, 1),
            "deadline": a.deadline, "deadline_hit": deadline_hit, "censored": censored,
            "nodes_per_rack": a.nodes_per_rack, "opp_account": a.opp_account,
            "submitted": sub.submitted, "failed": sub.failed,
        }, f, indent=1)
    log("%s: done in %.0f s (%d jobs, %d censored, %d sbatch failures)" % (
        a.select, t_end, len(by_id), len(censored), len(sub.failed)))


if __name__ == "__main__":
    main()
