// SPDX-License-Identifier: GPL-2.0-or-later
// Trace loaders. Each appends to a Trace, sorts it, and on a bad row stops with a
// message naming file:line:column and the column's name.
#pragma once

#include <string>

#include "trace.h"

namespace hivedsim {

// ITP (ElasticFlow release): every *.csv in dir is one VC named after the file;
// columns job_id,submission_time,duration,num_gpu.
bool LoadItp(const std::string& dir, Trace* t, std::string* err);

// Philly by VC (PCS artifact): dir/trace_<vc>.csv with app_id,submit_time,service,
// num_jobs; dir/vc_offsets.csv (vc,offset_s) puts VCs on one clock (a VC without an
// offset gets the median offset); dir/vc_nodes.csv (vc,node num), if present, gives
// quotas of 8-GPU nodes. `service` is taken as the job's length.
bool LoadPhilly(const std::string& dir, Trace* t, std::string* err);

// `sacct -P -o JobID,Account,Submit,Start,End,AllocTRES,NNodes` output (header
// optional). Steps, jobs that never ran and jobs without GPUs are skipped.
bool LoadSacct(const std::string& file, Trace* t, std::string* err);

// "itp:DIR", "philly:DIR" or "sacct:FILE".
bool LoadTrace(const std::string& spec, Trace* t, std::string* err);

}  // namespace hivedsim
