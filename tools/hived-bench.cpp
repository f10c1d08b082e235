// SPDX-License-Identifier: GPL-2.0-or-later
// hived-bench: decision latency and state size of the engine on generated clusters
// under a steady-state churn of a realistic job mix (doc/bench.md, hived-bench(1)).
// It is a benchmark, not a test: it prints figures and judges nothing.
#include <jansson.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <set>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench_cluster.h"
#include "cli_args.h"
#include "hived.h"
#include "replay_json.h"

namespace {

using Clock = std::chrono::steady_clock;

const char kUsage[] =
    "Usage: hived-bench [--sizes N,N,...] [--decisions N] [--seed N] [--vcs N]\n"
    "                   [--check-invariants-every N] [--will-run N] [--fill N]\n"
    "                   [--will-run-copies N] [--borrow] [--print-config]\n"
    "\n"
    "Generates clusters of N GPUs (default 1000,10000,100000; 8-GPU nodes, racks of\n"
    "32 nodes), fills them to ~90% with a mix of guaranteed and opportunistic jobs of\n"
    "1-64 GPUs, then churns (finish a random job / submit a new one), timing every\n"
    "hived_submit and hived_finish call. Prints one JSON line per size.\n"
    "\n"
    "  --sizes N,N,...              cluster sizes in GPUs (rounded up to whole racks)\n"
    "  --decisions N                timed calls per size (default 200000, 100000 from\n"
    "                               100k GPUs up)\n"
    "  --seed N                     random seed (default 1)\n"
    "  --vcs N                      virtual clusters (default 8)\n"
    "  --check-invariants-every N   run hived_check_invariants every N decisions, after\n"
    "                               the fill and after the WILL_RUN questions\n"
    "                               (untimed; exit 3 on a violation)\n"
    "  --will-run N                 then time N WILL_RUN questions (hived_will_run) for\n"
    "                               jobs that wait for cells (default 1000, 0: none)\n"
    "  --fill N                     before them, submit jobs of the mix (untimed, none\n"
    "                               finishing) until N in a row do not place (default\n"
    "                               50; 0: ask on the churned cluster, as before)\n"
    "  --will-run-copies N          answer N of the questions the old way too, on a copy\n"
    "                               of the engine (default 200, 20 from 100k GPUs up)\n"
    "  --borrow                     guaranteed jobs may borrow idle GPUs outside their\n"
    "                               VC's cells (hived.conf borrowIdleCells), in every\n"
    "                               decision and WILL_RUN question\n"
    "  --print-config               print the generated hived.conf of the first size\n"
    "                               and exit\n"
    "  --help                       show this text\n";

struct Options {
  std::vector<int> sizes{1000, 10000, 100000};
  long decisions = 0;  // 0: per-size default
  uint64_t seed = 1;
  int vcs = 8;
  long check_every = 0;
  long will_run = 1000;
  long copies = -1;       // -1: per-size default
  long fill_misses = 50;  // 0: ask on the churned cluster, as before the tenth round
  bool borrow = false;    // borrow_idle_cells on guaranteed jobs
  bool print_config = false;
};

struct Job {
  std::string name;
  std::string vc;
  int32_t priority;
  bool lazy;
  bool borrow = false;
  hived_member member;
};

struct RunningJob {
  size_t slot;  // index in Churn::running_names_
  int gpus;
};

struct Stats {
  long submits = 0, finishes = 0, placed = 0, waiting = 0, rejected = 0, errors = 0;
  long preempted = 0, lazy_preempted = 0, borrowed = 0;
  std::vector<uint32_t> submit_ns, finish_ns;
  // Submit latencies split by what the decision had to do, to show the lead which
  // path dominates the tail.
  std::vector<uint32_t> placed_ns, waiting_ns, preempting_ns, gang_ns, opportunistic_ns;
  // Waiting because the VC's quota is in use: what backfill asks most under a flood.
  std::vector<uint32_t> quota_wait_ns;
};

// Generates jobs: mostly 1-8 GPUs, some 16-64 GPU gangs of 8-GPU pods, ~20%
// opportunistic, ~3% high priority (they preempt their VC's normal jobs).
class JobMix {
 public:
  JobMix(const hived_tools::BenchCluster &c, uint64_t seed) : rng_(seed) {
    for (const auto &vc : c.vcs) vc_weights_.push_back(vc.Gpus());
    vc_pick_ = std::discrete_distribution<int>(vc_weights_.begin(), vc_weights_.end());
    for (const auto &vc : c.vcs) {
      vc_names_.push_back(vc.name);
      vc_gpus_.push_back(vc.Gpus());
      vc_node_gpus_.push_back((vc.racks * 32 + vc.nodes) * 8);
    }
  }
  Job Next() {
    static const int kGpus[] = {1, 2, 4, 8, 16, 32, 64};
    static const double kWeights[] = {35, 20, 20, 17, 4, 3, 1};
    std::discrete_distribution<int> size_pick(std::begin(kWeights), std::end(kWeights));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Job j;
    j.name = "j" + std::to_string(next_id_++);
    int vc = vc_pick_(rng_);
    j.vc = vc_names_[vc];
    int gpus = kGpus[size_pick(rng_)];
    double p = u(rng_);
    j.priority = p < 0.2 ? HIVED_PRIORITY_OPPORTUNISTIC : (p < 0.23 ? 500 : 100);
    // Users do not ask their VC for more than it owns: a guaranteed job never exceeds
    // the VC's GPUs, and a gang of 8-GPU pods never exceeds its whole nodes.
    while (j.priority >= 0 && gpus > 1 &&
           (gpus > vc_gpus_[vc] || (gpus > 8 && gpus > vc_node_gpus_[vc]))) {
      gpus /= 2;
    }
    j.member = gpus > 8 ? hived_member{gpus / 8, 8} : hived_member{1, gpus};
    j.lazy = u(rng_) < 0.3;
    j.borrow = borrow && j.priority >= 0;
    return j;
  }
  bool borrow = false;  // Options::borrow
  std::mt19937_64 &rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
  std::vector<double> vc_weights_;
  std::discrete_distribution<int> vc_pick_;
  std::vector<std::string> vc_names_;
  std::vector<int> vc_gpus_, vc_node_gpus_;
  uint64_t next_id_ = 0;
};

// The request for a job of the mix (points into j).
hived_job_request RequestOf(const Job &j) {
  hived_job_request req{};
  req.job = j.name.c_str();
  req.vc = j.vc.c_str();
  req.priority = j.priority;
  req.lazy_preemption = j.lazy ? 1 : 0;
  req.borrow_idle_cells = j.borrow ? 1 : 0;
  req.members = &j.member;
  req.n_members = 1;
  return req;
}

class Churn {
 public:
  Churn(hived_engine *e, const hived_tools::BenchCluster &c, uint64_t seed, long check_every)
      : engine_(e), cluster_(c), mix_(c, seed), check_every_(check_every) {}
  Churn(const Churn &) = delete;
  Churn &operator=(const Churn &) = delete;

