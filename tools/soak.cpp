// SPDX-License-Identifier: GPL-2.0-or-later
// The engine soak (soak.h). Everything goes through include/hived.h, as in the Slurm
// plugin; the soak keeps its own record of every job's GPUs and of each VC's
// guaranteed use and compares it with the engine after every step.
#include "soak.h"

#include <jansson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "hived.h"

namespace hived_tools {
namespace {

constexpr int kGpusPerNode = 8;
constexpr int kNodesPerRack = 25;  // 50 racks x 25 nodes x 8 GPUs = 10 000 GPUs
constexpr int kMaxPins = 4;

constexpr int kFractions = 4;  // quarters of a GPU with SoakOptions::fractions

// SoakOptions::mig: the MIG GPU's slices, after the node's whole GPUs.
const char *const kProfiles[] = {"a100_3g.20gb", "a100_2g.10gb"};
constexpr int kSliceIdx[2][2] = {{kGpusPerNode, -1}, {kGpusPerNode + 1, kGpusPerNode + 2}};
constexpr int kSlicesOf[2] = {1, 2};  // per node

struct VcQuota {
  int racks = 0, nodes = 0, sockets = 0, pairs = 0;
  int halves = 0, quarters = 0;  // fractional cells (SoakOptions::fractions)
  int slices[2] = {0, 0};        // slice cells per profile (SoakOptions::mig)
  int pin_node = -1;             // the node of the VC's pinned cell, or -1
  int Gpus() const {
    return racks * kNodesPerRack * kGpusPerNode + nodes * kGpusPerNode + sockets * 4 + pairs * 2;
  }
  // In slots: GPUs, or with fractions quarters of a GPU (the engine's leaf cells).
  int Units(int slots) const { return Gpus() * slots + halves * 2 + quarters; }
};

struct MPod {
  int32_t node;
  std::vector<int32_t> leaves;
  std::vector<int32_t> fractions;  // slots of the one GPU in leaves; empty: whole GPUs
};

struct MJob {
  std::string name;
  int vc = -1;  // -1: opportunistic without a VC
  int32_t priority = 0;
  bool guaranteed = false;  // holds VC cells now (false once demoted)
  bool lazy = false;
  std::string pinned, within, pod_within, leaf_type;
  int profile = -1;  // kProfiles index of a slice job, else -1
  bool distinct = false;
  bool borrow = false;  // borrow_idle_cells
  std::vector<hived_member> members;
  std::vector<MPod> pods;
  int gpus = 0;     // in slots (see VcQuota::Units)
  size_t slot = 0;  // index in Soak::names_
};

// A request the soak builds; owns the strings the C struct points to.
struct Req {
  MJob job;
  std::vector<uint8_t> allowed;  // empty: none
  bool expect_fit = false;       // the model says it must be placed (see MustFit)
  int32_t split_max_pods = 0;    // WillRun's asks only: the model places compact shapes
  hived_job_request c{};
  const hived_job_request *Fill() {
    c = hived_job_request{};
    c.job = job.name.c_str();
    c.vc = job.vc >= 0 ? vc_name.c_str() : nullptr;
    c.priority = job.priority;
    c.leaf_cell_type = job.leaf_type.empty() ? nullptr : job.leaf_type.c_str();
    c.pinned_cell_id = job.pinned.empty() ? nullptr : job.pinned.c_str();
    c.within_cell_type = job.within.empty() ? nullptr : job.within.c_str();
    c.pod_within_cell_type = job.pod_within.empty() ? nullptr : job.pod_within.c_str();
    c.lazy_preemption = job.lazy ? 1 : 0;
    c.distinct_nodes = job.distinct ? 1 : 0;
    c.members = job.members.empty() ? nullptr : job.members.data();
    c.n_members = job.members.size();
    c.allowed_nodes = allowed.empty() ? nullptr : allowed.data();
    c.split_max_pods = split_max_pods;
    c.borrow_idle_cells = job.borrow ? 1 : 0;
    return &c;
  }
  std::string vc_name;
};

struct JsonDel {
  void operator()(json_t *j) const { json_decref(j); }
};
using Json = std::unique_ptr<json_t, JsonDel>;

std::string Take(char *s) {
  std::string r = s ? s : "";
  free(s);
  return r;
}

class Soak {
 public:
  Soak(const SoakOptions &opt, std::ostream *progress)
      : opt_(opt), progress_(progress), rng_(opt.seed) {}
  ~Soak() {
    if (engine_) hived_engine_free(engine_);
  }

  SoakResult Run() {
    auto t0 = std::chrono::steady_clock::now();
    if (Setup()) {
      for (step_ = 1; step_ <= opt_.steps; step_++) {
        if (!Step()) break;
        res_.steps_done = step_;
        if (opt_.progress_every > 0 && step_ % opt_.progress_every == 0 && progress_) {
          double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          *progress_ << "hived-soak: step " << step_ << ", " << jobs_.size() << " jobs, "
                     << used_gpus_ << " GPUs used, " << bad_.size() << " bad nodes, " << s
                     << " s\n";
          progress_->flush();
        }
      }
      if (res_.ok && !Sweep()) res_.failed_step = opt_.steps;
    }
    res_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res_;
  }

