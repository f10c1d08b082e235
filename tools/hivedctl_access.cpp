// SPDX-License-Identifier: GPL-2.0-or-later
#include "hivedctl_access.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <sstream>

namespace hivedctl {
namespace {

// A comma list from scontrol; "ALL" and "" (not set) are no list.
std::vector<std::string> Names(const std::string& value) {
  std::vector<std::string> out;
  if (value.empty() || !strcasecmp(value.c_str(), "ALL") || value == "(null)") return out;
  std::istringstream in(value);
  std::string name;
  while (std::getline(in, name, ','))
    if (!name.empty()) out.push_back(name);
  return out;
}

bool Listed(const std::vector<std::string>& list, const std::string& name) {
  for (const auto& n : list)
    if (!strcasecmp(n.c_str(), name.c_str())) return true;
  return false;
}

bool AnyListed(const std::vector<std::string>& list, const std::vector<std::string>& names) {
  for (const auto& n : names)
    if (Listed(list, n)) return true;
  return false;
}

}  // namespace

std::string RecordField(const std::string& record, const std::string& key) {
  size_t at = record.find(" " + key + "=");
  if (at == std::string::npos) return "";
  at += key.size() + 2;
  return record.substr(at, record.find_first_of(" \n", at) - at);
}

std::string PartitionRefuses(
    const std::string& record, const std::string& account,
    const std::function<std::vector<std::string>()>& lineage, const std::string& qos,
    const std::function<bool(const std::vector<std::string>&)>& in_groups) {
  const std::string name = record.substr(14, record.find(' ') - 14);
  const std::string groups = RecordField(record, "AllowGroups");
  if (in_groups && !Names(groups).empty() && !in_groups(Names(groups)))
    return "partition " + name + " allows groups " + groups +
           ", and you are in none of them (AllowGroups)";
  if (!qos.empty()) {
    const std::string allow = RecordField(record, "AllowQos"),
                      deny = RecordField(record, "DenyQos");
    const auto allowed = Names(allow), denied = Names(deny);
    if (!allowed.empty() && !Listed(allowed, qos))
      return "partition " + name + " allows QOS " + allow + ", not " + qos + " (AllowQos)";
    if (allowed.empty() && Listed(denied, qos))
      return "partition " + name + " denies QOS " + qos + " (DenyQos=" + deny + ")";
  }
  if (account.empty() || !lineage) return "";
  const std::string allow = RecordField(record, "AllowAccounts"),
                    deny = RecordField(record, "DenyAccounts");
  const auto allowed = Names(allow), denied = Names(deny);
  if (allowed.empty() && denied.empty()) return "";
  const std::vector<std::string> up = lineage();
  if (up.empty()) return "";  // accounts not checked, or not known to sacctmgr
  if (!allowed.empty() && !AnyListed(allowed, up))
    return "partition " + name + " allows accounts " + allow + ", not " + account +
           (up.size() > 1 ? " or any account above it" : "") + " (AllowAccounts)";
  if (allowed.empty() && AnyListed(denied, up))
    return "partition " + name + " denies account " + account +
           (Listed(denied, account) ? "" : " (through an account above it)") +
           " (DenyAccounts=" + deny + ")";
  return "";
}

bool EnforcesAssociations(const std::string& value) {
  std::istringstream in(value);
  std::string word;
  while (std::getline(in, word, ',')) {
    for (const char* w : {"associations", "limits", "qos", "safe", "wckeys", "all", "1", "2"})
      if (!strcasecmp(word.c_str(), w)) return true;
  }
  return false;
}

bool EnforcesQos(const std::string& value) {
  std::istringstream in(value);
  std::string word;
  while (std::getline(in, word, ','))
    if (!strcasecmp(word.c_str(), "qos") || !strcasecmp(word.c_str(), "all")) return true;
  return false;
}

std::string QosRefuses(const std::string& qos, const std::string& qos_list) {
  std::istringstream in(qos_list);
  std::string word;
  while (std::getline(in, word, ','))
    if (!strcasecmp(word.c_str(), qos.c_str())) return "";
  return "may use QOS " + (qos_list.empty() ? std::string("none") : qos_list) + ", not " + qos;
}

std::string DefaultQos(const std::string& default_qos, const std::string& qos_list) {
  if (!default_qos.empty()) return default_qos;
  if (!qos_list.empty() && qos_list.find(',') == std::string::npos) return qos_list;
  return "normal";
}

int64_t TresValue(const std::string& list, const std::string& name) {
  std::istringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || strcasecmp(item.substr(0, eq).c_str(), name.c_str())) continue;
    const std::string v = item.substr(eq + 1);
    if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return -1;
    return strtoll(v.c_str(), nullptr, 10);  // saturates: a limit past any job
  }
  return -1;
}