  // Returns false if an invariant check failed (the message is printed).
  bool Run(long decisions) {
    stats_->submit_ns.reserve(decisions);
    stats_->finish_ns.reserve(decisions / 2 + 1);
    const long target = static_cast<long>(cluster_.gpus * 0.9);
    for (long d = 0; d < decisions; d++) {
      if (used_ < target || running_names_.empty()) {
        Submit(mix_.Next());
      } else {
        std::uniform_int_distribution<size_t> pick(0, running_names_.size() - 1);
        Finish(running_names_[pick(mix_.rng())]);
      }
      if (check_every_ > 0 && (d + 1) % check_every_ == 0 &&
          !CheckInvariants(("decision " + std::to_string(d + 1)).c_str())) {
        return false;
      }
    }
    return true;
  }
  // Backfill asks about jobs that wait, and at 90% busy a large cluster has room for
  // every job of the mix (at 100k GPUs none waits): submit jobs of the mix, finishing
  // none, until `in_a_row` of them in a row do not place. Untimed; the outcome counts
  // go to fill_stats().
  void Fill(long in_a_row, long cap) {
    Stats *timed = stats_;
    stats_ = &fill_;
    for (long misses = 0, n = 0; misses < in_a_row && n < cap; n++) {
      const long placed = fill_.placed;
      Submit(mix_.Next());
      misses = fill_.placed > placed ? 0 : misses + 1;
    }
    stats_ = timed;
  }
  // After the fill and after the questions (each trial must leave the engine as it
  // found it), when --check-invariants-every asks for checks at all.
  bool CheckAfter(const char *phase) { return check_every_ <= 0 || CheckInvariants(phase); }
  Stats &stats() { return timed_; }
  const Stats &fill_stats() const { return fill_; }
  long used() const { return used_; }
  const std::vector<std::string> &running() const { return running_names_; }
  JobMix &mix() { return mix_; }