 private:
  // ------------------------------------------------------------ randomness
  uint64_t R() { return rng_(); }
  int U(int n) { return n <= 1 ? 0 : static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool P(double p) { return static_cast<double>(rng_() >> 11) * 0x1.0p-53 < p; }

  // ------------------------------------------------------------ failure
  bool Fail(const std::string &msg) {
    if (res_.ok) {
      res_.ok = false;
      res_.failed_step = step_;
      res_.failed_op = op_;
      res_.message = msg;
    }
    return false;
  }
  std::string Err() const { return engine_ ? hived_last_error(engine_) : ""; }

  // ------------------------------------------------------------ cluster
  std::string VcName(int v) const { return "vc" + std::to_string(v); }
  std::string PinName(int v) const { return "PIN-vc" + std::to_string(v); }

  // Quotas for `share` of the unpinned GPUs, VC sizes by `weights`; the first two
  // VCs may own a whole rack each when most racks are left to split.
  std::vector<VcQuota> MakeQuotas(double share, const std::vector<int> &weights, int rack_cells) {
    std::vector<VcQuota> q(opt_.vcs);
    int capacity = (nodes_ - pins_) * kGpusPerNode;
    int budget = static_cast<int>(capacity * share) - rack_cells * kNodesPerRack * kGpusPerNode;
    int wsum = 0;
    for (int w : weights) wsum += w;
    for (int v = 0; v < opt_.vcs; v++) {
      q[v].racks = v < rack_cells ? 1 : 0;
      int s = budget * weights[v] / wsum;
      q[v].nodes = s * 7 / 10 / kGpusPerNode;
      int rest = s - q[v].nodes * kGpusPerNode;
      q[v].sockets = rest / 2 / 4;
      q[v].pairs = (rest - q[v].sockets * 4) / 2;
      q[v].pin_node = v < pins_ ? v * kNodesPerRack + kNodesPerRack - 1 : -1;
      // One pair's worth as fractional cells: two halves and four quarters.
      if (opt_.fractions && q[v].pairs > 0) {
        q[v].pairs--;
        q[v].halves = 2;
        q[v].quarters = 4;
      }
      for (int p = 0; opt_.mig && p < 2; p++)
        q[v].slices[p] = static_cast<int>(nodes_ * kSlicesOf[p] * share) * weights[v] / wsum;
    }
    return q;
  }

  static void Cell(std::string *j, const char *type, int n) {
    if (n <= 0) return;
    if (j->back() != '[') j->push_back(',');
    *j += "{\"cellType\":\"";
    *j += type;
    *j += "\",\"cellNumber\":" + std::to_string(n) + "}";
  }

  std::string ConfigJson(const std::vector<VcQuota> &q, const std::string &bad_vc_cell = "") const {
    std::string j;
    j.reserve(static_cast<size_t>(nodes_) * 24 + 4096);
    j = "{\"physicalCluster\":{\"cellTypes\":{";
    if (opt_.fractions)
      j += "\"V100-HALF\":{\"childCellType\":\"V100-QUARTER\",\"childCellNumber\":2},"
           "\"V100\":{\"childCellType\":\"V100-HALF\",\"childCellNumber\":2,"
           "\"isGpuLevel\":true},";
    j += "\"PAIR\":{\"childCellType\":\"V100\",\"childCellNumber\":2},"
         "\"SOCKET\":{\"childCellType\":\"PAIR\",\"childCellNumber\":2},"
         "\"NODE\":{\"childCellType\":\"SOCKET\",\"childCellNumber\":2,\"isNodeLevel\":true},"
         "\"RACK\":{\"childCellType\":\"NODE\",\"childCellNumber\":" +
         std::to_string(kNodesPerRack) + "}";
    for (int p = 0; opt_.mig && p < 2; p++)
      j += std::string(",\"MIG") + std::to_string(p) + "-NODE\":{\"childCellType\":\"" +
           kProfiles[p] + "\",\"childCellNumber\":" + std::to_string(kSlicesOf[p]) +
           ",\"isNodeLevel\":true,\"childIsMigSlice\":true}";
    j += "},\"physicalCells\":[";
    for (int r = 0; r < racks_; r++) {
      if (r > 0) j.push_back(',');
      j += "{\"cellType\":\"RACK\",\"cellAddress\":\"rack" + std::to_string(r) +
           "\",\"cellChildren\":[";
      for (int n = 0; n < kNodesPerRack; n++) {
        int node = r * kNodesPerRack + n;
        if (n > 0) j.push_back(',');
        j += "{\"cellAddress\":\"n" + std::to_string(node) + "\"";
        for (int v = 0; v < opt_.vcs && v < pins_; v++)
          if (q[v].pin_node == node) j += ",\"pinnedCellId\":\"" + PinName(v) + "\"";
        j += "}";
      }
      j += "]}";
    }
    // Slices are addressed by their GRES index, after the node's whole GPUs.
    for (int n = 0; opt_.mig && n < nodes_; n++)
      for (int p = 0; p < 2; p++) {
        j += ",{\"cellType\":\"MIG" + std::to_string(p) + "-NODE\",\"cellAddress\":\"n" +
             std::to_string(n) + "\",\"cellChildren\":[";
        for (int k = 0; k < kSlicesOf[p]; k++)
          j += std::string(k ? "," : "") + "{\"cellAddress\":\"" + std::to_string(kSliceIdx[p][k]) +
               "\"}";
        j += "]}";
      }
    j += "]},\"virtualClusters\":{";
    for (int v = 0; v < opt_.vcs; v++) {
      if (v > 0) j.push_back(',');
      j += "\"" + VcName(v) + "\":{\"virtualCells\":[";
      Cell(&j, "RACK", q[v].racks);
      Cell(&j, "RACK.NODE", q[v].nodes);
      Cell(&j, "RACK.NODE.SOCKET", q[v].sockets);
      Cell(&j, "RACK.NODE.SOCKET.PAIR", q[v].pairs);
      Cell(&j, "RACK.NODE.SOCKET.PAIR.V100.V100-HALF", q[v].halves);
      Cell(&j, "V100-QUARTER", q[v].quarters);
      for (int p = 0; p < 2; p++) Cell(&j, kProfiles[p], q[v].slices[p]);
      if (v == 0 && !bad_vc_cell.empty()) Cell(&j, bad_vc_cell.c_str(), 1);
      j += "]";
      if (q[v].pin_node >= 0) j += ",\"pinnedCells\":[{\"pinnedCellId\":\"" + PinName(v) + "\"}]";
      j += "}";
    }
    j += "}}";
    return j;
  }

  bool Setup() {
    op_ = "setup";
    int nodes = std::max(1, (opt_.gpus + kGpusPerNode - 1) / kGpusPerNode);
    racks_ = (nodes + kNodesPerRack - 1) / kNodesPerRack;
    nodes_ = racks_ * kNodesPerRack;
    pins_ = std::min({kMaxPins, racks_, opt_.vcs});
    res_.gpus = nodes_ * kGpusPerNode;
    res_.nodes = nodes_;
    res_.racks = racks_;
    res_.vcs = opt_.vcs;
    std::vector<int> w;
    for (int v = 0; v < opt_.vcs; v++) w.push_back(opt_.vcs - v);
    quotas_ = MakeQuotas(0.85, w, racks_ >= 8 ? 2 : 0);
    config_ = ConfigJson(quotas_);
    char errbuf[2048] = "";
    if (hived_engine_new(config_.c_str(), &engine_, errbuf, sizeof errbuf) != HIVED_OK)
      return Fail(std::string("generated config refused: ") + errbuf);
    if (hived_node_count(engine_) != static_cast<size_t>(nodes_))
      return Fail("engine has " + std::to_string(hived_node_count(engine_)) + " nodes, config " +
                  std::to_string(nodes_));
    // The model numbers nodes as the config does; map the engine's indices to them.
    to_model_.assign(nodes_, -1);
    to_engine_.assign(nodes_, -1);
    for (int i = 0; i < nodes_; i++) {
      const char *n = hived_node_name(engine_, i);
      if (!n || n[0] != 'n') return Fail("unexpected node name");
      int m = std::atoi(n + 1);
      if (m < 0 || m >= nodes_ || to_engine_[m] >= 0)
        return Fail(std::string("unexpected node name ") + n);
      to_model_[i] = m;
      to_engine_[m] = i;
    }
    slots_ = opt_.fractions ? kFractions : 1;
    leaves_per_node_ = kGpusPerNode + (opt_.mig ? kSlicesOf[0] + kSlicesOf[1] : 0);
    owner_.assign(static_cast<size_t>(nodes_) * leaves_per_node_ * slots_, -1);
    is_bad_.assign(nodes_, 0);
    used_.assign(opt_.vcs, 0);
    slice_used_.assign(static_cast<size_t>(opt_.vcs) * 2, 0);
    pin_used_.assign(opt_.vcs, 0);
    return CheckStep();
  }

  // ------------------------------------------------------------ model
  int Rack(int model_node) const { return model_node / kNodesPerRack; }
  size_t Slot(int model_node, int32_t gpu, int32_t slot) const {
    return (static_cast<size_t>(model_node) * leaves_per_node_ + gpu) * slots_ + slot;
  }
  // The slots of each GPU of the pod a pod holds: all, or its fractions.
  std::vector<int32_t> Slots(const MPod &p) const {
    if (!p.fractions.empty()) return p.fractions;
    std::vector<int32_t> all(slots_);
    for (int s = 0; s < slots_; s++) all[s] = s;
    return all;
  }

  void Add(MJob j) {
    j.slot = names_.size();
    names_.push_back(j.name);
    for (const auto &p : j.pods)
      for (int32_t l : p.leaves)
        for (int32_t s : Slots(p)) owner_[Slot(to_model_[p.node], l, s)] = 1;
    used_gpus_ += j.gpus;
    if (j.guaranteed) Charge(j, +1);
    std::string name = j.name;
    jobs_[name] = std::move(j);
    res_.max_jobs = std::max<long>(res_.max_jobs, static_cast<long>(jobs_.size()));
    res_.max_used_gpus = std::max(res_.max_used_gpus, used_gpus_ / slots_);
  }

  void Remove(const std::string &name) {
    auto it = jobs_.find(name);
    if (it == jobs_.end()) return;
    MJob &j = it->second;
    for (const auto &p : j.pods)
      for (int32_t l : p.leaves)
        for (int32_t s : Slots(p)) owner_[Slot(to_model_[p.node], l, s)] = -1;
    used_gpus_ -= j.gpus;
    if (j.guaranteed) Charge(j, -1);
    size_t slot = j.slot;
    jobs_.erase(it);
    if (slot + 1 != names_.size()) {
      names_[slot] = std::move(names_.back());
      jobs_[names_[slot]].slot = slot;
    }
    names_.pop_back();
  }

  void Charge(const MJob &j, int sign) {
    if (j.vc < 0) return;
    if (j.profile >= 0)
      slice_used_[j.vc * 2 + j.profile] += sign * j.gpus / slots_;
    else if (!j.pinned.empty())
      pin_used_[j.vc] += sign * j.gpus;
    else
      used_[j.vc] += sign * j.gpus;
  }

  void Demote(MJob &j) {
    if (!j.guaranteed) return;
    Charge(j, -1);
    j.guaranteed = false;
  }

  // A reload gave back the cells an earlier reload had taken.
  void Promote(MJob &j) {
    if (j.guaranteed) return;
    j.guaranteed = true;
    Charge(j, 1);
  }

  bool SlicesHold(int vc) {
    for (int p = 0; p < 2; p++)
      if (slice_used_[vc * 2 + p] > quotas_[vc].slices[p])
        return Fail("VC " + VcName(vc) + " holds " + std::to_string(slice_used_[vc * 2 + p]) +
                    " guaranteed " + kProfiles[p] + " slices, quota " +
                    std::to_string(quotas_[vc].slices[p]));
    return true;
  }

  // A borrower: asked to, took idle GPUs only, and its VC's guaranteed jobs, those of
  // them running outside its cells and it stay within its quota by count.
  bool BorrowHolds(const Req &r, size_t victims) {
    const MJob &j = r.job;
    if (!j.borrow || j.priority < 0 || j.vc < 0)
      return Fail("borrowed without asking to: " + Describe(r));
    if (victims) return Fail("a borrower preempted jobs: " + Describe(r));
    int64_t outside = 0;
    for (const auto &kv : jobs_)
      if (kv.second.vc == j.vc && kv.second.priority >= 0 && !kv.second.guaranteed &&
          kv.second.profile < 0)
        outside += kv.second.gpus;
    if (used_[j.vc] + outside + j.gpus > quotas_[j.vc].Units(slots_))
      return Fail("VC " + VcName(j.vc) +
                  " borrowed past its quota: " + std::to_string(used_[j.vc]) + " guaranteed and " +
                  std::to_string(outside) + " outside its cells, " + Describe(r));
    return true;
  }

  bool QuotaHolds(const MJob &j) {
    if (!j.guaranteed || j.vc < 0) return true;
    if (j.profile >= 0) return SlicesHold(j.vc);
    if (!j.pinned.empty()) {
      if (pin_used_[j.vc] > kGpusPerNode * slots_)
        return Fail("VC " + VcName(j.vc) + " holds " + std::to_string(pin_used_[j.vc]) +
                    " guaranteed GPUs in its pinned node (job '" + j.name + "')");
      return true;
    }
    if (used_[j.vc] > quotas_[j.vc].Units(slots_))
      return Fail("VC " + VcName(j.vc) + " holds " + std::to_string(used_[j.vc]) +
                  " guaranteed GPUs, quota " + std::to_string(quotas_[j.vc].Units(slots_)) +
                  " (after job '" + j.name + "')");
    return true;
  }

  const std::string &RandomJob() { return names_[U(static_cast<int>(names_.size()))]; }

  // ------------------------------------------------------------ requests
  // A random request of the given kind. Guaranteed jobs mostly stay within their
  // VC's quota (users know it), so that most are placed or preempt.
  Req MakeReq(const std::string &kind) {
    Req r;
    MJob &j = r.job;
    j.name = "j" + std::to_string(next_id_++);
    j.vc = U(opt_.vcs);
    j.lazy = P(0.3);
    static const int kSizes[] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 16, 24, 32, 64};
    int gpus = kSizes[U(13)];
    auto single = [&](int g) {
      if (g > kGpusPerNode) {
        j.members = {hived_member{g / kGpusPerNode, kGpusPerNode}};
        j.distinct = true;
      } else {
        j.members = {hived_member{1, g}};
      }
    };
    if (kind == "opportunistic") {
      j.priority = HIVED_PRIORITY_OPPORTUNISTIC;
      if (P(0.3)) j.vc = -1;
      single(gpus);
    } else if (kind == "pinned") {
      j.vc = U(pins_);
      j.priority = P(0.5) ? 100 : 600;
      single(kSizes[U(8)]);
      j.pinned = PinName(j.vc);
    } else if (kind == "rack-gang") {
      j.priority = P(0.25) ? HIVED_PRIORITY_OPPORTUNISTIC : 100;
      j.members = {hived_member{2 + U(4), kGpusPerNode}};
      j.distinct = true;
      j.within = "RACK";
    } else if (kind == "pod-within") {
      j.priority = P(0.25) ? HIVED_PRIORITY_OPPORTUNISTIC : 100;
      if (P(0.5)) {
        j.members = {hived_member{1 + U(3), 2}};
        j.pod_within = "PAIR";
      } else {
        j.members = {hived_member{1 + U(2), 2 + 2 * U(2)}};
        j.pod_within = "SOCKET";
      }
    } else if (kind == "allowed-nodes") {
      j.priority = P(0.3) ? HIVED_PRIORITY_OPPORTUNISTIC : 100;
      single(kSizes[U(10)]);
      // Slurm's -w / constraints: one or two racks.
      r.allowed.assign(nodes_, 0);
      int first = U(racks_), second = U(racks_);
      for (int m = 0; m < nodes_; m++)
        if (Rack(m) == first || (P(0.5) && Rack(m) == second)) r.allowed[to_engine_[m]] = 1;
    } else if (kind == "multi-member") {
      j.priority = P(0.3) ? HIVED_PRIORITY_OPPORTUNISTIC : 100;
      j.members = {hived_member{1, kGpusPerNode}, hived_member{1 + U(2), 2 << U(2)}};
    } else if (kind == "fraction") {
      j.priority = P(0.3) ? HIVED_PRIORITY_OPPORTUNISTIC : 50 * U(4);
      j.members = {hived_member{1, 0, 1 + U(kFractions)}};
    } else if (kind == "slice") {
      j.priority = P(0.3) ? HIVED_PRIORITY_OPPORTUNISTIC : 50 * U(4);
      j.profile = U(2);
      j.leaf_type = kProfiles[j.profile];
      // One or two nodes, up to all of a node's slices of the profile.
      j.members = {hived_member{1 + U(2), 1 + U(kSlicesOf[j.profile])}};
    } else {  // guaranteed, high-priority
      j.priority = kind == "high-priority" ? 500 + 100 * U(6) : 50 * U(4);
      single(gpus);
    }
    if (j.profile < 0 && P(0.1)) j.leaf_type = "V100";
    // Whole-GPU guaranteed jobs may borrow idle GPUs (the model counts them in GPUs).
    if (j.priority >= 0 && j.pinned.empty() && j.profile < 0 && j.members[0].fraction_number == 0)
      j.borrow = P(0.2);
    if (j.priority >= 0 && j.pinned.empty() && j.profile < 0) {
      // Shrink to what the VC owns, as a user would ask.
      const VcQuota &q = quotas_[j.vc];
      int node_gpus = (q.racks * kNodesPerRack + q.nodes) * kGpusPerNode;
      for (auto &m : j.members) {
        while (m.pod_number > 1 && m.pod_number * m.leaf_cell_number > node_gpus) m.pod_number--;
      }
    }
    for (const auto &m : j.members)
      j.gpus += m.pod_number *
                (m.fraction_number ? Rounded(m.fraction_number) : m.leaf_cell_number * slots_);
    r.vc_name = j.vc >= 0 ? VcName(j.vc) : "";
    // A guaranteed single GPU with no constraint fits whenever the VC has a free
    // virtual GPU and no hardware is bad: the safety invariant guarantees a physical
    // cell for every unbound virtual cell, and whatever else sits there is
    // opportunistic and preemptible.
    // With fractions, a fraction on a VC's whole-GPU cell keeps that GPU from whole
    // jobs: only a VC without fractional work has the plain guarantee.
    // Slices likewise: one slice of a profile whose free virtual slice the VC has.
    if (j.profile >= 0) {
      r.expect_fit = j.priority >= 0 && j.gpus == slots_ && bad_.empty() &&
                     slice_used_[j.vc * 2 + j.profile] < quotas_[j.vc].slices[j.profile];
      return r;
    }
    r.expect_fit =
        j.priority >= 0 && j.pinned.empty() && j.gpus == slots_ &&
        j.members[0].fraction_number == 0 && j.within.empty() && j.pod_within.empty() &&
        r.allowed.empty() && bad_.empty() &&
        (opt_.fractions ? FractionFree(j.vc) && used_[j.vc] < quotas_[j.vc].Gpus() * slots_
                        : used_[j.vc] < quotas_[j.vc].Gpus());
    return r;
  }