namespace {

enum class Kind { kMaxPerJob, kMaxPerNode, kMinPerJob };

const std::string& LimitList(const TresLimits& l, Kind k) {
  return k == Kind::kMaxPerJob    ? l.max_per_job
         : k == Kind::kMaxPerNode ? l.max_per_node
                                  : l.min_per_job;
}

// Slurm's pending reason for a limit of kind k on TRES tres (node or a gres).
std::string ReasonName(bool qos, Kind k, bool node) {
  const std::string who = qos ? "QOS" : "Assoc";
  if (k == Kind::kMinPerJob) return who + (node ? "MinNode" : "MinGRES");
  if (k == Kind::kMaxPerNode) return who + "MaxGRESPerNode";
  return who + (node ? "MaxNodePerJobLimit" : "MaxGRESPerJob");
}

std::string Count(int64_t n, const char* unit) {
  return std::to_string(n) + " " + unit + (n == 1 ? "" : "s");
}

}  // namespace

std::string LimitRefuses(const std::vector<TresLimits>& qos, const TresLimits& assoc,
                         const JobTres& job, std::string* reason) {
  std::vector<std::string> tres = {"node"};
  if (job.gpus > 0) {
    tres.push_back("gres/gpu");
    if (!job.gpu_type.empty()) tres.push_back("gres/gpu:" + job.gpu_type);
  }
  for (Kind k : {Kind::kMaxPerJob, Kind::kMaxPerNode, Kind::kMinPerJob}) {
    for (const auto& t : tres) {
      const bool node = t == "node";
      int64_t asked = node ? job.nodes : job.gpus;
      if (k == Kind::kMaxPerNode) {
        if (node || job.gpus_per_node < 0) continue;  // not known before placement
        asked = job.gpus_per_node;
      }
      // The first QOS that sets it decides; the association only where none does.
      const TresLimits* by = nullptr;
      int64_t limit = -1;
      for (const auto& q : qos)
        if ((limit = TresValue(LimitList(q, k), t)) >= 0) {
          by = &q;
          break;
        }
      if (!by && k != Kind::kMinPerJob && (limit = TresValue(LimitList(assoc, k), t)) >= 0)
        by = &assoc;
      if (!by || (k == Kind::kMinPerJob ? asked >= limit : asked <= limit)) continue;
      if (reason) *reason = ReasonName(by->is_qos, k, node);
      const char* name = k == Kind::kMinPerJob    ? "MinTRESPerJob"
                         : k == Kind::kMaxPerNode ? "MaxTRESPerNode"
                         : by->is_qos             ? "MaxTRESPerJob"
                                                  : "MaxTRES";
      return std::string(name) + " " + t + "=" + std::to_string(limit) + " of " + by->owner +
             ": the job asks for " + Count(asked, node ? "node" : "GPU") +
             (k == Kind::kMaxPerNode ? " per node" : "");
    }
  }
  return "";
}

bool EnforcesLimits(const std::string& value) {
  std::istringstream in(value);
  std::string word;
  while (std::getline(in, word, ','))
    for (const char* w : {"limits", "safe", "all", "2"})
      if (!strcasecmp(word.c_str(), w)) return true;
  return false;
}

bool QosHasFlag(const std::string& flags, const char* flag) {
  std::istringstream in(flags);
  std::string word;
  while (std::getline(in, word, ','))
    if (!strcasecmp(word.c_str(), flag)) return true;
  return false;
}

std::vector<std::string> QosOrder(const std::string& job_qos, const std::string& job_qos_flags,
                                  const std::string& part_qos) {
  std::vector<std::string> order;
  const bool part = !part_qos.empty() && part_qos != "N/A" && part_qos != "(null)";
  if (part && !QosHasFlag(job_qos_flags, "OverPartQOS")) order.push_back(part_qos);
  if (!job_qos.empty() && (order.empty() || strcasecmp(order[0].c_str(), job_qos.c_str())))
    order.push_back(job_qos);
  if (part && QosHasFlag(job_qos_flags, "OverPartQOS") &&
      strcasecmp(part_qos.c_str(), job_qos.c_str()))
    order.push_back(part_qos);
  return order;
}