 private:
  void Submit(const Job &j) {
    const hived_job_request req = RequestOf(j);
    const hived_decision *d = nullptr;
    auto t0 = Clock::now();
    hived_rc rc = hived_submit(engine_, &req, 0, &d);
    auto t1 = Clock::now();
    const uint32_t ns = Ns(t0, t1);
    stats_->submit_ns.push_back(ns);
    stats_->submits++;
    if (j.member.pod_number > 1) stats_->gang_ns.push_back(ns);
    if (j.priority < 0) stats_->opportunistic_ns.push_back(ns);
    if (rc != HIVED_OK || d == nullptr) {
      if (stats_->errors++ == 0) {
        std::cerr << "hived-bench: submit " << j.name << ": " << hived_rc_str(rc) << ": "
                  << hived_last_error(engine_) << "\n";
      }
      return;
    }
    if (d->outcome == HIVED_WAITING) {
      stats_->waiting_ns.push_back(ns);
      stats_->waiting++;
      if (d->wait_kind == HIVED_WAIT_VC_QUOTA) stats_->quota_wait_ns.push_back(ns);
      return;
    }
    if (d->outcome != HIVED_PLACED) {
      stats_->rejected++;
      return;
    }
    stats_->placed++;
    stats_->placed_ns.push_back(ns);
    stats_->borrowed += d->borrowed ? 1 : 0;
    if (d->n_preempted + d->n_lazy_preempted > 0) stats_->preempting_ns.push_back(ns);
    stats_->lazy_preempted += static_cast<long>(d->n_lazy_preempted);
    stats_->preempted += static_cast<long>(d->n_preempted);
    // Killed victims are gone from the engine; demoted ones keep running.
    for (size_t i = 0; i < d->n_preempted; i++) Forget(d->preempted[i]);
    Remember(j.name, j.member.pod_number * j.member.leaf_cell_number);
  }

  void Finish(const std::string &name) {
    auto t0 = Clock::now();
    hived_rc rc = hived_finish(engine_, name.c_str());
    auto t1 = Clock::now();
    stats_->finish_ns.push_back(Ns(t0, t1));
    stats_->finishes++;
    if (rc != HIVED_OK && stats_->errors++ == 0) {
      std::cerr << "hived-bench: finish " << name << ": " << hived_rc_str(rc) << ": "
                << hived_last_error(engine_) << "\n";
    }
    Forget(name);
  }

  void Remember(const std::string &name, int gpus) {
    running_[name] = RunningJob{running_names_.size(), gpus};
    running_names_.push_back(name);
    used_ += gpus;
  }

  void Forget(const std::string &name) {
    auto it = running_.find(name);
    if (it == running_.end()) return;
    size_t slot = it->second.slot;
    used_ -= it->second.gpus;
    running_.erase(it);
    if (slot + 1 != running_names_.size()) {
      running_names_[slot] = std::move(running_names_.back());
      running_[running_names_[slot]].slot = slot;
    }
    running_names_.pop_back();
  }

  bool CheckInvariants(const char *after) {
    char errbuf[2048] = "";
    if (hived_check_invariants(engine_, errbuf, sizeof errbuf) == HIVED_OK) return true;
    std::cerr << "hived-bench: invariant violated after " << after << ": " << errbuf << "\n";
    return false;
  }

  static uint32_t Ns(Clock::time_point a, Clock::time_point b) {
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
    return static_cast<uint32_t>(std::min<int64_t>(ns, UINT32_MAX));
  }