  // Fractions round up to a buddy cell: 1, 2, or a whole GPU (4) of quarters.
  static int Rounded(int fractions) { return fractions <= 1 ? 1 : (fractions <= 2 ? 2 : 4); }

  bool FractionFree(int vc) const {
    for (const auto &kv : jobs_)
      if (kv.second.vc == vc && kv.second.guaranteed && kv.second.members[0].fraction_number)
        return false;
    return true;
  }

  std::string Describe(const Req &r) const {
    const MJob &j = r.job;
    std::string s = "job " + j.name + " vc=" + (j.vc >= 0 ? VcName(j.vc) : "-") +
                    " priority=" + std::to_string(j.priority) + " members=[";
    for (size_t i = 0; i < j.members.size(); i++)
      s += (i ? "," : "") + std::to_string(j.members[i].pod_number) + "x" +
           (j.members[i].fraction_number
                ? std::to_string(j.members[i].fraction_number) + "/" + std::to_string(slots_)
                : std::to_string(j.members[i].leaf_cell_number));
    s += "]";
    if (!j.pinned.empty()) s += " pinned=" + j.pinned;
    if (!j.within.empty()) s += " within=" + j.within;
    if (!j.pod_within.empty()) s += " podWithin=" + j.pod_within;
    if (j.distinct) s += " distinct";
    if (j.lazy) s += " lazy";
    if (!r.allowed.empty()) s += " allowedNodes";
    if (!j.leaf_type.empty()) s += " leafType=" + j.leaf_type;
    return s;
  }

