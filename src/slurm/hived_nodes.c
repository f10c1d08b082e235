/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_nodes.c - engine nodes and Slurm's node table: the index maps both
 * ways, and node health (DOWN, DRAIN, FAIL, missing GPUs) given to the engine.
 */
#include "src/common/slurm_xlator.h"

#include <time.h>

#include "slurm_gen.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "ctld_symbols.h"
#include "hived_ctld.h"
#include "hived_status.h"
#include "mig_mps.h"

static int *to_slurm = NULL;		/* engine node -> Slurm node index */
static int32_t *to_engine = NULL;	/* Slurm node index -> engine node */
static int to_engine_len = 0;
static uint8_t *node_bad = NULL;	/* last health given to the engine */

/*
 * What a node looked like when its health was last worked out. Slurm moves
 * last_node_update at every job start and end, so a sync runs after each; only
 * a node whose state or slurmd changed needs its GPUs counted again (slurmd
 * reports them when it registers, which a new start or boot time marks).
 */
typedef struct {
	bool known;
	uint32_t state;
	time_t boot_time;
	time_t slurmd_start_time;
} node_seen_t;
static node_seen_t *node_seen = NULL;
static time_t synced_node_update = 0;

extern void hived_ctld_map_nodes(void)
{
	hived_engine *engine = hived_ctld_engine();
	size_t n = hived_node_count(engine);
	int missing = 0;

	xfree(to_slurm);
	xfree(to_engine);
	xfree(node_bad);
	xfree(node_seen);
	hived_mig_mps_forget();
	to_slurm = xcalloc(n ? n : 1, sizeof(int));
	node_bad = xcalloc(n ? n : 1, sizeof(uint8_t));
	node_seen = xcalloc(n ? n : 1, sizeof(node_seen_t));
	to_engine_len = node_record_count;
	to_engine = xcalloc(to_engine_len ? to_engine_len : 1,
			    sizeof(int32_t));
	for (int i = 0; i < to_engine_len; i++)
		to_engine[i] = -1;
	for (size_t i = 0; i < n; i++) {
		node_record_t *node_ptr =
			find_node_record((char *) hived_node_name(engine, i));
		to_slurm[i] = node_ptr ? node_ptr->index : -1;
		if (node_ptr)
			to_engine[node_ptr->index] = i;
		else
			missing++;
	}
	if (missing)
		error("select/hived: %d node(s) of hived.conf are not in slurm.conf; their cells stay bad",
		      missing);
	synced_node_update = 0;
}

extern void hived_ctld_nodes_free(void)
{
	xfree(to_slurm);
	xfree(to_engine);
	xfree(node_bad);
	xfree(node_seen);
	hived_mig_mps_forget();
	to_engine_len = 0;
}

extern int hived_ctld_slurm_index(int32_t engine_node)
{
	hived_engine *engine = hived_ctld_engine();

	if (!engine || engine_node < 0 ||
	    (size_t) engine_node >= hived_node_count(engine))
		return -1;
	return to_slurm[engine_node];
}

extern int32_t hived_ctld_engine_node(int slurm_index)
{
	if (!hived_ctld_engine() || slurm_index < 0 ||
	    slurm_index >= to_engine_len)
		return -1;
	return to_engine[slurm_index];
}

/*
 * GPUs the node's slurmd found, or -1 before it registered. A node that comes
 * back from a reboot with fewer GPUs than its cells is a bad cell, not a crash.
 */
static int64_t _gpus_found(node_record_t *node_ptr)
{
	list_itr_t *it;
	gres_state_t *gs;
	int64_t found = -1;

	if (!node_ptr->gres_list)
		return -1;
	it = list_iterator_create(node_ptr->gres_list);
	while ((gs = list_next(it))) {
		gres_node_state_t *ns = gs->gres_data;

		if (xstrcmp(gs->gres_name, "gpu") || !ns)
			continue;
		if (ns->gres_cnt_found == NO_VAL64)
			continue;
		found = (found < 0 ? 0 : found) + ns->gres_cnt_found;
	}
	list_iterator_destroy(it);
	return found;
}