  hived_engine *engine_;
  const hived_tools::BenchCluster &cluster_;
  JobMix mix_;
  long check_every_;
  Stats timed_, fill_;
  Stats *stats_ = &timed_;
  std::unordered_map<std::string, RunningJob> running_;
  std::vector<std::string> running_names_;
  long used_ = 0;
};

// Backfill's WILL_RUN on the churned engine: questions about jobs that wait for
// cells (not for their VC's quota, which the plugin answers from counters), timed
// through hived_will_run and, for up to 200 of them, the way the plugin answered
// before: a copy of the engine on which the jobs end for real.
struct WillRunStats {
  long opportunistic = 0;  // of the questions asked
  long asked = 0, later = 0, never = 0, quota = 0, mismatches = 0, repeated = 0;
  // Of the questions compared with a copy: answered by the VC's guarantee (other VCs'
  // guaranteed jobs left running), and of those, placed on other nodes than the copy's.
  long by_guarantee = 0, other_nodes = 0;
  std::vector<uint32_t> trial_ns, copy_ns;
  std::vector<uint32_t> first_cpu_ns;  // CPU time of questions of a shape not asked before
  // The same calls in the thread's CPU time: on a shared machine a wall-clock tail
  // of milliseconds is mostly time spent descheduled.
  std::vector<uint32_t> trial_cpu_ns, copy_cpu_ns;
  // The questions the engine answered with a trial (not from its memo): what each
  // ended and asked (hived_will_run_last), to tell which part a slow one spent on.
  struct Trial {
    uint32_t cpu_ns = 0;
    hived_will_run_counts counts{};
  };
  std::vector<Trial> trials;
};

// The timed question, a function of its own so that a profiler can select it
// (valgrind --toggle-collect=*TimedAsk*).
__attribute__((noinline)) hived_rc TimedAsk(hived_engine *e, const hived_job_request *req,
                                            const std::vector<hived_job_end> &ends, int64_t *start,
                                            const hived_decision **d) {
  return hived_will_run_kept(e, req, ends.data(), ends.size(), 1, start, d);
}

uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

uint32_t CpuNs(uint64_t a, uint64_t b) {
  return static_cast<uint32_t>(std::min<uint64_t>(b - a, UINT32_MAX));
}

uint32_t NsBetween(Clock::time_point a, Clock::time_point b) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
  return static_cast<uint32_t>(std::min<int64_t>(ns, UINT32_MAX));
}

// Whether an answer's pods can be taken on `c` (the state at its start): with its
// victims gone, the job recorded there as running stays guaranteed (its VC's cells
// bind to those GPUs) and the invariants hold.
bool PodsHold(hived_engine *c, const hived_job_request *req, const hived_decision *mine) {
  for (size_t v = 0; v < mine->n_preempted; v++) (void)hived_finish(c, mine->preempted[v]);
  for (size_t v = 0; v < mine->n_lazy_preempted; v++)
    (void)hived_finish(c, mine->lazy_preempted[v]);
  int demoted = 1;
  char err[256];
  return hived_add_running(c, req, mine->pods, mine->n_pods, &demoted) == HIVED_OK &&
         *hived_last_error(c) == '\0' && !demoted &&
         hived_check_invariants(c, err, sizeof err) == HIVED_OK;
}

// The old answer: copy, end the jobs in end order (a group of equal ends at once),
// ask after each group. Returns the start (-1: never). `mine` (not null): an answer
// the VC's guarantee gave, whose nodes may differ; *holds says whether its pods can
// be taken at the copy's start (PodsHold).
int64_t CopyAnswer(const hived_engine *e, const hived_job_request *req,
                   const std::vector<hived_job_end> &sorted, std::string *pods,
                   const hived_decision *mine, bool *holds) {
  hived_engine *c = nullptr;
  if (hived_engine_clone(e, &c) != HIVED_OK) return -2;
  const hived_decision *d = nullptr;
  int64_t at = 0;
  (void)hived_submit(c, req, 1, &d);
  for (size_t k = 0; d && d->outcome == HIVED_WAITING && k < sorted.size();) {
    at = sorted[k].end;
    for (; k < sorted.size() && sorted[k].end == at; k++) (void)hived_finish(c, sorted[k].job);
    (void)hived_submit(c, req, 1, &d);
  }
  int64_t start = d && d->outcome == HIVED_PLACED ? at : -1;
  for (size_t p = 0; d && p < d->n_pods; p++) *pods += std::to_string(d->pods[p].node) + ",";
  if (mine && start >= 0) *holds = PodsHold(c, req, mine);
  hived_engine_free(c);
  return start;
}