  // Checks a placement against the request; `victims` may hold GPUs it takes.
  bool CheckPlacement(const Req &r, const std::vector<MPod> &pods,
                      const std::set<std::string> &victims) {
    const MJob &j = r.job;
    size_t want = 0;
    for (const auto &m : j.members) want += static_cast<size_t>(m.pod_number);
    if (pods.size() != want)
      return Fail(std::to_string(pods.size()) + " pods for " + std::to_string(want) + ": " +
                  Describe(r));
    std::set<int32_t> nodes, racks;
    std::set<std::pair<int32_t, int32_t>> gpus;
    size_t p = 0;
    for (const auto &m : j.members) {
      for (int k = 0; k < m.pod_number; k++, p++) {
        const MPod &pod = pods[p];
        if (pod.node < 0 || pod.node >= nodes_)
          return Fail("pod on node index out of range: " + Describe(r));
        int mn = to_model_[pod.node];
        std::string where = " (n" + std::to_string(mn) + ") for " + Describe(r);
        if (m.fraction_number) {
          // One GPU, one aligned buddy cell of the rounded size.
          int n = Rounded(m.fraction_number);
          bool whole = n == slots_;
          if (pod.leaves.size() != 1 ||
              (whole ? !pod.fractions.empty() : static_cast<int>(pod.fractions.size()) != n))
            return Fail("fractional pod not one cell of " + std::to_string(n) + " slots" + where);
          for (size_t i = 0; i < pod.fractions.size(); i++)
            if (pod.fractions[i] != pod.fractions[0] + static_cast<int>(i) ||
                pod.fractions[0] % n != 0)
              return Fail("fractions not one aligned cell" + where);
        } else if (static_cast<int>(pod.leaves.size()) != m.leaf_cell_number ||
                   !pod.fractions.empty()) {
          return Fail("pod of " + std::to_string(pod.leaves.size()) + " GPUs" + where);
        }
        if (is_bad_[mn]) return Fail("new pod placed on a bad node" + where);
        if (!r.allowed.empty() && !r.allowed[pod.node])
          return Fail("pod on a node the job excluded" + where);
        if (j.distinct && !nodes.insert(mn).second)
          return Fail("two pods on one node with distinct nodes" + where);
        racks.insert(Rack(mn));
        if (!j.pinned.empty() && mn != quotas_[j.vc].pin_node)
          return Fail("pinned job outside its pinned cell" + where);
        int group = j.pod_within == "PAIR" ? 2 : (j.pod_within == "SOCKET" ? 4 : 0);
        for (size_t i = 0; i < pod.leaves.size(); i++) {
          int32_t l = pod.leaves[i];
          // A slice only to its profile's jobs; a whole GPU never to them.
          bool slice_ok =
              j.profile >= 0 && (l == kSliceIdx[j.profile][0] || l == kSliceIdx[j.profile][1]);
          if (j.profile >= 0 ? !slice_ok : (l < 0 || l >= kGpusPerNode))
            return Fail("GPU index " + std::to_string(l) + where);
          if (i > 0 && l <= pod.leaves[i - 1]) return Fail("GPU indices not ascending" + where);
          if (group && l / group != pod.leaves[0] / group)
            return Fail("pod not within one " + j.pod_within + where);
          if (!gpus.insert({mn, l}).second) return Fail("GPU given twice to one job" + where);
          for (int32_t sl : Slots(pod)) {
            if (sl < 0 || sl >= slots_) return Fail("fraction slot out of range" + where);
            if (owner_[Slot(mn, l, sl)] < 0) continue;
            // Held in the model: only a victim of this very decision may hold it.
            bool victim_holds = false;
            for (const auto &v : victims) {
              auto it = jobs_.find(v);
              if (it == jobs_.end()) continue;
              for (const auto &vp : it->second.pods) {
                auto vs = Slots(vp);
                if (vp.node == pod.node && std::count(vp.leaves.begin(), vp.leaves.end(), l) &&
                    std::count(vs.begin(), vs.end(), sl))
                  victim_holds = true;
              }
            }
            if (!victim_holds)
              return Fail("GPU " + std::to_string(l) + " (slot " + std::to_string(sl) + ") of n" +
                          std::to_string(mn) + " given to two live jobs: " + OwnerOf(mn, l) +
                          " and " + Describe(r));
          }
        }
      }
    }
    if (j.within == "RACK" && racks.size() != 1)
      return Fail("rack-bound job spans " + std::to_string(racks.size()) +
                  " racks: " + Describe(r));
    return true;
  }

  std::string OwnerOf(int mn, int32_t l) const {
    int e = to_engine_[mn];
    for (const auto &kv : jobs_)
      for (const auto &p : kv.second.pods)
        if (p.node == e && std::count(p.leaves.begin(), p.leaves.end(), l))
          return "'" + kv.first + "'";
    return "?";
  }

  static std::vector<MPod> PodsOf(const hived_decision *d) {
    std::vector<MPod> pods;
    for (size_t i = 0; i < d->n_pods; i++) {
      MPod p;
      p.node = d->pods[i].node;
      if (d->pods[i].leaves)
        p.leaves.assign(d->pods[i].leaves, d->pods[i].leaves + d->pods[i].n_leaves);
      if (d->pods[i].fractions)
        p.fractions.assign(d->pods[i].fractions, d->pods[i].fractions + d->pods[i].n_fractions);
      pods.push_back(std::move(p));
    }
    return pods;
  }

  bool Matches(const MJob &j) {
    std::vector<hived_pod> pods;
    for (const auto &p : j.pods)
      pods.push_back(hived_pod{p.node, nullptr, p.leaves.data(),
                               static_cast<int32_t>(p.leaves.size()),
                               p.fractions.empty() ? nullptr : p.fractions.data(),
                               static_cast<int32_t>(p.fractions.size())});
    if (hived_job_matches(engine_, j.name.c_str(), pods.data(), pods.size())) return true;
    char *js = nullptr;
    std::string now = hived_inspect_job(engine_, j.name.c_str(), &js) == HIVED_OK
                          ? Take(js)
                          : "(unknown to the engine)";
    return Fail("job '" + j.name + "' moved or lost; engine has: " + now.substr(0, 600));
  }

