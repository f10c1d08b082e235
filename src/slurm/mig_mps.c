/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mig_mps.c - nodes with MIG slices and gres/mps side by side, on Slurm 22.05.
 *
 * There gres/mps support splits every gres.conf gpu line into one record per
 * device file, a MIG slice's MultipleFiles= list included (23.11 keeps such a
 * record whole): slurmctld then books the node's slices under the wrong types,
 * and a slice job set to the indices HiveD chose starts with none of them
 * ("GRES=gpu:a100_2g.10gb:0(IDX:)"). select/hived cannot steer around Slurm's
 * node records, so it places no slice job on such a node, and says so.
 */
#include "src/common/slurm_xlator.h"

#include "slurm_gen.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/xstring.h"

#include "hived_ctld.h"
#include "mig_mps.h"

#if HIVED_SELECT_GEN == 2205
/* The first of the node's gpu GRES types that is a MIG profile. */
static const char *_mig_type(hived_engine *e, gres_node_state_t *ns)
{
	for (int j = 0; ns && ns->type_name && (j < ns->type_cnt); j++)
		if (hived_is_mig_profile(e, ns->type_name[j]))
			return ns->type_name[j];
	return NULL;
}

/* One of the node's MIG profiles (NULL: none); *mps: it has gres/mps too. */
static const char *_node_mig_type(hived_engine *e, node_record_t *node_ptr,
				  bool *mps)
{
	list_itr_t *it;
	gres_state_t *gs;
	const char *mig = NULL;

	*mps = false;
	if (!node_ptr || !node_ptr->gres_list)
		return NULL;
	it = list_iterator_create(node_ptr->gres_list);
	while ((gs = list_next(it))) {
		gres_node_state_t *ns = gs->gres_data;

		if (!xstrcmp(gs->gres_name, "mps"))
			*mps = *mps || (ns && (ns->gres_cnt_config > 0));
		else if (!xstrcmp(gs->gres_name, "gpu") && !mig)
			mig = _mig_type(e, ns);
	}
	list_iterator_destroy(it);
	return mig;
}

/*
 * Kept per Slurm node index when the node sync notes a node (at load, on
 * reconfigure, and when its state or slurmd start time changes, which a
 * gres.conf change needs), so a job's test reads bits instead of walking every
 * node's GRES list.
 */
static bitstr_t *mig_nodes = NULL;	/* has MIG slices */
static bitstr_t *mps_mig_nodes = NULL;	/* has MIG slices and gres/mps */

extern void hived_mig_mps_forget(void)
{
	FREE_NULL_BITMAP(mig_nodes);
	FREE_NULL_BITMAP(mps_mig_nodes);
}

static bool _known(int idx)
{
	return mig_nodes && (idx >= 0) && (idx < bit_size(mig_nodes));
}

extern void hived_mig_mps_note(node_record_t *node_ptr)
{
	hived_engine *e = hived_ctld_engine();
	const char *mig;
	bool mps, said;

	if (!e || !node_ptr || (node_ptr->index < 0) ||
	    (node_ptr->index >= node_record_count))
		return;
	if (mig_nodes && (bit_size(mig_nodes) != node_record_count))
		hived_mig_mps_forget();
	if (!mig_nodes) {
		mig_nodes = bit_alloc(node_record_count);
		mps_mig_nodes = bit_alloc(node_record_count);
	}
	said = bit_test(mps_mig_nodes, node_ptr->index);
	bit_clear(mig_nodes, node_ptr->index);
	bit_clear(mps_mig_nodes, node_ptr->index);
	if (!(mig = _node_mig_type(e, node_ptr, &mps)))
		return;
	bit_set(mig_nodes, node_ptr->index);
	if (!mps)
		return;
	bit_set(mps_mig_nodes, node_ptr->index);
	if (!said)
		error("select/hived: node %s has gres/mps beside MIG slices (gpu:%s): Slurm 22.05 books such slices under the wrong types, so select/hived places no MIG-slice job on it; remove gres/mps from the node (doc/sharing.md, MPS)",
		      node_ptr->name, mig);
}

extern bool hived_mig_mps_refused(bitstr_t *bitmap, const char *type,
				  char **why)
{
	const char *blocked = NULL;

	for (int i = 0; _known(i) && (i < node_record_count); i++) {
		if (!bit_test(mig_nodes, i) || (bitmap && !bit_test(bitmap, i)))
			continue;
		if (!bit_test(mps_mig_nodes, i))
			return false;	/* a node whose slices Slurm books right */
		if (!blocked && node_record_table_ptr[i])
			blocked = node_record_table_ptr[i]->name;
	}
	if (!blocked)
		return false;
	*why = xstrdup_printf("gres/mps beside MIG slices (node %s): Slurm 22.05 would start this gpu:%s job without the slices HiveD chose; remove gres/mps from nodes with MIG slices (doc/sharing.md, MPS)",
			      blocked, type);
	return true;
}

extern void hived_mig_mps_disallow(uint8_t *allowed, size_t n_nodes)
{
	for (size_t i = 0; i < n_nodes; i++) {
		int idx = hived_ctld_slurm_index(i);

		if (allowed[i] && _known(idx) && bit_test(mps_mig_nodes, idx))
			allowed[i] = 0;
	}
}
#else
extern void hived_mig_mps_disallow(uint8_t *allowed, size_t n_nodes)
{
	(void) allowed;
	(void) n_nodes;
}

extern void hived_mig_mps_forget(void)
{
}

extern void hived_mig_mps_note(node_record_t *node_ptr)
{
	(void) node_ptr;
}

extern bool hived_mig_mps_refused(bitstr_t *bitmap, const char *type,
				  char **why)
{
	(void) bitmap;
	(void) type;
	(void) why;
	return false;
}
#endif
