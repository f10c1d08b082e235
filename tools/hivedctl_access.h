// SPDX-License-Identifier: GPL-2.0-or-later
// Whether a partition lets a job in, as slurmctld decides before it asks the
// select plugin: whatif must not answer "starts now" for a partition whose
// AllowAccounts, AllowGroups or AllowQos would keep the job pending forever.
#ifndef HIVEDCTL_ACCESS_H
#define HIVEDCTL_ACCESS_H

#include <functional>
#include <string>
#include <vector>

namespace hivedctl {

// The value of " KEY=" in a one-line scontrol record ("" when absent).
std::string RecordField(const std::string& record, const std::string& key);

// Why slurmctld never starts a job of account (on) QOS qos in the partition whose
// `scontrol -o show partition` record this is; "" when it may.
// - AllowAccounts (else DenyAccounts) against the accounts lineage() gives: the
//   account first, then (Slurm 23.11 and later) each account above it, as Slurm
//   walks the association tree. It is called only when the partition lists
//   accounts, and returns none where Slurm does not check them (23.11 and later
//   without AccountingStorageEnforce=associations); then neither does this.
// - AllowQos (else DenyQos) against qos; not checked when qos is "" (a job without
//   -q whose association sacctmgr could not give: see DefaultQos).
// - AllowGroups: in_groups(groups) says whether the user may use them (root and
//   SlurmUser always, as in slurmctld; else a member of one); called only when the
//   partition lists groups, not checked without it.
std::string PartitionRefuses(
    const std::string& record, const std::string& account,
    const std::function<std::vector<std::string>()>& lineage, const std::string& qos,
    const std::function<bool(const std::vector<std::string>&)>& in_groups = nullptr);

// Whether an AccountingStorageEnforce value makes Slurm check associations:
// associations, or limits, qos, safe, wckeys or all, which imply it (1, 2: the
// numeric forms of associations, limits).
bool EnforcesAssociations(const std::string& value);

// Whether an AccountingStorageEnforce value makes Slurm check a job's QOS against
// its association's QOS list: qos, or all.
bool EnforcesQos(const std::string& value);

// Why an association whose QOS list (sacctmgr's comma list) is qos_list may not
// use qos ("" when it may): "may use QOS a,b, not c". Compared case-insensitively.
std::string QosRefuses(const std::string& qos, const std::string& qos_list);

// The QOS slurmctld gives a job submitted without --qos, from its association's
// DefaultQOS and QOS list as `sacctmgr -P show assoc` prints them (a child's are its
// parent's when unset): the default QOS; else the one QOS of the list when it has
// only one; else "normal".
std::string DefaultQos(const std::string& default_qos, const std::string& qos_list);

}  // namespace hivedctl

#endif