  // ------------------------------------------------------------ submit
  bool Submit(Req &r, bool dry_run) {
    const hived_decision *d = nullptr;
    size_t before = jobs_.size();
    hived_rc rc = hived_submit(engine_, r.Fill(), dry_run ? 1 : 0, &d);
    if (rc != HIVED_OK || !d)
      return Fail(std::string("submit failed: ") + hived_rc_str(rc) + ": " + Err() + " for " +
                  Describe(r));
    // Copy now: the decision lives until the next call that changes the engine.
    hived_outcome outcome = d->outcome;
    std::string reason = d->reason ? d->reason : "";
    std::vector<MPod> pods = PodsOf(d);
    std::vector<std::string> killed(d->preempted, d->preempted + d->n_preempted);
    std::vector<std::string> demoted(d->lazy_preempted, d->lazy_preempted + d->n_lazy_preempted);
    const bool borrowed = d->borrowed != 0;
    std::string tag = dry_run ? "dry-run-" : "";
    if (outcome != HIVED_PLACED) {
      res_.outcomes[tag + (outcome == HIVED_WAITING ? "waiting" : "rejected")]++;
      if (r.expect_fit)
        return Fail("guaranteed job within its VC's free quota (" +
                    std::to_string(used_[r.job.vc]) + " of " +
                    std::to_string(quotas_[r.job.vc].Gpus()) + " GPUs used) not placed: " + reason +
                    "; " + Describe(r));
      if (hived_job_exists(engine_, r.job.name.c_str()))
        return Fail("a job that was not placed exists: " + Describe(r));
      return true;
    }
    res_.outcomes[tag + "placed"]++;
    if (borrowed && !BorrowHolds(r, killed.size() + demoted.size())) return false;
    if (borrowed) res_.outcomes[tag + "borrowed"]++;
    std::set<std::string> victims(killed.begin(), killed.end());
    victims.insert(demoted.begin(), demoted.end());
    for (const auto &v : victims) {
      auto it = jobs_.find(v);
      if (it == jobs_.end()) return Fail("victim '" + v + "' is not a running job; " + Describe(r));
      const MJob &vj = it->second;
      if (r.job.priority < 0) return Fail("opportunistic job preempted '" + v + "'");
      bool ok = !vj.guaranteed || (vj.vc == r.job.vc && vj.priority < r.job.priority);
      if (!ok)
        return Fail("victim '" + v + "' (" + (vj.vc >= 0 ? VcName(vj.vc) : "-") + ", priority " +
                    std::to_string(vj.priority) + ") may not be preempted by " + Describe(r));
    }
    for (const auto &v : demoted)
      if (!jobs_[v].lazy || !jobs_[v].guaranteed)
        return Fail("'" + v + "' demoted without lazy preemption");
    if (!CheckPlacement(r, pods, victims)) return false;
    if (dry_run) {
      if (hived_job_exists(engine_, r.job.name.c_str()))
        return Fail("dry run created " + r.job.name);
      for (const auto &v : victims)
        if (!hived_job_exists(engine_, v.c_str()))
          return Fail("dry run removed victim '" + v + "'");
      return jobs_.size() == before || Fail("model changed by a dry run");
    }
    res_.outcomes["preempted"] += static_cast<long>(killed.size());
    res_.outcomes["lazy-preempted"] += static_cast<long>(demoted.size());
    for (const auto &v : demoted) {
      MJob &vj = jobs_[v];
      Demote(vj);
      if (!Matches(vj)) return false;
    }
    for (const auto &v : killed) {
      Remove(v);
      if (hived_job_exists(engine_, v.c_str())) return Fail("killed victim '" + v + "' still held");
      // Slurm reports the killed job's end later; the engine must take it calmly.
      res_.ops["finish-victim"]++;
      hived_rc frc = hived_finish(engine_, v.c_str());
      if (frc != HIVED_ENOENT)
        return Fail("finish of released victim '" + v + "': " + hived_rc_str(frc) +
                    " (want ENOENT)");
    }
    r.job.pods = std::move(pods);
    r.job.guaranteed = r.job.priority >= 0 && !borrowed;
    MJob copy = r.job;
    Add(std::move(copy));
    const MJob &j = jobs_[r.job.name];
    return QuotaHolds(j) && Matches(j);
  }

  // Requests the engine must refuse without changing anything.
  bool InvalidSubmit() {
    Req r = MakeReq("guaranteed");
    int kind = U(8);
    static const char *const kKinds[] = {"unknown-vc", "unknown-leaf-type", "foreign-pinned",
                                         "priority",   "no-members",        "duplicate",
                                         "zero-pods",  "unknown-within"};
    switch (kind) {
      case 0:
        r.vc_name = "no-such-vc";
        break;
      case 1:
        r.job.leaf_type = "A100";
        break;
      case 2:
        if (pins_ < 2) return true;
        r.job.vc = U(pins_);
        r.job.pinned = PinName((r.job.vc + 1 + U(pins_ - 1)) % pins_);
        r.vc_name = VcName(r.job.vc);
        break;
      case 3:
        r.job.priority = P(0.5) ? 5000 : -7;
        break;
      case 4:
        r.job.members.clear();
        break;
      case 5:
        if (names_.empty()) return true;
        r.job.name = RandomJob();
        break;
      case 6:
        r.job.members = {hived_member{0, 1}};
        break;
      case 7:
        r.job.within = "NOPE";
        break;
    }
    res_.ops[std::string("invalid-submit-") + kKinds[kind]]++;
    size_t before = jobs_.size();
    const hived_decision *d = nullptr;
    hived_rc rc = hived_submit(engine_, r.Fill(), 0, &d);
    if (rc == HIVED_OK && d && d->outcome == HIVED_PLACED)
      return Fail(std::string("invalid request (") + kKinds[kind] + ") placed: " + Describe(r));
    if (rc == HIVED_OK && d && d->outcome == HIVED_WAITING)
      return Fail(std::string("invalid request (") + kKinds[kind] +
                  ") left waiting: " + Describe(r));
    if (kind == 5) {
      if (rc != HIVED_EEXIST)
        return Fail(std::string("duplicate job name: ") + hived_rc_str(rc) + ", want EEXIST");
      return Matches(jobs_[r.job.name]);
    }
    if (hived_job_exists(engine_, r.job.name.c_str())) return Fail("refused request left a job");
    return jobs_.size() == before;
  }

  // ------------------------------------------------------------ other ops
  bool Finish() {
    if (names_.empty()) return true;
    std::string name = RandomJob();
    hived_rc rc = hived_finish(engine_, name.c_str());
    if (rc != HIVED_OK) return Fail("finish '" + name + "': " + hived_rc_str(rc) + ": " + Err());
    Remove(name);
    if (hived_job_exists(engine_, name.c_str()))
      return Fail("finished job '" + name + "' still held");
    return Promotions(name);
  }

  // As select/hived does after each end: a promoted job was demoted, stays where it
  // runs, and its VC stays within its quota.
  bool Promotions(const std::string &ended) {
    size_t n = 0;
    if (hived_promote(engine_, &n) != HIVED_OK)
      return Fail("promote after '" + ended + "': " + Err());
    for (size_t i = 0; i < n; i++) {
      const char *name = hived_promoted_name(engine_, i);
      auto it = name ? jobs_.find(name) : jobs_.end();
      if (it == jobs_.end()) return Fail("promoted an unknown job after '" + ended + "'");
      MJob &j = it->second;
      if (j.guaranteed || j.priority < 0 || j.vc < 0)
        return Fail("promoted '" + j.name + "', which was not a demoted guaranteed job");
      Promote(j);
      res_.outcomes["promoted"]++;
      if (!QuotaHolds(j) || !Matches(j)) return false;
    }
    return true;
  }