// Everything of a mix job's request but its name.
std::string ShapeOf(const Job &j) {
  return j.vc + "/" + std::to_string(j.priority) + "/" + (j.lazy ? "lazy" : "") + "/" +
         std::to_string(j.member.pod_number) + "x" + std::to_string(j.member.leaf_cell_number);
}

WillRunStats BenchWillRun(hived_engine *e, Churn *churn, long n, size_t copies) {
  WillRunStats w;
  std::set<std::string> shapes;
  // Slurm's view: every running job ends at its start + time limit, up to a day away.
  const std::vector<std::string> &names = churn->running();
  std::uniform_int_distribution<int64_t> end(1, 86400);
  std::vector<hived_job_end> ends;
  for (const auto &name : names) ends.push_back({name.c_str(), 1000000 + end(churn->mix().rng())});
  std::vector<hived_job_end> sorted(ends);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const hived_job_end &a, const hived_job_end &b) { return a.end < b.end; });
  for (long tries = 0; w.asked < n && tries < 200 * n; tries++) {
    Job j = churn->mix().Next();
    const hived_job_request req = RequestOf(j);
    const hived_decision *d = nullptr;
    int64_t start = -1;
    if (hived_will_run(e, &req, nullptr, 0, &start, &d) != HIVED_OK || !d ||
        d->outcome != HIVED_WAITING)
      continue;
    if (d->wait_kind == HIVED_WAIT_VC_QUOTA) {
      w.quota++;
      continue;
    }
    if (d->wait_kind == HIVED_WAIT_VC_TOO_SMALL) continue;
    const uint64_t u0 = ThreadCpuNs();
    auto t0 = Clock::now();
    // One list for every question, numbered as the plugin numbers its kept list.
    hived_rc rc = TimedAsk(e, &req, ends, &start, &d);
    auto t1 = Clock::now();
    const uint64_t u1 = ThreadCpuNs();
    if (rc != HIVED_OK || !d) continue;
    w.trial_ns.push_back(NsBetween(t0, t1));
    w.trial_cpu_ns.push_back(CpuNs(u0, u1));
    WillRunStats::Trial t;
    t.cpu_ns = CpuNs(u0, u1);
    hived_will_run_last(e, &t.counts);
    if (!t.counts.from_memo) w.trials.push_back(t);
    const bool by_guarantee = t.counts.by_guarantee != 0;
    w.asked++;
    if (j.priority < 0) w.opportunistic++;
    (d->outcome == HIVED_PLACED ? w.later : w.never)++;
    // The same shape asked again of the same state has the same answer: how much a
    // memo of answers could save, and what the questions it could not save cost.
    if (shapes.insert(ShapeOf(j)).second)
      w.first_cpu_ns.push_back(CpuNs(u0, u1));
    else
      w.repeated++;
    if (w.copy_ns.size() < copies) {
      std::string mine, theirs;
      for (size_t p = 0; p < d->n_pods; p++) mine += std::to_string(d->pods[p].node) + ",";
      const uint64_t v0 = ThreadCpuNs();
      auto c0 = Clock::now();
      bool holds = false;
      int64_t copy_start = CopyAnswer(e, &req, sorted, &theirs, by_guarantee ? d : nullptr, &holds);
      auto c1 = Clock::now();
      const uint64_t v1 = ThreadCpuNs();
      w.copy_ns.push_back(NsBetween(c0, c1));
      w.copy_cpu_ns.push_back(CpuNs(v0, v1));
      // The start must be the copy's; the nodes too, unless the guarantee answered,
      // and then its pods must be free to take at that start.
      if (by_guarantee) {
        w.by_guarantee++;
        if (mine != theirs) w.other_nodes++;
      }
      const bool nodes_ok = by_guarantee ? (start < 0 || holds) : mine == theirs;
      if (copy_start != start || !nodes_ok) w.mismatches++;
    }
  }
  return w;
}