std::string PartitionNodesRefuse(const std::string& record, int nodes,
                                 const std::string& qos_flags) {
  const std::string name = record.substr(14, record.find(' ') - 14);
  const std::string min = RecordField(record, "MinNodes"), max = RecordField(record, "MaxNodes");
  const bool numeric = !max.empty() && max.find_first_not_of("0123456789") == std::string::npos;
  if (numeric && nodes > atoi(max.c_str()) && !QosHasFlag(qos_flags, "PartitionMaxNodes"))
    return "partition " + name + " takes jobs of at most " + Count(atoi(max.c_str()), "node") +
           " (MaxNodes=" + max + "): the job asks for " + std::to_string(nodes);
  if (nodes < atoi(min.c_str()) && !QosHasFlag(qos_flags, "PartitionMinNodes"))
    return "partition " + name + " takes jobs of at least " + Count(atoi(min.c_str()), "node") +
           " (MinNodes=" + min + "): the job asks for " + std::to_string(nodes);
  return "";
}

int64_t TimeMinutes(const std::string& text) {
  if (!strcasecmp(text.c_str(), "UNLIMITED") || !strcasecmp(text.c_str(), "INFINITE") ||
      text == "-1")
    return kUnlimitedMinutes;
  // Days before a '-', then up to three ':' parts; without days, one part is
  // minutes and two are minutes and seconds.
  const size_t dash = text.find('-');
  std::vector<int64_t> parts;
  int64_t days = 0;
  const std::string rest = dash == std::string::npos ? text : text.substr(dash + 1);
  if (dash != std::string::npos) {
    const std::string d = text.substr(0, dash);
    if (d.empty() || d.size() > 6 || d.find_first_not_of("0123456789") != std::string::npos)
      return -1;
    days = atoll(d.c_str());
  }
  std::istringstream in(rest);
  for (std::string p; std::getline(in, p, ':');) {
    if (p.empty() || p.size() > 9 || p.find_first_not_of("0123456789") != std::string::npos)
      return -1;
    parts.push_back(atoll(p.c_str()));
  }
  if (parts.empty() || parts.size() > 3 || rest.back() == ':') return -1;
  int64_t h = 0, m = 0, sec = 0;
  if (dash != std::string::npos) {
    h = parts[0];
    m = parts.size() > 1 ? parts[1] : 0;
    sec = parts.size() > 2 ? parts[2] : 0;
  } else if (parts.size() == 3) {
    h = parts[0], m = parts[1], sec = parts[2];
  } else {
    m = parts[0];
    sec = parts.size() > 1 ? parts[1] : 0;
  }
  return days * 1440 + h * 60 + m + (sec + 59) / 60;
}

std::string MinutesText(int64_t minutes) {
  if (minutes == kUnlimitedMinutes) return "UNLIMITED";
  char buf[48];
  const int64_t days = minutes / 1440, h = minutes / 60 % 24, m = minutes % 60;
  if (days)
    snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:00", static_cast<long long>(days),
             static_cast<long long>(h), static_cast<long long>(m));
  else
    snprintf(buf, sizeof buf, "%02lld:%02lld:00", static_cast<long long>(h),
             static_cast<long long>(m));
  return buf;
}

std::string PartitionTimeRefuses(const std::string& record, int64_t minutes,
                                 const std::string& qos_flags) {
  const std::string name = record.substr(14, record.find(' ') - 14);
  const std::string max = RecordField(record, "MaxTime");
  const int64_t limit = TimeMinutes(max);
  if (limit < 0 || minutes <= limit || QosHasFlag(qos_flags, "PartitionTimeLimit")) return "";
  return "partition " + name + " takes jobs of at most " + MinutesText(limit) + " (MaxTime=" + max +
         "): the job asks for " + MinutesText(minutes);
}

