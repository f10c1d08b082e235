/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_vc_head.h - a VC's highest-priority guaranteed job that waits for the
 * shape of its cells, and the nodes its cells free on first.
 */
#ifndef HIVED_VC_HEAD_H
#define HIVED_VC_HEAD_H

#include "src/common/bitstring.h"

#include "ctld_symbols.h"

/*
 * job of vc waits with free GPUs in its VC's cells but not in the shape it asks
 * (whole nodes, a socket); nodes: where the engine places it once the running
 * jobs end as Slurm expects (copied). It becomes vc's head if vc has no live
 * head, or a lower-priority one, or it is the head (its nodes are refreshed;
 * with no nodes, it stops being the head).
 */
extern void hived_vc_head_offer(const char *vc, job_record_t *job,
				bitstr_t *nodes);

/* Whether vc has a live head; forgets a head that no longer pends. */
extern bool hived_vc_head_live(const char *vc);

/*
 * The nodes that job, a guaranteed job of vc of lower priority than vc's live
 * head, must leave to it (NULL otherwise; owned here, not to be changed, valid until the next
 * call); *head_id: the head's job id.
 */
extern bitstr_t *hived_vc_head_nodes(const char *vc, job_record_t *job,
				     uint32_t *head_id);

extern void hived_vc_head_free(void);

#endif