double Percentile(std::vector<uint32_t> &v, double q) {
  if (v.empty()) return 0;
  size_t k = std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5));
  std::nth_element(v.begin(), v.begin() + k, v.end());
  return v[k] / 1000.0;
}

double Max(const std::vector<uint32_t> &v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end()) / 1000.0;
}

using hived_tools::ParseLong;

// Returns -1 to go on, else the exit status.
int ParseArgs(int argc, char **argv, Options *opt) {
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i], v;
    auto value = [&](const char *name) {
      return hived_tools::OptionValue(argc, argv, &i, name, &v);
    };
    long x = 0;
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--print-config") {
      opt->print_config = true;
    } else if (a == "--borrow") {
      opt->borrow = true;
    } else if (value("--sizes")) {
      opt->sizes.clear();
      std::stringstream ss(v);
      std::string item;
      while (ok && std::getline(ss, item, ',')) {
        ok = ParseLong(item, 1, &x) && x <= 100000000;
        opt->sizes.push_back(static_cast<int>(x));
      }
      ok = ok && !opt->sizes.empty();
    } else if (value("--decisions")) {
      ok = ParseLong(v, 1, &opt->decisions);
    } else if (value("--seed")) {
      ok = ParseLong(v, 0, &x);
      opt->seed = static_cast<uint64_t>(x);
    } else if (value("--vcs")) {
      ok = ParseLong(v, 1, &x) && x <= 1000;
      opt->vcs = static_cast<int>(x);
    } else if (value("--will-run")) {
      ok = ParseLong(v, 0, &opt->will_run);
    } else if (value("--will-run-copies")) {
      ok = ParseLong(v, 0, &opt->copies);
    } else if (value("--fill")) {
      ok = ParseLong(v, 0, &opt->fill_misses);
    } else if (value("--check-invariants-every")) {
      ok = ParseLong(v, 1, &opt->check_every);
    } else {
      std::cerr << "hived-bench: unknown or incomplete option '" << a << "'\n" << kUsage;
      return 2;
    }
    if (!ok) {
      std::cerr << "hived-bench: invalid value '" << v << "' for " << a << "\n";
      return 2;
    }
  }
  return -1;
}

// What the WILL_RUN phase of one size measured: the fill before it, the questions,
// and the engine's state around them.
struct WillRunPhase {
  Stats fill;
  long running_jobs = 0;
  double fill_utilization = 0;
  size_t fill_bytes = 0, will_run_bytes = 0;
  WillRunStats w;
  bool ok = true;  // no invariant violated (when checked)
};

WillRunPhase RunWillRun(hived_engine *engine, Churn *churn, const Options &opt, int gpus) {
  WillRunPhase p;
  if (opt.fill_misses > 0) churn->Fill(opt.fill_misses, gpus);
  p.ok = churn->CheckAfter("the fill");
  p.fill = churn->fill_stats();
  p.fill_bytes = hived_memory_bytes(engine);
  p.running_jobs = static_cast<long>(churn->running().size());
  p.fill_utilization = static_cast<double>(churn->used()) / gpus;
  // The copy per question costs O(cluster): fewer of them from 100k GPUs up.
  const long copies = opt.copies >= 0 ? opt.copies : (gpus >= 100000 ? 20 : 200);
  p.w = BenchWillRun(engine, churn, opt.will_run, static_cast<size_t>(copies));
  p.will_run_bytes = hived_memory_bytes(engine);
  p.ok = p.ok && churn->CheckAfter("the WILL_RUN questions");
  return p;
}