std::string WallRefuses(const std::vector<TresLimits>& qos, const TresLimits& assoc,
                        int64_t minutes, std::string* reason, const std::string& asks) {
  const TresLimits* by = nullptr;
  for (const auto& q : qos)
    if (!by && TimeMinutes(q.max_wall) >= 0) by = &q;
  if (!by && TimeMinutes(assoc.max_wall) >= 0) by = &assoc;
  if (!by) return "";
  const int64_t limit = TimeMinutes(by->max_wall);
  if (minutes <= limit) return "";
  *reason = by->is_qos ? "QOSMaxWallDurationPerJobLimit" : "AssocMaxWallDurationPerJobLimit";
  return "MaxWall " + MinutesText(limit) + " of " + by->owner + ": " + asks + " " +
         MinutesText(minutes);
}

bool EnforcesPartLimits(const std::string& value) {
  return !value.empty() && strcasecmp(value.c_str(), "NO") && value != "0";
}

namespace {

// Which of a QOS's usage limits: all its jobs, the user's, the account's.
enum class Scope { kGroup, kUser, kAccount };

// The first time `used + asked <= limit` holds as the counted jobs end, earliest
// first (value: what each job holds); 0 when it never does by known end times.
int64_t Frees(std::vector<std::pair<int64_t, const RunningJob*>> held, int64_t used, int64_t asked,
              int64_t limit, std::vector<std::string>* after) {
  std::stable_sort(held.begin(), held.end(), [](const auto& x, const auto& y) {
    const int64_t a = x.second->end ? x.second->end : INT64_MAX;
    const int64_t b = y.second->end ? y.second->end : INT64_MAX;
    return a < b;
  });
  after->clear();
  for (const auto& [value, r] : held) {
    if (!r->end) break;
    used -= value;
    after->push_back(r->id);
    if (used + asked <= limit) return r->end;
  }
  after->clear();
  return 0;
}

}  // namespace

UsageHold GroupJobsHold(const AssocTree& tree, bool qos_sets_grp_jobs,
                        const std::vector<RunningJob>& running) {
  UsageHold hold;
  if (qos_sets_grp_jobs) return hold;
  // Whether account is `above` or below it (accounts of a loop count once).
  auto under = [&](std::string account, const std::string& above) {
    for (size_t hops = 0; hops <= tree.parents.size(); hops++) {
      if (account == above) return true;
      const auto it = tree.parents.find(account);
      if (it == tree.parents.end() || it->second.empty()) return false;
      account = it->second;
    }
    return false;
  };
  for (const auto& g : tree.chain) {
    if (g.grp_jobs < 0) continue;
    std::vector<std::pair<int64_t, const RunningJob*>> held;
    for (const auto& r : running)
      if (g.user.empty() ? under(r.account, g.account) : r.user == g.user && r.account == g.account)
        held.emplace_back(1, &r);
    const int64_t used = static_cast<int64_t>(held.size());
    if (used + 1 <= g.grp_jobs) continue;
    const std::string owner = g.user.empty()
                                  ? "account " + g.account
                                  : "the association of " + g.user + " in account " + g.account;
    hold.reason = "AssocGrpJobsLimit";
    hold.never = g.grp_jobs < 1;
    hold.why = "GrpJobs " + std::to_string(g.grp_jobs) + " of " + owner + ": " +
               (hold.never ? std::string("it lets no job run")
                           : Count(used, "job") + (used == 1 ? " runs" : " run") + " under it");
    hold.frees = Frees(held, used, 1, g.grp_jobs, &hold.after);
    return hold;
  }
  return hold;
}