extern void hived_ctld_sync_nodes(void)
{
	hived_engine *engine = hived_ctld_engine();
	size_t n;

	if (!engine || synced_node_update == last_node_update)
		return;
	/*
	 * last_node_update counts seconds: a node change later in this same
	 * second (a node returned to service right after another update) would
	 * leave it equal and go unseen, so stay stale until the second is over.
	 */
	synced_node_update = last_node_update;
	if (time(NULL) <= last_node_update)
		synced_node_update--;
	n = hived_node_count(engine);
	for (size_t i = 0; i < n; i++) {
		node_record_t *node_ptr = NULL;
		uint8_t bad;

		if (to_slurm[i] >= 0 && to_slurm[i] < node_record_count)
			node_ptr = node_record_table_ptr[to_slurm[i]];
		/* Short of GPUs (2): counted again until it has them all. */
		if (node_ptr && node_seen[i].known && (node_bad[i] != 2) &&
		    (node_seen[i].state == node_ptr->node_state) &&
		    (node_seen[i].boot_time == node_ptr->boot_time) &&
		    (node_seen[i].slurmd_start_time ==
		     node_ptr->slurmd_start_time))
			continue;
		if (node_ptr) {
			node_seen[i].known = true;
			node_seen[i].state = node_ptr->node_state;
			node_seen[i].boot_time = node_ptr->boot_time;
			node_seen[i].slurmd_start_time =
				node_ptr->slurmd_start_time;
			hived_mig_mps_note(node_ptr);
		}
		bad = !node_ptr || IS_NODE_DOWN(node_ptr) ||
		      IS_NODE_DRAIN(node_ptr) || IS_NODE_FAIL(node_ptr);
		if (!bad) {
			int64_t found = _gpus_found(node_ptr);

			if ((found >= 0) &&
			    (found < hived_node_leaf_count(engine, i))) {
				bad = 2;
				if (node_bad[i] != 2)
					error("select/hived: node %s reports %"PRId64" GPUs, its cells have %d: its cells are bad until it has them all",
					      node_ptr->name, found,
					      hived_node_leaf_count(engine, i));
			}
		}
		if (bad == node_bad[i])
			continue;
		node_bad[i] = bad;
		if (hived_set_node_health(engine, hived_node_name(engine, i),
					  !bad) != HIVED_OK) {
			node_bad[i] = 0;
			node_seen[i].known = false;	/* try again next sync */
			error("select/hived: node %s: %s",
			      hived_node_name(engine, i),
			      hived_last_error(engine));
			continue;
		}
		hived_status_dirty();
		info("select/hived: node %s is %s: its cells are %s",
		     hived_node_name(engine, i),
		     node_ptr ? node_state_string(node_ptr->node_state) :
		     "not in slurm.conf", bad ? "bad" : "healthy");
	}
}

extern bool hived_ctld_nodes_stale(void)
{
	/*
	 * Unlocked reads of two time_t: a torn or stale read only moves the
	 * sync by one tick of the status thread, and the sync itself rechecks
	 * under the locks.
	 */
	return synced_node_update != last_node_update;
}

/*
 * Without this a node that goes DOWN or DRAIN, or comes back, while no job is
 * pending reaches the engine, and hived_status.json, only at the next
 * scheduling decision. Lock order as in the hooks: slurmctld's, then ours.
 */
extern void hived_ctld_sync_nodes_unlocked(void)
{
	slurmctld_lock_t node_read = { .node = READ_LOCK };

	if (!lock_slurmctld || !unlock_slurmctld)
		return;
	lock_slurmctld(node_read);
	hived_ctld_lock();
	if (node_record_count > 0)
		hived_ctld_sync_nodes();
	hived_ctld_unlock();
	unlock_slurmctld(node_read);
}