// The trials' ends by class, in all and for the slowest few (CPU time): a first
// question's cost is mostly the jobs it ends and puts back, and which of them a trial
// could skip depends on their class (doc/bench.md).
void AddTrials(json_t *o, std::vector<WillRunStats::Trial> *trials) {
  int64_t own = 0, guaranteed = 0, opportunistic = 0, decisions = 0;
  for (const auto &t : *trials) {
    own += t.counts.ended_own;
    guaranteed += t.counts.ended_guaranteed;
    opportunistic += t.counts.ended_opportunistic;
    decisions += t.counts.decisions;
  }
  json_object_set_new(o, "willRunTrials", json_integer(static_cast<json_int_t>(trials->size())));
  json_object_set_new(o, "willRunEndedOwn", json_integer(own));
  json_object_set_new(o, "willRunEndedGuaranteed", json_integer(guaranteed));
  json_object_set_new(o, "willRunEndedOpportunistic", json_integer(opportunistic));
  json_object_set_new(o, "willRunDecisions", json_integer(decisions));
  std::stable_sort(trials->begin(), trials->end(),
                   [](const auto &a, const auto &b) { return a.cpu_ns > b.cpu_ns; });
  json_t *slowest = json_array();
  for (size_t k = 0; k < trials->size() && k < 5; k++) {
    const WillRunStats::Trial &t = (*trials)[k];
    json_array_append_new(
        slowest, json_pack("{s:f,s:I,s:I,s:I,s:i}", "cpu_us", t.cpu_ns / 1000.0, "own",
                           static_cast<json_int_t>(t.counts.ended_own), "guaranteed",
                           static_cast<json_int_t>(t.counts.ended_guaranteed), "opportunistic",
                           static_cast<json_int_t>(t.counts.ended_opportunistic), "decisions",
                           static_cast<int>(t.counts.decisions)));
  }
  json_object_set_new(o, "willRunSlowestTrials", slowest);
}

void AddWillRun(json_t *o, WillRunPhase &p, int gpus) {
  auto num = [o](const char *k, double v) { json_object_set_new(o, k, json_real(v)); };
  auto integer = [o](const char *k, long v) { json_object_set_new(o, k, json_integer(v)); };
  WillRunStats &w = p.w;
  integer("fillSubmits", p.fill.submits);
  integer("fillPlaced", p.fill.placed);
  integer("fillPreemptions", p.fill.preempted + p.fill.lazy_preempted);
  num("fill_utilization", p.fill_utilization);
  num("fill_bytes_per_gpu", static_cast<double>(p.fill_bytes) / gpus);
  integer("runningJobs", p.running_jobs);
  integer("willRunAsked", w.asked);
  integer("willRunOpportunistic", w.opportunistic);
  integer("willRunLater", w.later);
  integer("willRunNever", w.never);
  integer("willRunQuotaSkipped", w.quota);
  num("will_run_p50_us", Percentile(w.trial_ns, 0.50));
  num("will_run_p99_us", Percentile(w.trial_ns, 0.99));
  num("will_run_max_us", Max(w.trial_ns));
  num("will_run_cpu_p50_us", Percentile(w.trial_cpu_ns, 0.50));
  num("will_run_cpu_p99_us", Percentile(w.trial_cpu_ns, 0.99));
  num("will_run_cpu_max_us", Max(w.trial_cpu_ns));
  integer("willRunRepeated", w.repeated);
  num("will_run_first_cpu_p99_us", Percentile(w.first_cpu_ns, 0.99));
  integer("willRunCopyAsked", static_cast<long>(w.copy_ns.size()));
  num("copy_p50_us", Percentile(w.copy_ns, 0.50));
  num("copy_p99_us", Percentile(w.copy_ns, 0.99));
  num("copy_max_us", Max(w.copy_ns));
  num("copy_cpu_p50_us", Percentile(w.copy_cpu_ns, 0.50));
  num("copy_cpu_p99_us", Percentile(w.copy_cpu_ns, 0.99));
  integer("willRunMismatches", w.mismatches);
  integer("willRunByGuarantee", w.by_guarantee);
  integer("willRunOtherNodes", w.other_nodes);
  num("will_run_bytes_per_gpu", static_cast<double>(p.will_run_bytes) / gpus);
  AddTrials(o, &w.trials);
}

