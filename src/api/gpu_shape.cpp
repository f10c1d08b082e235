// SPDX-License-Identifier: GPL-2.0-or-later
// hived_gpu_shape_of: a gang's members from the GPU counts Slurm's options give.
// select/hived (from a job record) and hivedctl whatif (from sbatch-like options)
// both ask it, so a what-if is asked the shape slurmctld would ask.
#include <cinttypes>
#include <cstdio>

#include "hived.h"

namespace {

hived_rc Inval(char* errbuf, size_t errlen, const char* what, int64_t a, int64_t b) {
  if (errbuf && errlen) snprintf(errbuf, errlen, what, a, b);
  return HIVED_EINVAL;
}

}  // namespace

extern "C" hived_rc hived_gpu_shape_of(const hived_gpu_ask* ask, hived_gpu_shape* out, char* errbuf,
                                       size_t errlen) {
  if (errbuf && errlen) errbuf[0] = '\0';
  if (!ask || !out) return Inval(errbuf, errlen, "hived_gpu_shape_of: no ask or no shape", 0, 0);
  *out = hived_gpu_shape{};
  const int64_t nodes = ask->nodes < 1 ? 1 : ask->nodes;
  const int64_t per_node = ask->gpus_per_node, per_job = ask->gpus_per_job;
  const int64_t largest = ask->max_node_leaves;
  hived_member* m = out->members;

  if (per_node < 0 || per_job < 0)
    return Inval(errbuf, errlen, "GPU count below zero (%" PRId64 " per node, %" PRId64 " per job)",
                 per_node, per_job);
  if (per_node > INT32_MAX || per_job > INT32_MAX)
    return Inval(errbuf, errlen, "%" PRId64 " GPUs: more than a request can hold (%" PRId64 ")",
                 per_node > per_job ? per_node : per_job, INT32_MAX);
  if (per_node) {
    m[out->n_members++] = {static_cast<int32_t>(nodes), static_cast<int32_t>(per_node), 0};
  } else if (per_job && nodes > 1) {
    if (per_job % nodes)
      return Inval(errbuf, errlen,
                   "--gpus=%" PRId64 " does not split evenly over %" PRId64 " nodes", per_job,
                   nodes);
    m[out->n_members++] = {static_cast<int32_t>(nodes), static_cast<int32_t>(per_job / nodes), 0};
  } else if (per_job) {
    // --gpus=N alone: the fewest nodes, whole nodes of the largest first.
    if (largest < 1)
      return Inval(errbuf, errlen, "--gpus=%" PRId64 ": no node has GPUs", per_job, 0);
    if (per_job / largest)
      m[out->n_members++] = {static_cast<int32_t>(per_job / largest), static_cast<int32_t>(largest),
                             0};
    if (per_job % largest) m[out->n_members++] = {1, static_cast<int32_t>(per_job % largest), 0};
    // No node count was given (or a range): the engine may split it over that many.
    const int64_t max =
        (ask->max_nodes < 1 || static_cast<size_t>(ask->max_nodes) > ask->node_count)
            ? static_cast<int64_t>(ask->node_count)
            : ask->max_nodes;
    if (ask->split_count_only && ask->max_nodes != 1 && max <= INT32_MAX)
      out->split_max_pods = static_cast<int32_t>(max);
  } else {
    return Inval(errbuf, errlen, "no GPU count per node or per job", 0, 0);
  }
  if (ask->whole_node && largest > 0) {
    // Slurm gives the job every GPU of its nodes: each pod is a whole node, never
    // split (smaller pods would still take whole nodes). A pod larger than any
    // node stays as asked, and waits or is refused as such.
    int64_t pods = 0;
    for (size_t i = 0; i < out->n_members; i++) {
      if (m[i].leaf_cell_number > largest) return HIVED_OK;
      pods += m[i].pod_number;
    }
    if (pods > INT32_MAX) return HIVED_OK;
    m[0] = {static_cast<int32_t>(pods), static_cast<int32_t>(largest), 0};
    out->n_members = 1;
    out->split_max_pods = 0;
    out->whole_node_leaves = static_cast<int32_t>(largest);
  }
  return HIVED_OK;
}
