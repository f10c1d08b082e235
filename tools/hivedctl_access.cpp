// SPDX-License-Identifier: GPL-2.0-or-later
#include "hivedctl_access.h"

#include <strings.h>

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

}  // namespace hivedctl