  // Restart recovery: the job leaves the engine and comes back where it runs.
  bool Readd() {
    if (names_.empty()) return true;
    MJob j = jobs_[RandomJob()];
    if (hived_finish(engine_, j.name.c_str()) != HIVED_OK)
      return Fail("finish before re-add: " + Err());
    Remove(j.name);
    Req r;
    r.job = j;
    r.vc_name = j.vc >= 0 ? VcName(j.vc) : "";
    std::vector<hived_pod> pods;
    for (const auto &p : j.pods)
      pods.push_back(hived_pod{p.node, nullptr, p.leaves.data(),
                               static_cast<int32_t>(p.leaves.size()),
                               p.fractions.empty() ? nullptr : p.fractions.data(),
                               static_cast<int32_t>(p.fractions.size())});
    int demoted = 0;
    hived_rc rc = hived_add_running(engine_, r.Fill(), pods.data(), pods.size(), &demoted);
    if (rc != HIVED_OK)
      return Fail("running job '" + j.name + "' refused on re-add: " + hived_rc_str(rc) + ": " +
                  Err());
    j.guaranteed = j.priority >= 0 && !demoted;
    if (demoted) res_.outcomes["readd-demoted"]++;
    std::string name = j.name;
    Add(std::move(j));
    return QuotaHolds(jobs_[name]) && Matches(jobs_[name]);
  }

  bool NodeHealth(bool bad) {
    int m;
    if (bad) {
      m = U(nodes_);
      if (is_bad_[m]) return true;
    } else {
      if (bad_.empty()) return true;
      auto it = bad_.begin();
      std::advance(it, U(static_cast<int>(bad_.size())));
      m = *it;
    }
    std::string name = "n" + std::to_string(m);
    hived_rc rc = hived_set_node_health(engine_, name.c_str(), bad ? 0 : 1);
    if (rc != HIVED_OK)
      return Fail("set health of " + name + ": " + hived_rc_str(rc) + ": " + Err());
    is_bad_[m] = bad;
    if (bad)
      bad_.insert(m);
    else
      bad_.erase(m);
    if (P(0.05) && hived_set_node_health(engine_, "no-such-node", 0) != HIVED_ENOENT)
      return Fail("unknown node's health accepted");
    return true;
  }

  bool Snapshot(std::string *out, hived_engine *e) {
    char *js = nullptr;
    hived_rc rc = hived_snapshot(e, &js);
    if (rc != HIVED_OK || !js)
      return Fail(std::string("snapshot: ") + hived_rc_str(rc) + ": " + hived_last_error(e));
    *out = Take(js);
    return true;
  }

  // Copies one job's placement onto another's (a test-only corruption).
  bool Corrupt(std::string *snap) {
    json_error_t err;
    Json root(json_loads(snap->c_str(), 0, &err));
    json_t *jobs = root ? json_object_get(json_object_get(root.get(), "state"), "jobs") : nullptr;
    if (!json_is_array(jobs) || json_array_size(jobs) < 2) return false;
    json_t *a = json_array_get(jobs, 0), *b = json_array_get(jobs, 1);
    json_object_set_new(a, "placement", json_deep_copy(json_object_get(b, "placement")));
    json_object_set_new(a, "vleaves", json_deep_copy(json_object_get(b, "vleaves")));
    *snap = Take(json_dumps(root.get(), JSON_COMPACT));
    return true;
  }

  bool SnapshotRestore(bool corrupt) {
    std::string snap, again;
    if (!Snapshot(&snap, engine_)) return false;
    if (corrupt && !Corrupt(&snap)) return true;
    hived_engine *restored = nullptr;
    char errbuf[2048] = "";
    hived_rc rc = hived_engine_restore(snap.c_str(), &restored, errbuf, sizeof errbuf);
    if (rc != HIVED_OK)
      return Fail(std::string("restore of the engine's own snapshot refused: ") + errbuf);
    hived_engine_free(engine_);
    engine_ = restored;
    if (!Snapshot(&again, engine_)) return false;
    if (again != snap) return Fail("snapshot after restore differs from the snapshot restored");
    return Sweep();
  }

  // A decision as text, to compare two of them whole.
  static std::string DecisionText(const hived_decision *d, int64_t start) {
    std::string t = "outcome " + std::to_string(d->outcome) + " wait " +
                    std::to_string(d->wait_kind) + " start " + std::to_string(start) + " reason '" +
                    (d->reason ? d->reason : "") + "' pods";
    for (size_t p = 0; p < d->n_pods; p++) {
      t += " " + std::to_string(d->pods[p].node) + ":";
      for (int32_t k = 0; k < d->pods[p].n_leaves; k++)
        t += std::to_string(d->pods[p].leaves[k]) + ",";
      for (int32_t k = 0; k < d->pods[p].n_fractions; k++)
        t += "f" + std::to_string(d->pods[p].fractions[k]) + ",";
    }
    t += " preempts";
    for (size_t i = 0; i < d->n_preempted; i++) t += std::string(" ") + d->preempted[i];
    t += " lazy";
    for (size_t i = 0; i < d->n_lazy_preempted; i++) t += std::string(" ") + d->lazy_preempted[i];
    return t;
  }

  // Whether pods a WILL_RUN answer named can be taken on `c` (the state at the
  // answer's start): its victims gone, the job recorded there as running stays
  // guaranteed (its VC's cells bind to those GPUs) and the invariants hold.
  bool PodsHold(hived_engine *c, Req &r, const std::vector<MPod> &pods,
                const std::vector<std::string> &victims) {
    for (const std::string &v : victims) (void)hived_finish(c, v.c_str());
    std::vector<hived_pod> hp;
    for (const MPod &p : pods) {
      hived_pod x{};
      x.node = p.node;
      x.leaves = p.leaves.data();
      x.n_leaves = static_cast<int32_t>(p.leaves.size());
      x.fractions = p.fractions.empty() ? nullptr : p.fractions.data();
      x.n_fractions = static_cast<int32_t>(p.fractions.size());
      hp.push_back(x);
    }
    int demoted = 1;
    char err[512];
    return hived_add_running(c, r.Fill(), hp.data(), hp.size(), &demoted) == HIVED_OK &&
           *hived_last_error(c) == '\0' && !demoted &&
           hived_check_invariants(c, err, sizeof err) == HIVED_OK;
  }