int RunSize(const Options &opt, int size) {
  hived_tools::BenchCluster cluster = hived_tools::MakeBenchCluster(size, opt.vcs, 0.85);
  hived_engine *engine = nullptr;
  char errbuf[2048] = "";
  auto b0 = Clock::now();
  hived_rc rc = hived_engine_new(cluster.config_json.c_str(), &engine, errbuf, sizeof errbuf);
  auto b1 = Clock::now();
  if (rc != HIVED_OK || engine == nullptr) {
    std::cerr << "hived-bench: generated config for " << cluster.gpus
              << " GPUs rejected: " << errbuf << "\n";
    return 2;
  }
  const size_t idle_bytes = hived_memory_bytes(engine);
  long decisions = opt.decisions > 0 ? opt.decisions : (cluster.gpus >= 100000 ? 100000 : 200000);
  Churn churn(engine, cluster, opt.seed, opt.check_every);
  churn.mix().borrow = opt.borrow;
  bool ok = churn.Run(decisions);
  size_t bytes = hived_memory_bytes(engine);
  const double utilization = static_cast<double>(churn.used()) / cluster.gpus;
  WillRunPhase wp;
  if (ok && opt.will_run > 0) {
    wp = RunWillRun(engine, &churn, opt, cluster.gpus);
    ok = wp.ok;
  }
  hived_engine_free(engine);
  if (!ok) return 3;

  Stats &s = churn.stats();
  std::vector<uint32_t> all(s.submit_ns);
  all.insert(all.end(), s.finish_ns.begin(), s.finish_ns.end());
  hived_tools::JsonPtr out(json_object());
  json_t *o = out.get();
  auto num = [o](const char *k, double v) { json_object_set_new(o, k, json_real(v)); };
  auto integer = [o](const char *k, long v) { json_object_set_new(o, k, json_integer(v)); };
  integer("gpus", cluster.gpus);
  integer("nodes", cluster.nodes);
  integer("vcs", static_cast<long>(cluster.vcs.size()));
  integer("decisions", static_cast<long>(all.size()));
  integer("submits", s.submits);
  integer("finishes", s.finishes);
  integer("placed", s.placed);
  integer("waiting", s.waiting);
  integer("rejected", s.rejected);
  integer("errors", s.errors);
  integer("preemptions", s.preempted + s.lazy_preempted);
  integer("lazyPreemptions", s.lazy_preempted);
  if (opt.borrow) integer("borrowed", s.borrowed);
  num("utilization", utilization);
  num("p50_us", Percentile(all, 0.50));
  num("p99_us", Percentile(all, 0.99));
  num("max_us", Max(all));
  num("submit_p99_us", Percentile(s.submit_ns, 0.99));
  num("finish_p99_us", Percentile(s.finish_ns, 0.99));
  num("placed_p99_us", Percentile(s.placed_ns, 0.99));
  num("waiting_p99_us", Percentile(s.waiting_ns, 0.99));
  integer("quotaWaits", static_cast<long>(s.quota_wait_ns.size()));
  num("quota_wait_p50_us", Percentile(s.quota_wait_ns, 0.50));
  num("quota_wait_p99_us", Percentile(s.quota_wait_ns, 0.99));
  num("preempting_p99_us", Percentile(s.preempting_ns, 0.99));
  num("gang_p99_us", Percentile(s.gang_ns, 0.99));
  num("opportunistic_p99_us", Percentile(s.opportunistic_ns, 0.99));
  num("bytes_per_gpu", static_cast<double>(bytes) / cluster.gpus);
  num("idle_bytes_per_gpu", static_cast<double>(idle_bytes) / cluster.gpus);
  num("build_ms", std::chrono::duration<double, std::milli>(b1 - b0).count());
  if (opt.will_run > 0) AddWillRun(o, wp, cluster.gpus);
  char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
  std::cout << (text != nullptr ? text : "{}") << std::endl;
  free(text);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  Options opt;
  int rc = ParseArgs(argc, argv, &opt);
  if (rc >= 0) return rc;
  if (opt.print_config) {
    std::cout << hived_tools::MakeBenchCluster(opt.sizes[0], opt.vcs, 0.85).config_json << "\n";
    return 0;
  }
  for (int size : opt.sizes) {
    rc = RunSize(opt, size);
    if (rc != 0) return rc;
  }
  return 0;
}
