/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * core_steer.c - cores next to the GPUs HiveD chose.
 *
 * cons_tres picks a job's cores while it still believes it picks the GPUs too;
 * select/hived rewrites the GPU indices only at job_begin. Left alone, cons_tres
 * may hand out cores on the socket of GPUs the job never gets. Excluding the far
 * cores for one try makes cons_tres choose cores (and GPUs) on the right socket;
 * the caller retries without the exclusion, so a job is never refused for it.
 */
#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "slurm_gen.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/xstring.h"

#include "core_steer.h"
#include "hived_ctld.h"

extern gres_node_state_t *hived_gpu_topo(node_record_t *node_ptr)
{
	list_itr_t *it;
	gres_state_t *gs;
	gres_node_state_t *found = NULL;

	if (!node_ptr->gres_list)
		return NULL;
	it = list_iterator_create(node_ptr->gres_list);
	while ((gs = list_next(it))) {
		gres_node_state_t *ns = gs->gres_data;

		if (!xstrcmp(gs->gres_name, "gpu") && ns && ns->topo_cnt) {
			found = ns;
			break;
		}
	}
	list_iterator_destroy(it);
	return found;
}

/*
 * The cores close to any of a pod's GPUs, or NULL if one of them is close to
 * every core (a gres.conf line without Cores=) or the node has no topology.
 */
static bitstr_t *_near_cores(node_record_t *node_ptr, const hived_pod *pod)
{
	gres_node_state_t *ns = hived_gpu_topo(node_ptr);
	bitstr_t *near;

	if (!ns || !node_ptr->tot_cores)
		return NULL;
	near = bit_alloc(node_ptr->tot_cores);
	for (int32_t k = 0; k < pod->n_leaves; k++) {
		int32_t g = pod->leaves[k];
		bool placed = false;

		for (int t = 0; t < ns->topo_cnt; t++) {
			bitstr_t *gb = ns->topo_gres_bitmap ?
				       ns->topo_gres_bitmap[t] : NULL;
			bitstr_t *cb = ns->topo_core_bitmap ?
				       ns->topo_core_bitmap[t] : NULL;

			if (!gb || (g >= bit_size(gb)) || !bit_test(gb, g))
				continue;
			if (!cb || (bit_size(cb) != node_ptr->tot_cores)) {
				FREE_NULL_BITMAP(near);
				return NULL;
			}
			bit_or(near, cb);
			placed = true;
		}
		if (!placed) {
			FREE_NULL_BITMAP(near);
			return NULL;
		}
	}
	return near;
}

#if HIVED_SELECT_GEN == 2205
/* One bitmap over every node's cores, node after node. */
extern hived_exc_t *hived_core_steer(const hived_decision *d, hived_exc_t *exc)
{
	int64_t total = 0;
	int64_t *offset;
	bitstr_t *out = NULL;

	if (!d || !d->n_pods)
		return NULL;
	offset = xcalloc(node_record_count + 1, sizeof(int64_t));
	for (int i = 0; i < node_record_count; i++) {
		offset[i] = total;
		if (node_record_table_ptr[i])
			total += node_record_table_ptr[i]->tot_cores;
	}
	offset[node_record_count] = total;
	if (!total || (exc && (bit_size(exc) != total))) {
		xfree(offset);
		return NULL;
	}
	for (size_t p = 0; p < d->n_pods; p++) {
		int idx = hived_ctld_slurm_index(d->pods[p].node);
		node_record_t *node_ptr;
		bitstr_t *near;

		if ((idx < 0) || (idx >= node_record_count) ||
		    !(node_ptr = node_record_table_ptr[idx]))
			continue;
		if (!(near = _near_cores(node_ptr, &d->pods[p])))
			continue;
		if (bit_set_count(near) < node_ptr->tot_cores) {
			if (!out)
				out = exc ? bit_copy(exc) : bit_alloc(total);
			for (int c = 0; c < node_ptr->tot_cores; c++)
				if (!bit_test(near, c))
					bit_set(out, offset[idx] + c);
		}
		FREE_NULL_BITMAP(near);
	}
	xfree(offset);
	return out;
}

extern void hived_core_steer_free(hived_exc_t *steer)
{
	FREE_NULL_BITMAP(steer);
}
#else
/*
 * resv_exc_t: cons_tres reads only exc_cores[], one bitmap per node index (NULL:
 * no core of that node excluded). The rest is shared with the caller's copy.
 */
extern hived_exc_t *hived_core_steer(const hived_decision *d, hived_exc_t *exc)
{
	resv_exc_t *out = NULL;

	if (!d || !d->n_pods)
		return NULL;
	for (size_t p = 0; p < d->n_pods; p++) {
		int idx = hived_ctld_slurm_index(d->pods[p].node);
		node_record_t *node_ptr;
		bitstr_t *near, *cores;

		if ((idx < 0) || (idx >= node_record_count) ||
		    !(node_ptr = node_record_table_ptr[idx]))
			continue;
		if (!(near = _near_cores(node_ptr, &d->pods[p])))
			continue;
		if (bit_set_count(near) < node_ptr->tot_cores) {
			if (!out) {
				out = xmalloc(sizeof(*out));
				if (exc)
					*out = *exc;
				out->exc_cores = xcalloc(node_record_count,
							 sizeof(bitstr_t *));
				for (int i = 0; exc && exc->exc_cores &&
						(i < node_record_count); i++)
					if (exc->exc_cores[i])
						out->exc_cores[i] =
							bit_copy(exc->exc_cores[i]);
			}
			cores = out->exc_cores[idx];
			if (!cores)
				cores = out->exc_cores[idx] =
					bit_alloc(node_ptr->tot_cores);
			if (bit_size(cores) == bit_size(near)) {
				bit_not(near);
				bit_or(cores, near);
			}
		}
		FREE_NULL_BITMAP(near);
	}
	return out;
}

extern void hived_core_steer_free(hived_exc_t *steer)
{
	if (!steer)
		return;
	for (int i = 0; steer->exc_cores && (i < node_record_count); i++)
		FREE_NULL_BITMAP(steer->exc_cores[i]);
	xfree(steer->exc_cores);
	xfree(steer);
}
#endif