  // hived_will_run (a trial on the engine that undoes itself) against the answer of
  // a copy on which the jobs really end: the same decision and start, and the
  // engine's snapshot byte for byte as before.
  bool WillRun() {
    static const char *const kKinds[] = {"guaranteed",    "opportunistic", "high-priority",
                                         "pinned",        "rack-gang",     "pod-within",
                                         "allowed-nodes", "multi-member"};
    std::string before, after;
    if (!Snapshot(&before, engine_)) return false;
    // Backfill asks about jobs that wait: a few draws to find one that does not fit now.
    Req r;
    for (int tries = 0; tries < 8; tries++) {
      std::string kind = kKinds[U(8)];
      if (opt_.fractions && P(0.3)) kind = "fraction";
      r = MakeReq(kind);
      // A count-only job may start split before a compact cell drains (FitBound).
      if (P(0.3)) r.split_max_pods = 2 + U(4);
      const hived_decision *now = nullptr;
      int64_t at = -2;
      if (hived_will_run(engine_, r.Fill(), nullptr, 0, &at, &now) != HIVED_OK || !now ||
          now->outcome != HIVED_PLACED)
        break;
    }
    std::vector<std::string> keep;  // owns the names `ends` points to
    for (const auto &name : names_)
      if (P(0.9)) keep.push_back(name);
    if (P(0.2)) keep.push_back("no-such-job");
    if (!keep.empty() && P(0.2)) keep.push_back(keep[U(static_cast<int>(keep.size()))]);
    std::vector<hived_job_end> ends;
    for (const auto &name : keep) ends.push_back({name.c_str(), P(0.1) ? 0 : 1 + U(40)});
    const hived_decision *d = nullptr;
    int64_t start = -2;
    hived_rc rc = hived_will_run(engine_, r.Fill(), ends.data(), ends.size(), &start, &d);
    if (rc != HIVED_OK || !d)
      return Fail(std::string("will_run: ") + hived_rc_str(rc) + ": " + Err());
    std::string got = DecisionText(d, start);
    // Where the VC's guarantee answered (other VCs' work left running), only the start
    // and the reason must be the copy's; the pods must be free to take then (below).
    hived_will_run_counts counts;
    hived_will_run_last(engine_, &counts);
    const bool by_guarantee = counts.by_guarantee != 0;
    std::vector<MPod> pods;
    std::vector<std::string> victims;
    for (size_t p = 0; p < d->n_pods; p++)
      pods.push_back({d->pods[p].node,
                      {d->pods[p].leaves, d->pods[p].leaves + d->pods[p].n_leaves},
                      {d->pods[p].fractions, d->pods[p].fractions + d->pods[p].n_fractions}});
    for (size_t i = 0; i < d->n_preempted; i++) victims.push_back(d->preempted[i]);
    for (size_t i = 0; i < d->n_lazy_preempted; i++) victims.push_back(d->lazy_preempted[i]);
    if (by_guarantee) got = got.substr(0, got.find(" pods"));
    if (!Snapshot(&after, engine_)) return false;
    if (after != before) return Fail("will_run changed the engine's snapshot: " + Describe(r));
    if (hived_job_exists(engine_, r.job.name.c_str())) return Fail("will_run left its job behind");
    // The reference: a copy on which the jobs end for real, earliest end first.
    hived_engine *c = nullptr;
    if (hived_engine_clone(engine_, &c) != HIVED_OK || !c) return Fail("clone failed");
    std::unique_ptr<hived_engine, void (*)(hived_engine *)> guard(c, hived_engine_free);
    std::vector<hived_job_end> order;
    for (const auto &e : ends)
      if (e.end > 0) order.push_back(e);
    std::stable_sort(order.begin(), order.end(),
                     [](const hived_job_end &a, const hived_job_end &b) { return a.end < b.end; });
    const hived_decision *w = nullptr;
    if (hived_submit(c, r.Fill(), 1, &w) != HIVED_OK || !w)
      return Fail(std::string("dry run on the copy: ") + hived_last_error(c));
    int64_t at = 0;
    for (size_t k = 0; w->outcome == HIVED_WAITING && w->wait_kind != HIVED_WAIT_VC_TOO_SMALL &&
                       k < order.size();) {
      at = order[k].end;
      for (; k < order.size() && order[k].end == at; k++) (void)hived_finish(c, order[k].job);
      if (hived_submit(c, r.Fill(), 1, &w) != HIVED_OK || !w)
        return Fail(std::string("dry run on the copy: ") + hived_last_error(c));
    }
    std::string want = DecisionText(w, w->outcome == HIVED_PLACED ? at : -1);
    if (by_guarantee) want = want.substr(0, want.find(" pods"));
    if (got != want)
      return Fail("will_run differs from the copy's answer for " + Describe(r) + ":\n  trial " +
                  got + "\n  copy  " + want);
    if (by_guarantee && d->outcome == HIVED_PLACED && !PodsHold(c, r, pods, victims))
      return Fail("will_run's pods, given by the VC's guarantee, cannot be taken at its start " +
                  std::to_string(start) + " for " + Describe(r) + ": " + hived_last_error(c));
    if (by_guarantee) res_.outcomes["will-run-by-guarantee"]++;
    res_.outcomes[std::string("will-run-") +
                  (d->outcome == HIVED_PLACED ? (start > 0 ? "later" : "now") : "never")]++;
    return true;
  }

  bool Clone() {
    hived_engine *c = nullptr;
    if (hived_engine_clone(engine_, &c) != HIVED_OK || !c) return Fail("clone failed");
    std::unique_ptr<hived_engine, void (*)(hived_engine *)> guard(c, hived_engine_free);
    std::string a, b;
    if (!Snapshot(&a, engine_) || !Snapshot(&b, c)) return false;
    if (a != b) return Fail("clone's snapshot differs from the engine's");
    // "What if" on the clone must leave the engine alone.
    Req r = MakeReq(P(0.5) ? "high-priority" : "guaranteed");
    const hived_decision *d = nullptr;
    if (hived_submit(c, r.Fill(), 0, &d) != HIVED_OK)
      return Fail(std::string("submit on clone: ") + hived_last_error(c));
    std::string gone = names_.empty() ? "" : RandomJob();
    if (!gone.empty() && hived_finish(c, gone.c_str()) != HIVED_OK &&
        hived_job_exists(c, gone.c_str()))
      return Fail("finish on clone failed");
    char errbuf[2048] = "";
    if (hived_check_invariants(c, errbuf, sizeof errbuf) != HIVED_OK)
      return Fail(std::string("clone: ") + errbuf);
    guard.reset();
    if (hived_job_exists(engine_, r.job.name.c_str()))
      return Fail("job submitted on the clone is in the engine");
    if (!gone.empty() && !Matches(jobs_[gone])) return false;
    std::string after;
    if (!Snapshot(&after, engine_)) return false;
    return after == a || Fail("engine changed by work on its clone");
  }

  std::vector<int> RandomWeights() {
    std::vector<int> w;
    for (int v = 0; v < opt_.vcs; v++) w.push_back(1 + U(8));
    return w;
  }

  bool Reconfigure() {
    std::vector<VcQuota> q =
        MakeQuotas(0.6 + 0.3 * (U(1000) / 1000.0), RandomWeights(), racks_ >= 8 ? U(3) : 0);
    std::string text = ConfigJson(q);
    char *report = nullptr;
    hived_rc rc = hived_reconfigure_ex(engine_, text.c_str(), 0, nullptr, 0, &report);
    std::string report_text = Take(report);
    if (rc != HIVED_OK)
      return Fail(std::string("valid config refused: ") + hived_rc_str(rc) + ": " + Err());
    quotas_ = q;
    config_ = text;
    json_error_t err;
    Json rep(json_loads(report_text.c_str(), 0, &err));
    for (const char *key : {"demoted", "promoted"}) {
      json_t *arr = json_object_get(rep.get(), key);
      if (!json_is_array(arr))
        return Fail(std::string("reconfigure: report has no ") + key + " list: " + report_text);
      for (size_t i = 0; i < json_array_size(arr); i++) {
        const char *n = json_string_value(json_array_get(arr, i));
        auto it = n ? jobs_.find(n) : jobs_.end();
        if (it == jobs_.end())
          return Fail(std::string("reconfigure ") + key +
                      " unknown job: " + report_text.substr(0, 200));
        if (key[0] == 'd') {
          Demote(it->second);
          res_.outcomes["reconfigure-demoted"]++;
        } else {
          Promote(it->second);
          res_.outcomes["reconfigure-promoted"]++;
        }
      }
    }
    if (json_array_size(json_object_get(rep.get(), "dropped")) > 0)
      return Fail("reconfigure keeping every node dropped GPUs: " + report_text.substr(0, 200));
    for (int v = 0; v < opt_.vcs; v++) {
      if (used_[v] > quotas_[v].Units(slots_))
        return Fail("after reconfigure " + VcName(v) + " holds " + std::to_string(used_[v]) +
                    " guaranteed GPUs, quota " + std::to_string(quotas_[v].Units(slots_)));
      if (!SlicesHold(v)) return false;
    }
    return Sweep();
  }

