// SPDX-License-Identifier: GPL-2.0-or-later
#include "hivedctl_whatif.h"

#include <jansson.h>
#include <strings.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <sstream>

#include "cli_args.h"
#include "hivedctl_access.h"
#include "hivedctl_views.h"
#include "topo/hostlist.h"

namespace hivedctl {
namespace {

struct JsonDel {
  void operator()(json_t* j) const { json_decref(j); }
};
using JsonPtr = std::unique_ptr<json_t, JsonDel>;

bool ParseCount(const std::string& v, int lo, int* out) {
  long x = 0;
  if (!hived_tools::ParseLong(v, lo, &x) || x > 9999999) return false;
  *out = static_cast<int>(x);
  return true;
}

// "[TYPE:]N" of --gpus / --gpus-per-node, "gpu[:TYPE]:N" of --gres.
bool ParseGpus(std::string v, bool gres, std::string* type, int* n) {
  if (gres) {
    if (v.rfind("gpu:", 0) != 0) return false;
    v = v.substr(4);
  }
  size_t colon = v.rfind(':');
  if (colon != std::string::npos) {
    *type = v.substr(0, colon);
    v = v.substr(colon + 1);
    if (type->empty()) return false;
  }
  return ParseCount(v, 1, n);
}

const char* Str(json_t* o, const char* key) {
  const char* s = json_string_value(json_object_get(o, key));
  return s ? s : "";
}

// Engine node index of a status node name, with its GPUs.
struct PodStore {
  std::vector<std::vector<int32_t>> leaves, fractions;
  std::vector<hived_pod> pods;
};

bool AddJob(hived_engine* e, const Job& j, std::string* err) {
  PodStore ps;
  ps.leaves.reserve(j.placement.size());
  ps.fractions.reserve(j.placement.size());
  std::vector<hived_member> members;
  for (const auto& p : j.placement) {
    ps.leaves.emplace_back(p.leaves.begin(), p.leaves.end());
    ps.fractions.emplace_back(p.fractions.begin(), p.fractions.end());
    hived_pod pod{};
    pod.node = hived_node_index(e, p.node.c_str());
    pod.node_name = p.node.c_str();
    pod.leaves = ps.leaves.back().data();
    pod.n_leaves = static_cast<int32_t>(ps.leaves.back().size());
    // A shard job: its fraction slots of its one GPU, asked as that many fractions.
    if (!p.fractions.empty()) {
      pod.fractions = ps.fractions.back().data();
      pod.n_fractions = static_cast<int32_t>(p.fractions.size());
      members.push_back({1, 0, pod.n_fractions});
    } else {
      members.push_back({1, pod.n_leaves, 0});
    }
    ps.pods.push_back(pod);
  }
  hived_job_request req{};
  req.job = j.job.c_str();
  req.vc = j.vc.empty() ? nullptr : j.vc.c_str();
  // A job without a VC the config knows runs opportunistically, as in slurmctld.
  req.priority =
      (j.cls == "guaranteed" && req.vc) ? std::max(j.priority, 0) : HIVED_PRIORITY_OPPORTUNISTIC;
  req.members = members.data();
  req.n_members = members.size();
  req.distinct_nodes = 1;
  int demoted = 0;
  hived_rc rc = hived_add_running(e, &req, ps.pods.data(), ps.pods.size(), &demoted);
  if (rc == HIVED_OK) return true;
  *err = "running job " + j.job + ": " + hived_last_error(e);
  return false;
}

std::string Pods(json_t* placement) {
  std::string out;
  size_t i;
  json_t* p;
  json_array_foreach(placement, i, p) {
    std::vector<int> v;
    size_t k;
    json_t* g;
    json_array_foreach(json_object_get(p, "leaves"), k, g) {
      v.push_back(static_cast<int>(json_integer_value(g)));
    }
    out += std::string(i ? " " : "") + Str(p, "node") + ":" + Ranges(v);
  }
  return out;
}

std::string Victims(json_t* preempts) {
  std::string out;
  size_t i;
  json_t* v;
  json_array_foreach(preempts, i, v) {
    std::string vc = Str(v, "vc");
    out += std::string("  job ") + Str(v, "job") + " (" + (vc.empty() ? "no VC" : vc) + ", " +
           Str(v, "class") + ", " + std::to_string(json_integer_value(json_object_get(v, "gpus"))) +
           " GPUs)" +
           (json_is_true(json_object_get(v, "lazy")) ? ": lazy-preempted, runs on as opportunistic"
                                                     : ": killed (requeued if Slurm requeues it)") +
           "\n";
  }
  return out;
}

const char* CauseText(const std::string& cause) {
  if (cause == "vcQuotaInUse") return "the VC's quota is in use";
  if (cause == "fragmented") return "the VC's free cells are fragmented: enough GPUs, wrong shape";
  if (cause == "noHealthyCell") return "no healthy cell: the VC's cells are doomed or bad";
  if (cause == "higherPriority") return "the cells it fits hold jobs it may not preempt";
  if (cause == "nodesNotAllowed") return "free cells only on nodes it may not use";
  if (cause == "largerThanVc") return "larger than its VC";
  if (cause == "noIdleCell") return "no idle cells of that shape for opportunistic work";
  if (cause == "rejected") return "it can never run as asked";
  if (cause == "partitionRefuses") return "the partition does not take its account, user or QOS";
  if (cause == "limit") return "a partition, QOS or association limit keeps it out";
  return "no cells of that shape";
}

// A partition that never lets the job in: slurmctld keeps it pending there
// (AccountNotAllowed, QOSNotAllowed) before select/hived is asked, whatever the
// cells say.
void Refused(json_t* j, const std::string& why) {
  for (const char* k : {"placement", "preempts", "borrowed", "estimate", "doomedCells"})
    json_object_del(j, k);
  json_object_set_new(j, "startsNow", json_false());
  json_object_set_new(j, "outcome", json_string("rejected"));
  json_object_set_new(j, "cause", json_string("partitionRefuses"));
  json_object_set_new(j, "reason", json_string(why.c_str()));
}

// A per-job limit of its partition, QOS or association: slurmctld checks it before
// select/hived is asked, keeping the job pending with the limit's reason for as
// long as the limit stands, or (DenyOnLimit, EnforcePartLimits) refusing it at
// submission.
void Limited(json_t* j, const WhatifAsk& ask) {
  const bool refused = !ask.limit_refused_by.empty();
  for (const char* k : {"placement", "preempts", "borrowed", "estimate", "doomedCells"})
    json_object_del(j, k);
  json_object_set_new(j, "startsNow", json_false());
  json_object_set_new(j, "outcome", json_string(refused ? "rejected" : "waiting"));
  json_object_set_new(j, "cause", json_string("limit"));
  const std::string why =
      ask.limit_refuses +
      (refused ? "; sbatch refuses it, as " + ask.limit_refused_by
       : ask.limit_on_usage
           ? "; it pends (" + ask.limit_reason + ") until enough of them end"
           : "; it pends (" + ask.limit_reason + ") for as long as the limit stands");
  json_object_set_new(j, "reason", json_string(why.c_str()));
  json_object_set_new(j, "slurmReason", json_string(ask.limit_reason.c_str()));
  if (ask.limit_on_usage) {
    json_t* frees = json_object();
    json_object_set_new(frees, "at", ask.limit_frees ? json_integer(ask.limit_frees) : json_null());
    json_t* after = json_array();
    for (const auto& id : ask.limit_after) json_array_append_new(after, json_string(id.c_str()));
    json_object_set_new(frees, "afterJobs", after);
    json_object_set_new(j, "limitFrees", frees);
  }
}

// The nodes the job may use, as hived_job.c takes them (the partition's, within -w,
// without -x); empty: every node. A -w node the engine has no cells on is an error:
// the job could never start there.
bool UsableNodes(hived_engine* e, const WhatifAsk& ask, std::vector<uint8_t>* usable,
                 std::string* err) {
  usable->clear();
  const bool every = ask.partition.empty() || ask.partition_all;
  if (every && ask.nodelist.empty() && ask.exclude.empty()) return true;
  const size_t n = hived_node_count(e);
  usable->assign(n, every ? 1 : 0);
  for (const auto& name : ask.partition_nodes) {
    int32_t i = hived_node_index(e, name.c_str());
    if (i >= 0) (*usable)[i] = 1;  // nodes without GPUs have no cells
  }
  if (!ask.nodelist.empty()) {
    std::vector<uint8_t> listed(n, 0);
    for (const auto& name : ask.nodelist) {
      int32_t i = hived_node_index(e, name.c_str());
      if (i < 0) {
        *err = "--nodelist: node '" + name + "' has no HiveD cells (no GPUs, or no such node)";
        return false;
      }
      listed[i] = 1;
    }
    for (size_t i = 0; i < n; i++) (*usable)[i] &= listed[i];
  }
  for (const auto& name : ask.exclude) {
    int32_t i = hived_node_index(e, name.c_str());
    if (i >= 0) (*usable)[i] = 0;
  }
  return true;
}

// As select/hived's _smaller_whole_nodes and _will_run_nodes: an exclusive job
// whose whole nodes of the largest size cannot be had now, or only by preempting,
// starts on smaller ones it may use, each size in turn, largest first (where the
// largest preempts, only without preempting). When none starts it, *answer stays
// the largest size's (why it waits, or whom it preempts), a wait with the
// earliest estimate of any size. member: the request's one member, whole nodes of
// the largest size.
void SmallerWholeNodes(hived_engine* e, hived_job_request* req, hived_member* member,
                       const std::vector<uint8_t>& usable, const std::vector<hived_job_end>& ends,
                       int64_t now, std::string* answer) {
  JsonPtr largest_answer(json_loads(answer->c_str(), 0, nullptr));
  if (!largest_answer) return;
  auto starts = [](json_t* j) { return json_is_true(json_object_get(j, "startsNow")); };
  auto preempts = [](json_t* j) { return json_array_size(json_object_get(j, "preempts")) > 0; };
  const bool spare = starts(largest_answer.get());
  if (spare && !preempts(largest_answer.get())) return;
  auto start_of = [](json_t* j) {
    json_t* t = json_object_get(json_object_get(j, "estimate"), "start");
    return json_is_integer(t) ? json_integer_value(t) : int64_t{-1};
  };
  int64_t best = start_of(largest_answer.get());
  JsonPtr best_estimate;
  const char* vc = req->priority >= 0 ? req->vc : nullptr;
  const char* type = req->leaf_cell_type;
  std::vector<uint8_t> allowed(hived_node_count(e));
  const hived_member largest = *member;
  const uint8_t* was_allowed = req->allowed_nodes;
  for (int32_t size = largest.leaf_cell_number;
       (size = hived_next_whole_node_leaves(e, vc, type, usable.empty() ? nullptr : usable.data(),
                                            size, allowed.data())) > 0;) {
    member->leaf_cell_number = size;
    req->allowed_nodes = allowed.data();
    char* text = nullptr;
    hived_rc rc = hived_whatif(e, req, ends.data(), ends.size(), now, &text);
    JsonPtr j(rc == HIVED_OK && text ? json_loads(text, 0, nullptr) : nullptr);
    if (j && starts(j.get()) && !(spare && preempts(j.get()))) {
      *answer = text;
      free(text);
      *member = largest;
      req->allowed_nodes = was_allowed;
      return;
    }
    free(text);
    const int64_t at = j ? start_of(j.get()) : -1;
    if (at >= 0 && (best < 0 || at < best)) {
      best = at;
      best_estimate.reset(json_incref(json_object_get(j.get(), "estimate")));
    }
  }
  *member = largest;
  req->allowed_nodes = was_allowed;
  if (spare || !best_estimate) return;
  json_object_set(largest_answer.get(), "estimate", best_estimate.get());
  char* d = json_dumps(largest_answer.get(), JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (d) *answer = d;
  free(d);
}

// The gang shape, asked of libhived as hived_job.c asks it from the job record; vc:
// a guaranteed job's VC (its whole nodes are of its VC's chains), else nullptr;
// usable: the nodes it may use (nullptr: all), which size its whole nodes.
bool WhatifShape(hived_engine* e, const WhatifAsk& ask, const char* vc, bool split,
                 const uint8_t* usable, hived_gpu_shape* shape, std::string* err) {
  if (!ask.gpus_per_node && !ask.gpus) {
    *err = "whatif needs GPUs: --gpus-per-node=N, --gres=gpu:N or --gpus=N";
    return false;
  }
  hived_gpu_ask a{};
  a.nodes = ask.nodes;
  a.max_nodes = ask.nodes_given ? ask.nodes : 0;
  a.gpus_per_node = ask.gpus_per_node;
  a.gpus_per_job = ask.gpus;
  // Slices of a MIG profile are asked per node, exclusive or not (hived_job.c).
  a.whole_node = ask.exclusive && !hived_is_mig_profile(e, ask.gpu_type.c_str());
  a.split_count_only = split;
  a.node_count = hived_node_count(e);
  const char* type = hived_has_leaf_type(e, ask.gpu_type.c_str()) ? ask.gpu_type.c_str() : nullptr;
  a.max_node_leaves = hived_whole_node_leaves(e, vc, type, usable);
  char buf[256] = "";
  if (hived_gpu_shape_of(&a, shape, buf, sizeof buf) == HIVED_OK) return true;
  *err = buf;
  return false;
}

}  // namespace

int TakeWhatifOption(int argc, char** argv, int* i, WhatifAsk* ask, std::string* err) {
  std::string a = argv[*i], name = a, val;
  bool has_val = false;
  size_t eq = a.find('=');
  if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
    name = a.substr(0, eq);
    val = a.substr(eq + 1);
    has_val = true;
  } else if (a.size() > 2 && a[0] == '-' && a[1] != '-' &&
             std::string("ANqGpwxt").find(a[1]) != std::string::npos) {
    // sbatch's short options take their value glued on too: -N2, -Avc1.
    name = a.substr(0, 2);
    val = a.substr(2);
    has_val = true;
  }
  static const char* const kFlags[] = {"--hived-lazy-preempt", "--hived-opportunistic",
                                       "--exclusive"};
  bool* const flag_of[] = {&ask->lazy, &ask->opportunistic, &ask->exclusive};
  for (size_t f = 0; f < sizeof(kFlags) / sizeof(kFlags[0]); f++)
    if (name == kFlags[f]) {
      if (has_val) {
        // --exclusive=user or =mcs shares no GPUs out: only the bare flag changes the shape.
        *err = name + " takes no value";
        return -1;
      }
      *flag_of[f] = true;
      return 1;
    }
  static const char* const kValued[] = {"-A",
                                        "--account",
                                        "-q",
                                        "--qos",
                                        "--priority",
                                        "-N",
                                        "--nodes",
                                        "--gpus-per-node",
                                        "--gres",
                                        "--gpus",
                                        "-G",
                                        "--hived-within",
                                        "--hived-pinned",
                                        "--switches",
                                        "-p",
                                        "--partition",
                                        "-w",
                                        "--nodelist",
                                        "-x",
                                        "--exclude",
                                        "-t",
                                        "--time"};
  bool known = false;
  for (const char* v : kValued) known = known || name == v;
  if (!known) return 0;
  if (!has_val) {
    if (*i + 1 >= argc) {
      *err = name + " needs a value";
      return -1;
    }
    val = argv[++*i];
  }
  auto bad = [&](const std::string& why) {
    *err = name + "=" + val + ": " + why;
    return -1;
  };
  if (name == "-A" || name == "--account") {
    ask->account = val;
  } else if (name == "-q" || name == "--qos") {
    ask->qos = val;
  } else if (name == "--priority") {
    if (!ParseCount(val, 0, &ask->priority) || ask->priority > HIVED_PRIORITY_MAX)
      return bad("must be an integer 0..1000 (the engine's priority)");
  } else if (name == "-N" || name == "--nodes") {
    if (!ParseCount(val, 1, &ask->nodes)) return bad("must be a node count of at least 1");
    ask->nodes_given = true;
  } else if (name == "--gpus-per-node") {
    if (!ParseGpus(val, false, &ask->gpu_type, &ask->gpus_per_node))
      return bad("must be [TYPE:]N with N at least 1");
  } else if (name == "--gres") {
    if (!ParseGpus(val, true, &ask->gpu_type, &ask->gpus_per_node))
      return bad("must be gpu[:TYPE]:N with N at least 1 (GPUs per node)");
  } else if (name == "--gpus" || name == "-G") {
    if (!ParseGpus(val, false, &ask->gpu_type, &ask->gpus))
      return bad("must be [TYPE:]N with N at least 1");
  } else if (name == "--hived-within") {
    ask->within = val;
  } else if (name == "--hived-pinned") {
    ask->pinned = val;
  } else if (name == "--switches") {
    int n = 0;
    if (!ParseCount(val.substr(0, val.find('@')), 1, &n))
      return bad("must be a count (1: one rack)");
    ask->switches_one = n == 1;
  } else if (name == "-p" || name == "--partition") {
    if (val.empty() || val.front() == ',' || val.back() == ',' ||
        val.find(",,") != std::string::npos)
      return bad("must be a partition name or a comma-separated list of them");
    ask->partition = val;
  } else if (name == "-t" || name == "--time") {
    ask->time_limit = TimeMinutes(val);
    if (ask->time_limit < 0)
      return bad("must be a time: MIN, MIN:SEC, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED");
    if (ask->time_limit == 0) ask->time_limit = kUnlimitedMinutes;  // sbatch: 0 is no limit
  } else if (name == "-w" || name == "--nodelist" || name == "-x" || name == "--exclude") {
    std::vector<std::string>* list =
        name == "-w" || name == "--nodelist" ? &ask->nodelist : &ask->exclude;
    list->clear();
    hived::Status st = hived::topo::expand_hostlist(val, list, hived::topo::kMaxClusterNodes);
    if (!st.ok()) return bad(st.msg);
    if (list->empty()) return bad("names no node");
  }
  return 1;
}

std::string WhatifConfig(const Status& st, const std::string& state_text, std::string* err) {
  json_t* own = st.root ? json_object_get(st.root.get(), "config") : nullptr;
  JsonPtr state;
  json_t* cfg = own;
  if (!json_is_object(cfg)) {
    if (state_text.empty()) {
      *err = "the status file has no config and no state file was read";
      return "";
    }
    json_error_t je;
    state.reset(json_loadb(state_text.data(), state_text.size(), 0, &je));
    cfg = state ? json_object_get(state.get(), "config") : nullptr;
    if (!json_is_object(cfg)) {
      *err = "state file: no \"config\" object (is it select/hived's hived_state.json?)";
      return "";
    }
  }
  // The engine's config has no "slurm" section; the class, priority and split of a
  // job come from it (opportunisticQos, priorityScale, ...), which slurmctld writes
  // beside it in the status file.
  json_t* slurm = st.root ? json_object_get(st.root.get(), "slurm") : nullptr;
  JsonPtr with(json_is_object(slurm) && !json_object_get(cfg, "slurm") ? json_copy(cfg) : nullptr);
  if (with) {
    json_object_set(with.get(), "slurm", slurm);
    cfg = with.get();
  }
  char* text = json_dumps(cfg, JSON_COMPACT | JSON_PRESERVE_ORDER);
  std::string out = text ? text : "";
  free(text);
  if (out.empty()) *err = "config: cannot be re-encoded";
  return out;
}

bool WhatifEngine(const Status& st, const std::string& config_text, hived_engine** out,
                  std::string* err) {
  char eb[1024] = "";
  *out = nullptr;
  hived_engine* e = nullptr;
  if (hived_engine_new(config_text.c_str(), &e, eb, sizeof(eb)) != HIVED_OK) {
    *err = std::string("config: ") + eb;
    return false;
  }
  for (const auto& n : st.bad_nodes) (void)hived_set_node_health(e, n.c_str(), 0);
  for (int pass = 0; pass < 2; pass++)
    for (const auto& j : st.jobs) {
      if ((j.cls == "guaranteed") != (pass == 0)) continue;
      if (!AddJob(e, j, err)) {
        hived_engine_free(e);
        return false;
      }
    }
  *out = e;
  return true;
}

std::vector<std::pair<std::string, int64_t>> ParseEnds(const std::string& text) {
  std::vector<std::pair<std::string, int64_t>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t bar = line.find('|');
    if (bar == std::string::npos) continue;
    std::string id = line.substr(0, bar), when = line.substr(bar + 1);
    while (!when.empty() && isspace(static_cast<unsigned char>(when.back()))) when.pop_back();
    if (id.empty() || when.empty()) continue;
    int64_t end = 0;
    struct tm tm {};
    const char* rest = strptime(when.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
    if (rest && !*rest) {
      tm.tm_isdst = -1;  // squeue prints local time
      end = static_cast<int64_t>(mktime(&tm));
    } else if (when.find_first_not_of("0123456789") == std::string::npos && when.size() < 19) {
      end = strtoll(when.c_str(), nullptr, 10);
    }
    out.emplace_back(id, end);
  }
  return out;
}

int Whatif(hived_engine* e, const std::string& config_text, const WhatifAsk& ask,
           const std::vector<std::pair<std::string, int64_t>>& ends, int64_t now, std::string* json,
           std::string* err) {
  // The class and priority as hived_job.c gives them: an opportunistic QOS, or an
  // account that is no VC, runs opportunistically.
  hived_settings* s = nullptr;
  char eb[512] = "";
  (void)hived_settings_load(config_text.c_str(), &s, eb, sizeof(eb));
  bool opp_qos = false;
  for (size_t i = 0; s && i < s->n_opportunistic_qos; i++)
    opp_qos = opp_qos || !strcasecmp(s->opportunistic_qos[i], ask.qos.c_str());
  const int scale = s && s->priority_scale > 0 ? s->priority_scale : 1;
  const bool reject_no_vc = s && s->accounts_without_cells_reject;
  const bool split = !s || s->split_count_only_jobs;
  const bool reject_larger = s && s->larger_than_vc_reject;
  hived_settings_free(s);
  const char* vc = nullptr;
  for (size_t i = 0; i < hived_vc_count(e); i++)
    if (!strcasecmp(hived_vc_name(e, i), ask.account.c_str())) vc = hived_vc_name(e, i);
  if (!vc && reject_no_vc) {
    *err = "account '" + ask.account +
           "' has no HiveD cells and hived.conf refuses such jobs (accountsWithoutCells)";
    return 1;
  }
  hived_job_request req{};
  req.job = "whatif";
  req.vc = vc;
  if (opp_qos || !vc || ask.opportunistic)
    req.priority = HIVED_PRIORITY_OPPORTUNISTIC;
  else
    req.priority = std::min(ask.priority < 0 ? 0 : ask.priority / scale, HIVED_PRIORITY_MAX);

  std::vector<uint8_t> usable;
  if (!UsableNodes(e, ask, &usable, err)) return 1;
  const uint8_t* usable_mask = usable.empty() ? nullptr : usable.data();
  hived_gpu_shape shape{};
  if (!WhatifShape(e, ask, req.priority < 0 ? nullptr : vc, split, usable_mask, &shape, err))
    return 1;
  req.members = shape.members;
  req.n_members = shape.n_members;
  req.split_max_pods = shape.split_max_pods;
  req.distinct_nodes = 1;
  if (!ask.gpu_type.empty() && hived_has_leaf_type(e, ask.gpu_type.c_str()))
    req.leaf_cell_type = ask.gpu_type.c_str();
  // A whole node of another size is not the pod it asks (hived_job.c).
  std::vector<uint8_t> allowed = usable;
  if (shape.whole_node_leaves) {
    allowed.resize(hived_node_count(e), 1);
    for (size_t i = 0; i < hived_node_count(e); i++)
      if (!hived_is_node_cell_size(e, i, shape.whole_node_leaves, req.leaf_cell_type))
        allowed[i] = 0;
  }
  if (!allowed.empty()) req.allowed_nodes = allowed.data();
  std::string within = ask.within;
  if (within.empty() && ask.switches_one && ask.nodes > 1 && hived_node_count(e) &&
      hived_node_parent_type(e, 0))
    within = hived_node_parent_type(e, 0);
  if (!within.empty()) req.within_cell_type = within.c_str();
  if (!ask.pinned.empty()) req.pinned_cell_id = ask.pinned.c_str();
  req.lazy_preemption = ask.lazy ? 1 : 0;
  req.borrow_idle_cells = ask.borrow && req.priority >= 0 ? 1 : 0;

  std::vector<hived_job_end> c_ends;
  for (const auto& p : ends) c_ends.push_back({p.first.c_str(), p.second});
  char* text = nullptr;
  hived_rc rc = hived_whatif(e, &req, c_ends.data(), c_ends.size(), now, &text);
  std::string answer = text ? text : "";
  free(text);
  if (rc == HIVED_OK && shape.whole_node_leaves && shape.n_members == 1)
    SmallerWholeNodes(e, &req, &shape.members[0], usable, c_ends, now, &answer);
  if (rc == HIVED_OK) {
    *json = answer;
    JsonPtr j(json_loads(answer.c_str(), 0, nullptr));
    // hived.conf "jobsLargerThanVc": "reject": slurmctld refuses it at submission.
    if (j && reject_larger && std::string(Str(j.get(), "cause")) == "largerThanVc") {
      json_object_del(j.get(), "estimate");
      json_object_set_new(j.get(), "outcome", json_string("rejected"));
      json_object_set_new(
          j.get(), "reason",
          json_string((std::string(Str(j.get(), "reason")) +
                       "; sbatch refuses it (hived.conf jobsLargerThanVc is \"reject\")")
                          .c_str()));
    }
    if (j && !ask.qos.empty()) {  // the QOS that gave the class and priority
      json_object_set_new(j.get(), "qos", json_string(ask.qos.c_str()));
      json_object_set_new(j.get(), "qosFrom",
                          json_string(ask.qos_from.empty() ? "option" : ask.qos_from.c_str()));
    }
    // Which partition's nodes it was asked for, as sbatch would pick it.
    if (j && !ask.partition.empty()) {
      json_object_set_new(j.get(), "partition", json_string(ask.partition.c_str()));
      json_object_set_new(
          j.get(), "partitionFrom",
          json_string(ask.partition_from.empty() ? "option" : ask.partition_from.c_str()));
      if (!ask.partition_refuses.empty()) Refused(j.get(), ask.partition_refuses);
    }
    if (j && ask.partition_refuses.empty() && !ask.limit_refuses.empty()) Limited(j.get(), ask);
    if (j) {
      char* d = json_dumps(j.get(), JSON_COMPACT | JSON_PRESERVE_ORDER);
      if (d) *json = d;
      free(d);
    }
    return 0;
  }
  JsonPtr j(json_loads(answer.c_str(), 0, nullptr));
  *err = j ? Str(j.get(), "error") : std::string(hived_rc_str(rc));
  // The engine names its request fields; the user typed sbatch's options.
  static const char* const kOption[][2] = {{"withinCellType", "--hived-within"},
                                           {"pinnedCellId", "--hived-pinned"},
                                           {"leafCellType", "the GPU type"}};
  for (const auto& o : kOption)
    if (err->rfind(o[0], 0) == 0) *err = std::string(o[1]) + " (" + *err + ")";
  // Not the request's fault: libhived ran out of memory or failed inside.
  return (rc == HIVED_ENOMEM || rc == HIVED_EINTERNAL) ? 2 : 1;
}

int WhatifPartitions(hived_engine* e, const std::string& config_text,
                     const std::vector<WhatifAsk>& asks,
                     const std::vector<std::pair<std::string, int64_t>>& ends, int64_t now,
                     std::string* json, std::string* err) {
  if (asks.size() == 1) return Whatif(e, config_text, asks[0], ends, now, json, err);
  JsonPtr best, names(json_array());
  for (const auto& ask : asks)
    json_array_append_new(names.get(), json_string(ask.partition.c_str()));
  // Starts now, then the earliest estimate, then waits without one, then refused.
  std::pair<int, int64_t> best_rank(4, 0);
  int first_rc = 0;
  std::string first_err;
  for (const auto& ask : asks) {
    std::string answer, why;
    int rc = Whatif(e, config_text, ask, ends, now, &answer, &why);
    if (rc == 2) {  // libhived is failing: no answer is worth giving
      *err = why;
      return rc;
    }
    if (rc) {
      if (!first_rc) first_rc = rc, first_err = why;
      continue;
    }
    JsonPtr j(json_loads(answer.c_str(), 0, nullptr));
    if (!j) continue;
    json_t* start = json_object_get(json_object_get(j.get(), "estimate"), "start");
    std::pair<int, int64_t> rank(2, 0);
    if (json_is_true(json_object_get(j.get(), "startsNow")))
      rank = {0, 0};
    else if (std::string(Str(j.get(), "outcome")) == "rejected")
      rank = {3, 0};
    else if (json_is_integer(start))
      rank = {1, json_integer_value(start)};
    if (rank < best_rank) {
      best = std::move(j);
      best_rank = rank;
    }
    if (rank.first == 0) break;  // Slurm starts it in the first that can
  }
  if (!best) {
    *err = first_rc ? first_err : "unreadable answer from libhived";
    return first_rc ? first_rc : 2;
  }
  json_object_set(best.get(), "partitionsAsked", names.get());
  char* d = json_dumps(best.get(), JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (!d) {
    *err = "out of memory";
    return 2;
  }
  *json = d;
  free(d);
  return 0;
}

namespace {

// A time, and how far ahead when it is still to come.
std::string TimeAhead(int64_t t, int64_t now) {
  return TimeText(t) + (t > now ? " (in " + std::to_string((t - now + 59) / 60) + " min)" : "");
}

// "job 4" or "jobs 4,5,6": the first eight of a list of job ids (the last is the
// one waited for; a long list says little), then how many more.
std::string JobIds(const std::vector<std::string>& ids) {
  const size_t n = ids.size(), shown = 8;
  std::string out = n == 1 ? "job " : "jobs ";
  for (size_t i = 0; i < n && i < shown; i++) out += (i ? "," : "") + ids[i];
  if (n > shown) out += " and " + std::to_string(n - shown) + " more";
  return out;
}

std::vector<std::string> Strings(json_t* array) {
  std::vector<std::string> out;
  size_t i;
  json_t* a;
  json_array_foreach(array, i, a) {
    if (json_is_string(a)) out.push_back(json_string_value(a));
  }
  return out;
}

std::string JobIds(json_t* ids) { return JobIds(Strings(ids)); }

}  // namespace

std::string LimitFreesText(const UsageHold& hold, int64_t now) {
  if (hold.never) return "The limit frees: never by jobs ending: the job alone asks for more\n";
  if (!hold.frees) return "The limit frees: unknown: the jobs it counts have no end time\n";
  return "The limit frees: " + TimeAhead(hold.frees, now) + ", when " + JobIds(hold.after) +
         (hold.after.size() == 1 ? " ends" : " end") + "; cells permitting\n";
}

std::string WhatifText(const std::string& json, int64_t now) {
  JsonPtr j(json_loads(json.c_str(), 0, nullptr));
  if (!j) return "whatif: unreadable answer\n";
  json_t* r = j.get();
  std::ostringstream o;
  const std::string vc = Str(r, "vc"), cause = Str(r, "cause");
  const int64_t gpus = json_integer_value(json_object_get(r, "gpus"));
  o << "Job of " << gpus << " GPU" << (gpus == 1 ? "" : "s") << ", "
    << (vc.empty() ? "no VC" : "VC " + vc) << ", " << Str(r, "class");
  if (std::string(Str(r, "class")) == "guaranteed")
    o << " (priority " << json_integer_value(json_object_get(r, "priority")) << ")";
  if (std::string(Str(r, "qosFrom")) == "association")
    o << ", QOS " << Str(r, "qos") << " (its association's default: no -q given)";
  const int64_t vfree = json_integer_value(json_object_get(r, "vcFreeGpus"));
  if (!vc.empty() && vfree >= 0) o << "; the VC has " << vfree << " free GPUs in its cells";
  o << "\n";
  const std::string part = Str(r, "partition"), from = Str(r, "partitionFrom");
  if (!part.empty()) {
    o << "Partition " << part;
    std::string list;
    size_t i;
    json_t* a;
    json_array_foreach(json_object_get(r, "partitionsAsked"), i, a) {
      list += (i ? "," : "") + std::string(json_string_value(a));
    }
    if (!list.empty()) o << ", of " << list << " (Slurm's order)";
    o << (from == "default" ? " (the default)" : from == "option" ? "" : " (" + from + ")") << "\n";
  }
  if (json_is_true(json_object_get(r, "startsNow"))) {
    o << "Starts now on " << Pods(json_object_get(r, "placement")) << "\n";
    if (json_is_true(json_object_get(r, "borrowed")))
      o << "  on idle GPUs outside its VC's cells (borrowIdleCells): it runs as opportunistic, "
           "and a guaranteed job that needs them preempts it\n";
    json_t* pre = json_object_get(r, "preempts");
    if (json_array_size(pre)) o << "Preempts:\n" << Victims(pre);
    return o.str();
  }
  o << (std::string(Str(r, "outcome")) == "rejected" ? "Refused: " : "Waits: ") << CauseText(cause)
    << "\n  " << Str(r, "reason") << "\n";
  if (json_t* d = json_object_get(r, "doomedCells"))
    o << "  doomed cells of the VC: " << json_integer_value(d) << "\n";
  if (json_t* frees = json_object_get(r, "limitFrees")) {
    json_t* at = json_object_get(frees, "at");
    UsageHold hold;
    hold.frees = json_is_integer(at) ? json_integer_value(at) : 0;
    hold.after = Strings(json_object_get(frees, "afterJobs"));
    o << LimitFreesText(hold, now);
  }
  json_t* est = json_object_get(r, "estimate");
  json_t* start = json_object_get(est, "start");
  if (json_is_integer(start)) {
    json_t* after = json_object_get(est, "afterJobs");
    o << "Estimated start: " << TimeAhead(json_integer_value(start), now) << ", after "
      << JobIds(after) << " end" << (json_array_size(after) == 1 ? "s" : "") << ", on "
      << Pods(json_object_get(est, "placement")) << "\n";
    json_t* pre = json_object_get(est, "preempts");
    if (json_array_size(pre)) o << "  then preempting:\n" << Victims(pre);
  } else if (est && cause != "rejected") {
    o << "Estimated start: unknown: " << Str(est, "why") << "\n";
  }
  return o.str();
}

}  // namespace hivedctl