UsageHold UsageHolds(const std::vector<TresLimits>& qos, const TresLimits& assoc,
                     const JobTres& job, const std::string& user, const std::string& account,
                     const std::string& partition, const std::string& part_qos,
                     const std::vector<RunningJob>& running) {
  UsageHold hold;
  std::vector<std::string> tres = {"node"};
  if (job.gpus > 0) {
    tres.push_back("gres/gpu");
    if (!job.gpu_type.empty()) tres.push_back("gres/gpu:" + job.gpu_type);
  }
  auto counts = [&](const TresLimits& l, Scope scope, const RunningJob& r) {
    if (!l.is_qos) return r.account == account && r.user == user;  // MaxJobs
    const bool of_qos = !strcasecmp(r.qos.c_str(), l.name.c_str()) ||
                        (!strcasecmp(part_qos.c_str(), l.name.c_str()) && r.partition == partition);
    return of_qos && (scope == Scope::kGroup  ? true
                      : scope == Scope::kUser ? r.user == user
                                              : r.account == account);
  };
  auto whose = [&](Scope scope) {
    return scope == Scope::kGroup  ? std::string("its jobs")
           : scope == Scope::kUser ? "user " + user + "'s jobs in it"
                                   : "account " + account + "'s jobs in it";
  };
  // Job counts (slurmctld checks them before the select plugin is asked), then TRES.
  struct CountLimit {
    Scope scope;
    int64_t TresLimits::*field;
    const char* name;
    const char* reason;
  };
  static const CountLimit kCounts[] = {
      {Scope::kGroup, &TresLimits::grp_jobs, "GrpJobs", "QOSGrpJobsLimit"},
      {Scope::kUser, &TresLimits::jobs_per_user, "MaxJobsPerUser", "QOSMaxJobsPerUserLimit"},
      {Scope::kAccount, &TresLimits::jobs_per_account, "MaxJobsPerAccount", "MaxJobsPerAccount"}};
  for (const auto& c : kCounts) {
    const TresLimits* by = nullptr;
    for (const auto& q : qos)
      if (q.*c.field >= 0) {
        by = &q;
        break;
      }
    const bool by_assoc = !by && c.scope == Scope::kUser && assoc.jobs_per_user >= 0;
    if (by_assoc) by = &assoc;
    if (!by) continue;
    std::vector<std::pair<int64_t, const RunningJob*>> held;
    for (const auto& r : running)
      if (counts(*by, c.scope, r)) held.emplace_back(1, &r);
    const int64_t limit = by->*c.field, used = static_cast<int64_t>(held.size());
    if (used + 1 <= limit) continue;
    const std::string jobs = Count(used, "job");
    hold.why = std::string(by_assoc ? "MaxJobs" : c.name) + " " + std::to_string(limit) + " of " +
               by->owner + ": " +
               (by_assoc                   ? "it runs " + jobs
                : c.scope == Scope::kGroup ? jobs + " run in it"
                : c.scope == Scope::kUser  ? "user " + user + " runs " + jobs + " in it"
                                           : "account " + account + " runs " + jobs + " in it");
    hold.reason = by_assoc ? "AssocMaxJobsLimit" : c.reason;
    hold.never = limit < 1;
    if (hold.never)
      hold.why = std::string(by_assoc ? "MaxJobs" : c.name) + " 0 of " + by->owner +
                 ": it lets no job run";
    hold.frees = Frees(held, used, 1, limit, &hold.after);
    return hold;
  }
  struct TresLimit {
    Scope scope;
    std::string TresLimits::*field;
    const char* name;
    const char* node_reason;
    const char* gres_reason;
  };
  static const TresLimit kTres[] = {
      {Scope::kGroup, &TresLimits::grp, "GrpTRES", "QOSGrpNodeLimit", "QOSGrpGRES"},
      {Scope::kUser, &TresLimits::per_user, "MaxTRESPerUser", "QOSMaxNodePerUserLimit",
       "QOSMaxGRESPerUser"},
      {Scope::kAccount, &TresLimits::per_account, "MaxTRESPerAccount", "MaxNodePerAccount",
       "MaxGRESPerAccount"}};
  for (const auto& t : tres) {
    const bool node = t == "node";
    const int64_t asked = node ? job.nodes : job.gpus;
    for (const auto& c : kTres) {
      const TresLimits* by = nullptr;
      int64_t limit = -1;
      for (const auto& q : qos)
        if ((limit = TresValue(q.*c.field, t)) >= 0) {
          by = &q;
          break;
        }
      if (!by) continue;
      std::vector<std::pair<int64_t, const RunningJob*>> held;
      int64_t used = 0;
      for (const auto& r : running) {
        if (!counts(*by, c.scope, r)) continue;
        const int64_t v = TresValue(r.tres, t);
        if (v <= 0) continue;
        used += v;
        held.emplace_back(v, &r);
      }
      if (used + asked <= limit) continue;
      const char* unit = node ? "node" : "GPU";
      hold.why = std::string(c.name) + " " + t + "=" + std::to_string(limit) + " of " + by->owner +
                 ": " + whose(c.scope) + " hold " + Count(used, unit) + ", the job asks for " +
                 Count(asked, unit);
      hold.reason = node ? c.node_reason : c.gres_reason;
      hold.never = hold.request_over = asked > limit;
      if (hold.never) hold.why += ": more than the limit alone";
      hold.frees = Frees(held, used, asked, limit, &hold.after);
      return hold;
    }
  }
  return hold;
}

}  // namespace hivedctl