  bool ReconfigureInvalid() {
    std::string text;
    int kind = U(5);
    static const char *const kKinds[] = {"overcommitted", "unknown-cell-type", "truncated",
                                         "unknown-pinned", "negative-count"};
    std::vector<VcQuota> q = quotas_;
    switch (kind) {
      case 0:
        q[U(opt_.vcs)].nodes += nodes_;
        text = ConfigJson(q);
        break;
      case 1:
        text = ConfigJson(q, "RACK.NODE.GPU");
        break;
      case 2:
        text = ConfigJson(q);
        text.resize(U(static_cast<int>(text.size())));
        break;
      case 3:
        text = ConfigJson(q);
        text.replace(text.rfind("\"virtualCells\":["), 16,
                     "\"pinnedCells\":[{\"pinnedCellId\":\"NOPE\"}],\"virtualCells\":[");
        break;
      case 4:
        text = ConfigJson(q);
        text.replace(text.rfind("\"cellNumber\":"), 13, "\"cellNumber\":-");
        break;
    }
    res_.ops[std::string("reconfigure-invalid-") + kKinds[kind]]++;
    std::string before, after;
    if (!Snapshot(&before, engine_)) return false;
    char *lazy = nullptr;
    hived_rc rc = hived_reconfigure(engine_, text.c_str(), &lazy);
    std::string lazy_text = Take(lazy);
    if (rc == HIVED_OK) return Fail(std::string("invalid config (") + kKinds[kind] + ") accepted");
    if (rc != HIVED_ECONFIG)
      return Fail(std::string("invalid config (") + kKinds[kind] + "): " + hived_rc_str(rc) +
                  ", want ECONFIG");
    if (!lazy_text.empty()) return Fail("refused config demoted jobs: " + lazy_text);
    if (!Snapshot(&after, engine_)) return false;
    return after == before ||
           Fail(std::string("refused config (") + kKinds[kind] + ") changed the engine");
  }

  // ------------------------------------------------------------ checks
  bool CheckStep() {
    if (opt_.check_every > 0 && step_ % opt_.check_every == 0) {
      char errbuf[4096] = "";
      res_.invariant_checks++;
      if (hived_check_invariants(engine_, errbuf, sizeof errbuf) != HIVED_OK)
        return Fail(std::string("invariant violated: ") + errbuf);
    }
    const char *const *names = nullptr;
    size_t n = hived_job_list(engine_, &names);
    if (n != jobs_.size())
      return Fail("engine holds " + std::to_string(n) + " jobs, the soak's record " +
                  std::to_string(jobs_.size()));
    if (opt_.sweep_every > 0 && step_ % opt_.sweep_every == 0) return Sweep();
    return true;
  }

  // Every job where the model has it; with the counts equal, the sets are equal.
  bool Sweep() {
    res_.sweeps++;
    for (const auto &name : names_)
      if (!Matches(jobs_[name])) return false;
    std::vector<int> used(opt_.vcs, 0), slices(static_cast<size_t>(opt_.vcs) * 2, 0);
    for (const auto &kv : jobs_) {
      const MJob &j = kv.second;
      if (!j.guaranteed || j.vc < 0 || !j.pinned.empty()) continue;
      if (j.profile >= 0)
        slices[j.vc * 2 + j.profile] += j.gpus / slots_;
      else
        used[j.vc] += j.gpus;
    }
    if (used != used_ || slices != slice_used_) return Fail("the soak's VC use counters drifted");
    return true;
  }

  bool Step() {
    bool fault_now = !opt_.fault.empty() && step_ == opt_.fault_step;
    double util = static_cast<double>(used_gpus_) / (static_cast<double>(res_.gpus) * slots_);
    int r = U(1000);
    bool ok;
    auto run = [&](const char *op, auto fn) {
      op_ = op;
      res_.ops[op]++;
      return fn();
    };
    if (fault_now && opt_.fault == "corrupt-snapshot") {
      ok = run("snapshot-restore", [&] { return SnapshotRestore(true); });
    } else if (r < 4) {
      ok = run("reconfigure", [&] { return Reconfigure(); });
    } else if (r < 8) {
      ok = run("reconfigure-invalid", [&] { return ReconfigureInvalid(); });
    } else if (r < 13) {
      ok = run("snapshot-restore", [&] { return SnapshotRestore(false); });
    } else if (r < 18) {
      ok = run("clone", [&] { return Clone(); });
    } else if (r < 33 && static_cast<int>(bad_.size()) < std::max(1, nodes_ / 50)) {
      ok = run("node-bad", [&] { return NodeHealth(true); });
    } else if (r < 50 && !bad_.empty()) {
      ok = run("node-healthy", [&] { return NodeHealth(false); });
    } else if (r < 70) {
      ok = run("readd", [&] { return Readd(); });
    } else if (r < 87) {
      ok = run("will-run", [&] { return WillRun(); });
    } else if (r < 95) {
      ok = run("dry-run", [&] {
        Req q = MakeReq(P(0.5) ? "high-priority" : "guaranteed");
        return Submit(q, true);
      });
    } else if (r < 115) {
      ok = run("invalid-submit", [&] { return InvalidSubmit(); });
    } else {
      double p_finish = util < 0.6 ? 0.25 : (util < 0.85 ? 0.45 : 0.7);
      if (!names_.empty() && P(p_finish)) {
        ok = run("finish", [&] { return Finish(); });
      } else {
        static const char *const kKinds[] = {"guaranteed",    "opportunistic", "high-priority",
                                             "pinned",        "rack-gang",     "pod-within",
                                             "allowed-nodes", "multi-member"};
        static const int kCum[] = {40, 55, 65, 72, 80, 88, 95, 100};
        int k = U(100), i = 0;
        while (k >= kCum[i]) i++;
        std::string op = std::string("submit-") + kKinds[i];
        if (opt_.fractions && P(0.3)) op = "submit-fraction";
        if (opt_.mig && P(0.25)) op = "submit-slice";
        ok = run(op.c_str(), [&] {
          Req q = MakeReq(op.substr(7) == "fraction" || op.substr(7) == "slice" ? op.substr(7)
                                                                                : kKinds[i]);
          return Submit(q, false);
        });
      }
    }
    if (!ok) return false;
    if (fault_now && opt_.fault == "drop-job" && !names_.empty()) {
      std::string victim = RandomJob();
      op_ += " + fault drop-job '" + victim + "'";
      Remove(victim);
    }
    return CheckStep();
  }

  const SoakOptions &opt_;
  std::ostream *progress_;
  std::mt19937_64 rng_;
  SoakResult res_;
  hived_engine *engine_ = nullptr;
  long step_ = 0;
  std::string op_;
  int nodes_ = 0, racks_ = 0, pins_ = 0;
  std::vector<VcQuota> quotas_;
  std::string config_;
  std::vector<int> to_model_, to_engine_;
  std::vector<int> owner_;  // per model GPU: -1 free, else held
  std::vector<char> is_bad_;
  std::set<int> bad_;
  std::vector<int> used_, pin_used_;
  long used_gpus_ = 0;                  // in slots
  int slots_ = 1;                       // fractions per GPU in the model (1: whole GPUs only)
  int leaves_per_node_ = kGpusPerNode;  // whole GPUs, then MIG slices
  std::vector<int> slice_used_;         // per VC and profile: guaranteed slices held
  std::unordered_map<std::string, MJob> jobs_;
  std::vector<std::string> names_;
  uint64_t next_id_ = 0;
};

}  // namespace

SoakResult RunSoak(const SoakOptions &opt, std::ostream *progress) {
  Soak s(opt, progress);
  return s.Run();
}

std::string SoakResultJson(const SoakOptions &opt, const SoakResult &r) {
  std::ostringstream o;
  auto map = [&o](const std::map<std::string, long> &m) {
    o << "{";
    bool first = true;
    for (const auto &kv : m) {
      o << (first ? "" : ",") << "\"" << kv.first << "\":" << kv.second;
      first = false;
    }
    o << "}";
  };
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.2f", r.seconds);
  o << "{\"result\":\"" << (r.ok ? "ok" : "FAILED") << "\",\"seed\":" << opt.seed
    << ",\"gpus\":" << r.gpus << ",\"nodes\":" << r.nodes << ",\"racks\":" << r.racks
    << ",\"vcs\":" << r.vcs << ",\"steps\":" << r.steps_done << ",\"seconds\":" << secs
    << ",\"invariantChecks\":" << r.invariant_checks << ",\"sweeps\":" << r.sweeps
    << ",\"maxJobs\":" << r.max_jobs << ",\"maxUsedGpus\":" << r.max_used_gpus << ",\"ops\":";
  map(r.ops);
  o << ",\"outcomes\":";
  map(r.outcomes);
  o << "}";
  return o.str();
}

}  // namespace hived_tools
