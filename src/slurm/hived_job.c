/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_job.c - translating between Slurm job records and engine requests.
 */
#include "src/common/slurm_xlator.h"

#include <stdio.h>
#include <stdlib.h>

#include "src/common/bitstring.h"
#include "slurm_gen.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "ctld_symbols.h"
#include "core_steer.h"
#include "hived_ctld.h"
#include "hived_status.h"
#include "hived_job.h"
#include "mig_mps.h"

/* The longest cell type or pinned cell id hived_spank lets a user type. */
#define HIVED_SPANK_NAME_MAX 63

/* The job's single GRES request named `name`, or NULL (none, or several). */
static gres_job_state_t *_gres_state(list_t *gres_list, const char *name,
				     int *entries)
{
	list_itr_t *it;
	gres_state_t *gs;
	gres_job_state_t *found = NULL;

	*entries = 0;
	if (!gres_list)
		return NULL;
	it = list_iterator_create(gres_list);
	while ((gs = list_next(it))) {
		if (xstrcmp(gs->gres_name, name))
			continue;
		(*entries)++;
		found = gs->gres_data;
	}
	list_iterator_destroy(it);
	return (*entries == 1) ? found : NULL;
}

/*
 * The job's single gpu GRES request. Once select_nodes() has chosen the nodes
 * of a job that has them exclusively (before job_begin, while the job is still
 * pending), its request is every GPU of them until it ends (a requeue gives the
 * job its own back): untyped, and on 26.05 once more per type. The untyped
 * entry is then the job's, so every release records it alike (as whole nodes:
 * _gpu_shape).
 */
static gres_job_state_t *_gpu_state(job_record_t *job_ptr, int *entries)
{
	gres_job_state_t *found = _gres_state(job_ptr->gres_list_req, "gpu",
					      entries);
	gres_job_state_t *untyped_js = NULL, *whole_js = NULL;
	hived_engine *e = hived_ctld_engine();
	list_itr_t *it;
	gres_state_t *gs;
	int untyped = 0, whole = 0;

	if (found || (*entries < 2) || !HIVED_WHOLE_NODE(job_ptr->details))
		return found;
	it = list_iterator_create(job_ptr->gres_list_req);
	while ((gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;

		if (xstrcmp(gs->gres_name, "gpu") || !js)
			continue;
		if (!js->type_name) {
			untyped++;
			untyped_js = js;
		} else if (!hived_is_mig_profile(e, js->type_name)) {
			whole++;
			whole_js = js;
		}
	}
	list_iterator_destroy(it);
	if (untyped == 1)
		return untyped_js;
	/* Filed once per type (22.05, nodes with MIG slices): the whole GPUs'. */
	return (whole == 1) ? whole_js : NULL;
}

/*
 * --gres=shard:k: k of a GPU's shards on each node, one GPU each. A shard is
 * one smallest fraction of the engine's GPU cell (hived-topo derives one level
 * per halving down to one shard), so k shards ask for k fractions, which the
 * engine rounds up to the buddy cell holding them. Other shard shapes are
 * refused, not left to cons_tres: Slurm 22.05 would put them on GPUs HiveD gave
 * out whole (fixed in 23.11.5).
 */
static hived_job_kind_t _classify_shards(gres_job_state_t *shard, bool gpus,
					 hived_job_class_t *c, char **why)
{
	c->kind = HIVED_JOB_REFUSE;
	if (gpus) {
		*why = xstrdup("whole GPUs and shards in one job: ask for one or the other");
		return c->kind;
	}
	if (!shard) {
		*why = xstrdup("several shard GRES requests in one job: ask for one --gres=shard:k");
		return c->kind;
	}
	if (!shard->gres_per_node || (shard->gres_per_node > INT32_MAX)) {
		*why = xstrdup("shards per job, socket or task: HiveD places shards per node only (--gres=shard:k)");
		return c->kind;
	}
	c->gpu = shard;
	c->shards = true;
	c->members[0].pod_number = c->nodes;
	c->members[0].leaf_cell_number = 0;
	c->members[0].fraction_number = (int32_t) shard->gres_per_node;
	c->n_members = 1;
	return (c->kind = HIVED_JOB_ASK);
}

/* The type of the first of the job's gpu GRES requests that names a MIG profile. */
static const char *_mig_type(hived_engine *e, list_t *gres_list)
{
	list_itr_t *it;
	gres_state_t *gs;
	const char *found = NULL;

	if (!gres_list)
		return NULL;
	it = list_iterator_create(gres_list);
	while (!found && (gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;

		if (!xstrcmp(gs->gres_name, "gpu") && js &&
		    hived_is_mig_profile(e, js->type_name))
			found = js->type_name;
	}
	list_iterator_destroy(it);
	return found;
}

/*
 * --gres=gpu:<profile>:n (or --gpus=<profile>:n): n slices of that profile on
 * each node. Slices are leaf cells of their profile's chain, so the request is n
 * leaves of it. Other shapes are refused, not left to cons_tres, which would
 * hand out any slice of the profile, another VC's guaranteed one included.
 */
static hived_job_kind_t _classify_slices(gres_job_state_t *gpu,
					 hived_job_class_t *c, char **why)
{
	uint64_t n = gpu->gres_per_node;

	if (!n && gpu->gres_per_job && !(gpu->gres_per_job % c->nodes))
		n = gpu->gres_per_job / c->nodes;
	if (!n || (n > INT32_MAX)) {
		*why = xstrdup_printf("MIG slices of %s per socket or per task, or not evenly per node: HiveD places slices per node only (--gres=gpu:%s:n)",
				      gpu->type_name, gpu->type_name);
		return (c->kind = HIVED_JOB_REFUSE);
	}
	c->members[0].pod_number = c->nodes;
	c->members[0].leaf_cell_number = (int32_t) n;
	c->n_members = 1;
	return (c->kind = HIVED_JOB_ASK);
}

/*
 * Where MIG slices are cells, a GPU type HiveD has no cells of is refused:
 * placed as whole GPUs, the job would be steered to GPUs of another type, and
 * left to cons_tres it could take any slice.
 */
static bool _unknown_type(hived_engine *e, gres_job_state_t *gpu, char **why)
{
	char profiles[512];

	if (!gpu->type_name || hived_has_leaf_type(e, gpu->type_name) ||
	    !hived_mig_profiles(e, profiles, sizeof(profiles)))
		return false;
	*why = xstrdup_printf("GPU type %s is neither a GPU model nor a MIG profile HiveD has cells of (MIG profiles here: %s)",
			      gpu->type_name, profiles);
	return true;
}

/* The VC named like the account, ignoring case (Slurm lower-cases accounts). */
static const char *_vc_of(hived_engine *e, const char *account)
{
	size_t n = hived_vc_count(e);

	if (!account)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!xstrcasecmp(hived_vc_name(e, i), account))
			return hived_vc_name(e, i);
	return NULL;
}

static bool _opportunistic_qos(const hived_settings *s, const char *qos)
{
	if (!s || !qos)
		return false;
	for (size_t i = 0; i < s->n_opportunistic_qos; i++)
		if (!xstrcasecmp(s->opportunistic_qos[i], qos))
			return true;
	return false;
}

/*
 * The request select_nodes() swapped in for every GPU of an exclusive job's
 * nodes: 26.05 files it with no count per node, job, socket or task.
 */
static bool _swapped_whole_node(job_record_t *job_ptr, gres_job_state_t *gpu)
{
	return HIVED_WHOLE_NODE(job_ptr->details) && !gpu->gres_per_node &&
	       !gpu->gres_per_job && !gpu->gres_per_socket &&
	       !gpu->gres_per_task;
}

/*
 * The nodes of the job's partition (the one being tried when it names several),
 * and of -w when given: the nodes its whole nodes may be. NULL when that is every
 * node. xfree() it.
 */
static uint8_t *_usable_nodes(hived_engine *e, job_record_t *job_ptr)
{
	bitstr_t *part = job_ptr->part_ptr ? job_ptr->part_ptr->node_bitmap :
					     NULL;
	bitstr_t *req = job_ptr->details ? job_ptr->details->req_node_bitmap :
					   NULL;
	size_t n = hived_node_count(e);
	uint8_t *nodes;

	if ((!part && !req) || !n)
		return NULL;
	nodes = xcalloc(n, 1);
	for (size_t i = 0; i < n; i++) {
		int idx = hived_ctld_slurm_index(i);

		nodes[i] = (idx >= 0) && (!part || bit_test(part, idx)) &&
			   (!req || bit_test(req, idx));
	}
	return nodes;
}

/*
 * The gang of a whole-GPU job, as hived_gpu_shape_of derives it (hivedctl whatif
 * asks it the same). Slurm gives a job that has its nodes exclusively every GPU
 * of them (since 20.02), so its pods are whole node cells and its VC's quota
 * counts what it holds. Whole nodes are of the largest node it could be given
 * (hived_whole_node_leaves): in its partition, of its GPU model, in its VC's
 * chains when it is guaranteed (a VC owning 4-GPU nodes only is not asked for
 * 8, nor a job in a partition of 4-GPU nodes). Slurm 22.05 keeps
 * details->max_nodes 0 when no node count was given; -N n sets it to n, -N 1-3
 * to 3.
 */
static hived_job_kind_t _gpu_shape(job_record_t *job_ptr, gres_job_state_t *gpu,
				   bool whole_node, hived_job_class_t *c,
				   char **why)
{
	const hived_settings *s = hived_ctld_settings();
	hived_engine *e = hived_ctld_engine();
	hived_gpu_ask ask = {
		.nodes = (c->nodes > INT32_MAX) ? INT32_MAX : (int32_t) c->nodes,
		.gpus_per_node = (int64_t) MIN(gpu->gres_per_node, INT64_MAX),
		.gpus_per_job = (int64_t) MIN(gpu->gres_per_job, INT64_MAX),
		.whole_node = whole_node,
		.split_count_only = !s || s->split_count_only_jobs,
		.node_count = hived_node_count(e),
	};
	hived_gpu_shape shape;
	char err[256];
	uint32_t max = job_ptr->details ? job_ptr->details->max_nodes : 1;
	const char *type = (gpu->type_name &&
			    hived_has_leaf_type(e, gpu->type_name)) ?
			   gpu->type_name : NULL;
	uint8_t *nodes = NULL;

	/* Only whole-node pods and --gpus=N alone are sized by a node. */
	if (whole_node || (!ask.gpus_per_node && ask.gpus_per_job))
		nodes = _usable_nodes(e, job_ptr);
	ask.max_node_leaves = hived_whole_node_leaves(
		e, c->opportunistic ? NULL : c->vc, type, nodes);
	xfree(nodes);
	if (_swapped_whole_node(job_ptr, gpu))
		ask.gpus_per_node = 1;	/* whole nodes whatever the count */
	ask.max_nodes = (max > INT32_MAX) ? INT32_MAX : (int32_t) max;
	if (hived_gpu_shape_of(&ask, &shape, err, sizeof(err)) != HIVED_OK) {
		*why = xstrdup(err);
		return c->kind;
	}
	memcpy(c->members, shape.members, sizeof(c->members));
	c->n_members = shape.n_members;
	c->split_max_pods = shape.split_max_pods;
	c->whole_node_leaves = shape.whole_node_leaves;
	return HIVED_JOB_ASK;
}

/*
 * The socket cell type for --gres-flags=enforce-binding: the cells below the
 * node holding a socket's share of its GPUs (gres.conf gives each socket the
 * same number in the clusters HiveD models). NULL when the biggest pod does not
 * fit one socket: Slurm then binds it to several sockets, and so does HiveD.
 */
static const char *_socket_type(hived_engine *e, bitstr_t *bitmap,
				int32_t biggest_pod)
{
	size_t n = hived_node_count(e);

	for (size_t i = 0; i < n; i++) {
		int idx = hived_ctld_slurm_index(i);
		node_record_t *node_ptr;
		int32_t leaves = hived_node_leaf_count(e, i);

		if ((idx < 0) || (idx >= node_record_count) ||
		    (bitmap && !bit_test(bitmap, idx)) ||
		    !(node_ptr = node_record_table_ptr[idx]))
			continue;
		if ((node_ptr->tot_sockets < 2) || (leaves < 2) ||
		    (leaves % node_ptr->tot_sockets) ||
		    (biggest_pod > leaves / node_ptr->tot_sockets))
			return NULL;
		return hived_node_child_type(e, i,
					     leaves / node_ptr->tot_sockets);
	}
	return NULL;
}

/*
 * One of hived_spank's options from the job's SPANK environment, or NULL.
 * slurmctld stores what sbatch/salloc/srun set with spank_job_control_setenv()
 * as "SPANK_<NAME>=value".
 */
static const char *_spank_value(job_record_t *job_ptr, const char *name)
{
	size_t len = strlen(name);

	for (uint32_t i = 0; i < job_ptr->spank_job_env_size; i++) {
		const char *e = job_ptr->spank_job_env[i];

		if (!e)
			continue;
		if (!strncmp(e, "SPANK_", 6))
			e += 6;
		if (!strncmp(e, name, len) && (e[len] == '='))
			return e + len + 1;
	}
	return NULL;
}

static bool _spank_flag(job_record_t *job_ptr, const char *name)
{
	const char *v = _spank_value(job_ptr, name);

	return v && v[0] && xstrcmp(v, "0");
}

/*
 * The SPANK environment is whatever the submitting client sent: sbatch with
 * hived_spank checks these values, but a user's own client (libslurm, or a
 * slurm.conf copy with another plugstack.conf) can send any bytes. Accept only
 * what hived_spank itself would pass, so a crafted value never reaches the
 * engine, the SystemComment or hived_status.json.
 */
static bool _spank_name_ok(const char *v, const char *punct)
{
	size_t len = strlen(v);

	if (!len || (len > HIVED_SPANK_NAME_MAX))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = v[i];

		if (!((c >= 'a') && (c <= 'z')) &&
		    !((c >= 'A') && (c <= 'Z')) &&
		    !((c >= '0') && (c <= '9')) && !strchr(punct, c))
			return false;
	}
	return true;
}

/*
 * --hived-within / --hived-pinned only narrow where the job may run, so their
 * values are the user's to choose; the engine still checks them (a pinned cell
 * must be one of the job's own VC). --hived-opportunistic can only lower the
 * class; nothing here raises it. RET true (refuse the job, *why set) for a
 * value hived_spank would not have sent.
 */
static bool _apply_spank(job_record_t *job_ptr, hived_job_ask_t *ask,
			 char **why)
{
	const char *within = _spank_value(job_ptr, "HIVED_WITHIN");
	const char *pinned = _spank_value(job_ptr, "HIVED_PINNED");
	bool lazy = _spank_flag(job_ptr, "HIVED_LAZY_PREEMPT");
	bool opp = _spank_flag(job_ptr, "HIVED_OPPORTUNISTIC");
	const char *bad = NULL;

	if (within && within[0] && !_spank_name_ok(within, "_-"))
		bad = "within";
	else if (pinned && pinned[0] && !_spank_name_ok(pinned, "._:/-"))
		bad = "pinned";
	if (bad) {
		/* The value itself is not echoed: it may hold anything. */
		*why = xstrdup_printf("--hived-%s: the value sent with the job is not one sbatch accepts (at most %d letters, digits and the punctuation of hived.conf names); job refused",
				      bad, HIVED_SPANK_NAME_MAX);
		return true;
	}
	if (within && within[0]) {
		xfree(ask->within_type);
		ask->within_type = xstrdup(within);
		ask->req.within_cell_type = ask->within_type;
		xstrfmtcat(ask->asked, "%swithin=%s", ask->asked ? " " : "",
			   within);
	}
	if (pinned && pinned[0]) {
		ask->pinned_id = xstrdup(pinned);
		ask->req.pinned_cell_id = ask->pinned_id;
		xstrfmtcat(ask->asked, "%spinned=%s", ask->asked ? " " : "",
			   pinned);
	}
	if (lazy) {
		ask->req.lazy_preemption = 1;
		xstrfmtcat(ask->asked, "%slazy", ask->asked ? " " : "");
	}
	if (opp)	/* the class is hived_job_classify()'s */
		xstrfmtcat(ask->asked, "%sopportunistic",
			   ask->asked ? " " : "");
	return false;
}

/*
 * A request the engine refuses outright (unknown cell type, a pinned cell of
 * another VC, pinned + opportunistic) must not fall back to cons_tres: that
 * would drop the user's restriction. RET true with *why set.
 */
static bool _spank_refused(hived_engine *e, hived_job_ask_t *ask, char **why)
{
	const hived_decision *d = NULL;
	hived_rc rc;

	if (!ask->req.within_cell_type && !ask->req.pinned_cell_id)
		return false;
	rc = hived_submit(e, &ask->req, 1, &d);
	if ((rc != HIVED_EINVAL) && (rc != HIVED_ENOENT))
		return false;
	*why = xstrdup_printf("asked %s: %s", ask->asked ? ask->asked : "",
			      hived_last_error(e));
	return true;
}

extern hived_job_kind_t hived_job_classify(job_record_t *job_ptr,
					   hived_job_class_t *c, char **why)
{
	hived_engine *e = hived_ctld_engine();
	const hived_settings *s = hived_ctld_settings();
	const char *qos_name = job_ptr->qos_ptr ? job_ptr->qos_ptr->name : NULL;
	gres_job_state_t *gpu, *shard;
	int entries = 0, shard_entries = 0, mps_entries = 0;

	memset(c, 0, sizeof(*c));
	/*
	 * MPS shares are no cells: cons_tres would put them on any GPU, one
	 * HiveD gave another VC's job whole included (doc/sharing.md, "MPS").
	 */
	(void) _gres_state(job_ptr->gres_list_req, "mps", &mps_entries);
	if (mps_entries) {
		*why = xstrdup("gres/mps: HiveD gives no MPS shares (they are not cells, and cons_tres could put them on another VC's GPU): ask for --gres=shard:k, or for whole GPUs and run MPS inside them");
		return (c->kind = HIVED_JOB_REFUSE);
	}
	gpu = _gpu_state(job_ptr, &entries);
	shard = _gres_state(job_ptr->gres_list_req, "shard", &shard_entries);
	if (!entries && !shard_entries)
		return (c->kind = HIVED_JOB_NO_GPU);
	c->kind = HIVED_JOB_UNMANAGED;
	/* Before the shape: a guaranteed job's whole nodes are its VC's. */
	c->vc = _vc_of(e, job_ptr->account);
	c->opportunistic = !c->vc || _opportunistic_qos(s, qos_name) ||
			   _spank_flag(job_ptr, "HIVED_OPPORTUNISTIC");
	c->nodes = job_ptr->details ? job_ptr->details->min_nodes : 1;
	if (c->nodes < 1)
		c->nodes = 1;
	if (!shard_entries && !gpu) {
		const char *mig = _mig_type(e, job_ptr->gres_list_req);

		if (mig) {
			*why = xstrdup_printf("several GPU types in one job, MIG profile %s among them: ask for slices of one profile (--gres=gpu:%s:n)",
					      mig, mig);
			return (c->kind = HIVED_JOB_REFUSE);
		}
		*why = xstrdup("several gpu GRES requests in one job");
		return c->kind;
	}
	if (shard_entries) {
		if (_classify_shards(shard, entries, c, why) != HIVED_JOB_ASK)
			return c->kind;
	} else if (_unknown_type(e, gpu, why)) {
		return (c->kind = HIVED_JOB_REFUSE);
	} else if (hived_is_mig_profile(e, gpu->type_name)) {
		if (_classify_slices((c->gpu = gpu), c, why) != HIVED_JOB_ASK)
			return c->kind;
	} else if (!gpu->gres_per_node && !gpu->gres_per_job &&
		   !_swapped_whole_node(job_ptr, gpu)) {
		*why = xstrdup("GPUs per socket or per task are placed by cons_tres");
		return c->kind;
	} else if (_gpu_shape(job_ptr, (c->gpu = gpu),
			      HIVED_WHOLE_NODE(job_ptr->details), c, why) !=
		   HIVED_JOB_ASK) {
		return c->kind;
	}
	for (size_t m = 0; m < c->n_members; m++)
		c->gpus += (int64_t) c->members[m].pod_number *
			   c->members[m].leaf_cell_number;

	if (!c->vc && s && s->accounts_without_cells_reject) {
		*why = xstrdup_printf("account %s has no HiveD cells and hived.conf refuses such jobs",
				      job_ptr->account ? job_ptr->account : "(none)");
		return (c->kind = HIVED_JOB_REFUSE);
	}
	return (c->kind = HIVED_JOB_ASK);
}

/*
 * hived.conf "borrowIdleCells". A borrower keeps its QOS, so a guaranteed job
 * that needs its GPUs back can preempt it only if preempt/qos offers jobs of
 * the same QOS (PreemptMode WITHIN) and priority/hived ranks the borrower below
 * it (as opportunistic). Without both the owner would wait for the borrower to
 * end: its VC's guarantee broken. So borrowing is on only with both.
 */
extern bool hived_job_borrowing(const hived_settings *s)
{
	return s && s->borrow_idle_cells &&
	       !xstrcmp(slurm_conf.priority_type, "priority/hived") &&
	       !xstrcmp(slurm_conf.preempt_type, "preempt/qos") &&
	       (slurm_conf.preempt_mode & PREEMPT_MODE_WITHIN);
}

extern void hived_job_say_borrowing(const hived_settings *s)
{
	hived_status_set_borrowing(hived_job_borrowing(s));
	if (!s || !s->borrow_idle_cells)
		return;
	if (hived_job_borrowing(s)) {
		info("select/hived: borrowIdleCells: a guaranteed job whose VC has the free GPUs, but not in cells of its shape, may start on idle GPUs outside them; it runs as opportunistic and the first guaranteed job that needs them preempts it");
		return;
	}
	error("select/hived: hived.conf borrowIdleCells is set, but a borrower could not be preempted by the jobs whose GPUs it takes: it needs PriorityType=priority/hived (now %s), PreemptType=preempt/qos (now %s) and WITHIN in PreemptMode (%s); borrowing stays off",
	      slurm_conf.priority_type ? slurm_conf.priority_type : "none",
	      slurm_conf.preempt_type ? slurm_conf.preempt_type : "none",
	      (slurm_conf.preempt_mode & PREEMPT_MODE_WITHIN) ?
	      "set" : "not set");
}

extern hived_job_kind_t hived_job_build(job_record_t *job_ptr,
					bitstr_t *bitmap,
					hived_job_ask_t *ask, char **why)
{
	hived_engine *e = hived_ctld_engine();
	const hived_settings *s = hived_ctld_settings();
	hived_job_class_t c;
	gres_job_state_t *gpu;
	size_t n_nodes;

	memset(ask, 0, sizeof(*ask));
	if (hived_job_classify(job_ptr, &c, why) != HIVED_JOB_ASK) {
		if (c.vc)
			ask->vc = xstrdup(c.vc);
		return c.kind;
	}
	gpu = c.gpu;
	if (!c.shards && hived_is_mig_profile(e, gpu->type_name) &&
	    hived_mig_mps_refused(bitmap, gpu->type_name, why)) {
		if (c.vc)
			ask->vc = xstrdup(c.vc);
		return HIVED_JOB_REFUSE;
	}
	memcpy(ask->members, c.members, sizeof(ask->members));
	ask->req.n_members = c.n_members;
	ask->req.members = ask->members;
	ask->req.distinct_nodes = 1;
	ask->req.split_max_pods = c.split_max_pods;
	snprintf(ask->name, sizeof(ask->name), "%u", job_ptr->job_id);
	ask->req.job = ask->name;

	if (c.opportunistic) {
		ask->req.priority = HIVED_PRIORITY_OPPORTUNISTIC;
	} else {
		uint32_t p = job_ptr->qos_ptr ? job_ptr->qos_ptr->priority : 0;
		int scale = (s && s->priority_scale > 0) ? s->priority_scale : 1;

		p /= scale;
		ask->req.priority = (p > HIVED_PRIORITY_MAX) ?
				    HIVED_PRIORITY_MAX : (int32_t) p;
	}
	if (c.vc) {
		ask->vc = xstrdup(c.vc);
		ask->req.vc = ask->vc;
	}
	if ((ask->req.priority >= 0) && hived_job_borrowing(s))
		ask->req.borrow_idle_cells = 1;
	if (gpu->type_name && hived_has_leaf_type(e, gpu->type_name)) {
		ask->leaf_type = xstrdup(gpu->type_name);
		ask->req.leaf_cell_type = ask->leaf_type;
	}
	/* --switches=1: the whole job inside one cell above the node (a rack). */
	if (job_ptr->req_switch == 1 && c.nodes > 1 &&
	    hived_node_count(e) && hived_node_parent_type(e, 0)) {
		ask->within_type = xstrdup(hived_node_parent_type(e, 0));
		ask->req.within_cell_type = ask->within_type;
	}
	/* Slices have no socket cells: their chains go from slice to node. */
	if ((job_ptr->bit_flags & GRES_ENFORCE_BIND) && !c.shards &&
	    !hived_is_mig_profile(e, ask->leaf_type)) {
		int32_t biggest = 0;
		const char *t;

		for (size_t m = 0; m < ask->req.n_members; m++)
			if (ask->members[m].leaf_cell_number > biggest)
				biggest = ask->members[m].leaf_cell_number;
		if ((t = _socket_type(e, bitmap, biggest))) {
			ask->pod_within_type = xstrdup(t);
			ask->req.pod_within_cell_type = ask->pod_within_type;
		}
	}
	if (_apply_spank(job_ptr, ask, why))
		return HIVED_JOB_REFUSE;

	n_nodes = hived_node_count(e);
	ask->allowed = xcalloc(n_nodes ? n_nodes : 1, 1);
	ask->whole_node_leaves = c.whole_node_leaves;
	if (c.whole_node_leaves)
		ask->usable = xcalloc(n_nodes ? n_nodes : 1, 1);
	for (size_t i = 0; i < n_nodes; i++) {
		int idx = hived_ctld_slurm_index(i);
		if (idx < 0)
			continue;
		if (bitmap && !bit_test(bitmap, idx))
			continue;
		/* -w: the job must use these, so it may use only these. */
		if (job_ptr->details && job_ptr->details->req_node_bitmap &&
		    !bit_test(job_ptr->details->req_node_bitmap, idx))
			continue;
		if (ask->usable)
			ask->usable[i] = 1;
		/* A whole node of another size is not the pod it asks. */
		if (c.whole_node_leaves &&
		    !hived_is_node_cell_size(e, i, c.whole_node_leaves,
					     ask->req.leaf_cell_type))
			continue;
		ask->allowed[i] = 1;
	}
	if (!c.shards && hived_is_mig_profile(e, gpu->type_name))
		hived_mig_mps_disallow(ask->allowed, n_nodes);
	ask->req.allowed_nodes = ask->allowed;
	if (_spank_refused(e, ask, why))
		return HIVED_JOB_REFUSE;
	return HIVED_JOB_ASK;
}

extern void hived_job_ask_free(hived_job_ask_t *ask)
{
	xfree(ask->vc);
	xfree(ask->leaf_type);
	xfree(ask->within_type);
	xfree(ask->pod_within_type);
	xfree(ask->pinned_id);
	xfree(ask->asked);
	xfree(ask->allowed);
	xfree(ask->usable);
}

/*
 * A shard job gets its shards on the one GPU of each pod: the node's shard
 * bitmap has a bit per GPU (the GPU's index), the count is the job's shards per
 * node. Slurm counts shards, not which of a GPU's shards: the fraction slots
 * are the engine's alone.
 */
static int _select_shards(gres_job_state_t *js, int idx, const hived_pod *pod)
{
	bitstr_t *sel = js->gres_bit_select[idx];
	int32_t g = pod->leaves[0];

	if ((pod->n_leaves != 1) || (g < 0) || (g >= bit_size(sel)))
		return SLURM_ERROR;
	bit_clear_all(sel);
	bit_set(sel, g);
	js->gres_cnt_node_select[idx] = js->gres_per_node;
#if HIVED_SELECT_GEN != 2205
	/* 23.11+ counts a shared GRES per bit as well. */
	if (!js->gres_per_bit_select || !js->gres_per_bit_select[idx])
		return SLURM_ERROR;
	memset(js->gres_per_bit_select[idx], 0,
	       bit_size(sel) * sizeof(uint64_t));
	js->gres_per_bit_select[idx][g] = js->gres_per_node;
#endif
	return SLURM_SUCCESS;
}

/*
 * Whether Slurm files each of the pod's GPU indices under the job's GPU type.
 * HiveD numbers a node's GPUs and slices in gres.conf order; where Slurm's node
 * records disagree (Slurm 22.05 with gres/mps beside MIG slices, mig_mps.c),
 * cons_tres would count none of them for the job, which would start without
 * its GPUs. An index Slurm has no topology for is not judged.
 */
static bool _filed_as_asked(int idx, gres_job_state_t *js, const hived_pod *pod,
			    char **why)
{
	gres_node_state_t *ns;

	if (!js->type_name || !js->type_name[0] ||
	    !(ns = hived_gpu_topo(node_record_table_ptr[idx])) ||
	    !ns->topo_gres_bitmap || !ns->topo_type_id)
		return true;
	for (int32_t k = 0; k < pod->n_leaves; k++) {
		int32_t g = pod->leaves[k];
		const char *other = NULL;
		bool same = false;

		for (int t = 0; t < ns->topo_cnt; t++) {
			bitstr_t *gb = ns->topo_gres_bitmap[t];

			if (!gb || (g >= bit_size(gb)) || !bit_test(gb, g))
				continue;
			if (ns->topo_type_id[t] == js->type_id)
				same = true;
			else if (!other)
				other = ns->topo_type_name ?
					ns->topo_type_name[t] : NULL;
		}
		if (!same && other) {
			*why = xstrdup_printf("Slurm files GPU index %d of node %s as gpu:%s, not as the gpu:%s HiveD chose it for (gres/mps beside MIG slices on Slurm 22.05? doc/sharing.md, MPS); not started without its GPUs, it stays pending",
					      g, pod->node_name, other,
					      js->type_name);
			return false;
		}
	}
	return true;
}

extern bool hived_job_pod_whole_node(hived_engine *e, const hived_pod *pod)
{
	return (pod->node >= 0) && !pod->n_fractions &&
	       (pod->n_leaves == hived_node_leaf_count(e, pod->node));
}

/*
 * select_nodes() swaps a job that has its nodes exclusively onto a GRES request
 * of every GPU of them, with no indices selected, before job_begin, and Slurm
 * allocates each node's every GPU (and MIG slice) whatever is selected: HiveD's
 * choice if its pods are whole node cells, with nothing to set.
 */
static bool _whole_nodes_chosen(job_record_t *job_ptr, const hived_decision *d)
{
	hived_engine *e = hived_ctld_engine();

	if (!e || !HIVED_WHOLE_NODE(job_ptr->details) || !d->n_pods)
		return false;
	for (size_t p = 0; p < d->n_pods; p++)
		if ((d->pods[p].node < 0) || d->pods[p].n_fractions ||
		    !hived_is_node_cell_size(e, d->pods[p].node,
					     d->pods[p].n_leaves, NULL))
			return false;
	return true;
}

extern int hived_job_set_gres_select(job_record_t *job_ptr,
				     const hived_decision *d, char **why)
{
	int entries = 0;
	bool shards = d->n_pods && d->pods[0].n_fractions;
	gres_job_state_t *js = _gres_state(job_ptr->gres_list_req,
					   shards ? "shard" : "gpu", &entries);

	/* 26.05 files that request untyped and once per type: no one entry. */
	if (_whole_nodes_chosen(job_ptr, d))
		return SLURM_SUCCESS;
	if (!js || !js->gres_bit_select || !js->gres_cnt_node_select)
		return SLURM_ERROR;
	for (size_t p = 0; p < d->n_pods; p++) {
		int idx = hived_ctld_slurm_index(d->pods[p].node);
		bitstr_t *sel;

		if (idx < 0 || (uint32_t) idx >= js->total_node_cnt ||
		    !js->gres_bit_select[idx])
			return SLURM_ERROR;
		if (shards) {
			if (_select_shards(js, idx, &d->pods[p]) != SLURM_SUCCESS)
				return SLURM_ERROR;
			continue;
		}
		if (!_filed_as_asked(idx, js, &d->pods[p], why))
			return SLURM_ERROR;
		sel = js->gres_bit_select[idx];
		for (int32_t k = 0; k < d->pods[p].n_leaves; k++)
			if (d->pods[p].leaves[k] >= bit_size(sel))
				return SLURM_ERROR;
		bit_clear_all(sel);
		for (int32_t k = 0; k < d->pods[p].n_leaves; k++)
			bit_set(sel, d->pods[p].leaves[k]);
		js->gres_cnt_node_select[idx] = d->pods[p].n_leaves;
	}
	return SLURM_SUCCESS;
}

extern int hived_job_alloc_pods(job_record_t *job_ptr, hived_pod **pods,
				size_t *n_pods)
{
	list_itr_t *it;
	gres_state_t *gs;
	hived_pod *out;
	int32_t **gpus;
	int node_cnt, i_first, j;
	/*
	 * At slurmctld start (job_init) only job_resrcs is rebuilt yet; its bitmap
	 * orders the job's nodes the way gres_bit_alloc[] does.
	 */
	bitstr_t *nodes = job_ptr->node_bitmap;

	*pods = NULL;
	*n_pods = 0;
	if (!nodes && job_ptr->job_resrcs)
		nodes = job_ptr->job_resrcs->node_bitmap;
	if (!nodes || !job_ptr->gres_list_alloc)
		return SLURM_ERROR;
	node_cnt = bit_set_count(nodes);
	if (node_cnt <= 0)
		return SLURM_ERROR;
	out = xcalloc(node_cnt, sizeof(hived_pod));
	gpus = xcalloc(node_cnt, sizeof(int32_t *));
	i_first = bit_ffs(nodes);
	for (int i = i_first, k = 0; i >= 0 && k < node_cnt; i++) {
		if (!bit_test(nodes, i))
			continue;
		out[k].node = hived_ctld_engine_node(i);
		out[k].node_name = node_record_table_ptr[i]->name;
		k++;
	}
	it = list_iterator_create(job_ptr->gres_list_alloc);
	while ((gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;

		if (xstrcmp(gs->gres_name, "gpu") || !js->gres_bit_alloc)
			continue;
		for (j = 0; j < node_cnt && (uint32_t) j < js->node_cnt; j++) {
			bitstr_t *b = js->gres_bit_alloc[j];
			if (!b)
				continue;
			for (bitoff_t g = 0; g < bit_size(b); g++) {
				if (!bit_test(b, g))
					continue;
				xrecalloc(gpus[j], out[j].n_leaves + 1,
					  sizeof(int32_t));
				gpus[j][out[j].n_leaves++] = g;
			}
		}
	}
	list_iterator_destroy(it);
	/* Pods without GPUs (CPU-only nodes of the job) are not cells. */
	for (j = 0, *n_pods = 0; j < node_cnt; j++) {
		if (!out[j].n_leaves || out[j].node < 0) {
			xfree(gpus[j]);
			continue;
		}
		out[*n_pods] = out[j];
		out[*n_pods].leaves = gpus[j];
		(*n_pods)++;
	}
	xfree(gpus);
	if (!*n_pods) {
		xfree(out);
		return SLURM_ERROR;
	}
	*pods = out;
	return SLURM_SUCCESS;
}

extern void hived_job_pods_free(hived_pod *pods, size_t n_pods)
{
	for (size_t i = 0; i < n_pods; i++) {
		int32_t *l = (int32_t *) pods[i].leaves;
		xfree(l);
	}
	xfree(pods);
}

extern void hived_job_set_comment(job_record_t *job_ptr, const char *text)
{
	char *c = text ? xstrdup_printf("hived: %s", text) : NULL;

	if (!xstrcmp(c, job_ptr->system_comment)) {
		xfree(c);
		return;
	}
	xfree(job_ptr->system_comment);
	job_ptr->system_comment = c;
	if (&last_job_update)
		last_job_update = time(NULL);
}

/* A note after what the job's comment says already (its class may have changed). */
static void _comment_add(job_record_t *job_ptr, const char *note)
{
	const char *old = job_ptr->system_comment ? job_ptr->system_comment : "";
	char *text;

	if (!xstrncmp(old, "hived: ", 7))
		old += 7;
	text = xstrdup_printf("%s%s%s", old, old[0] ? "; " : "", note);
	hived_job_set_comment(job_ptr, text);
	xfree(text);
}

extern job_record_t *hived_job_waiting(uint32_t job_id)
{
	job_record_t *j = find_job_record ? find_job_record(job_id) : NULL;

	return (j && IS_JOB_PENDING(j) && j->priority) ? j : NULL;
}

extern bool hived_job_still_waits(uint32_t job_id)
{
	return hived_job_waiting(job_id) != NULL;
}

/* The engine's keep-predicate: the mark's job (an id as text) still waits. */
static int _still_waits(const char *job, void *arg)
{
	return hived_job_still_waits(strtoul(job, NULL, 10));
}

extern void hived_job_forget_stale_waits(hived_engine *e, int min_secs)
{
	static time_t last;
	time_t now = time(NULL);
	size_t n = 0;

	if (!e || !find_job_record || (last && (now - last < min_secs)))
		return;
	last = now;
	if (hived_forget_waiting(e, _still_waits, NULL, &n) != HIVED_OK)
		error("select/hived: dropping waiting marks: %s",
		      hived_last_error(e));
	else if (n)
		verbose("select/hived: %zu waiting job(s) no longer pending (cancelled, held or purged): no longer counted as waiting work",
			n);
}

extern void hived_job_say_promoted(hived_engine *e, const char *ended)
{
	size_t n = 0;
	char note[128];

	/* A cancelled job of higher priority must not hold promotions back. */
	hived_job_forget_stale_waits(e, 1);
	if (hived_promote(e, &n) != HIVED_OK) {
		error("select/hived: promoting demoted jobs after job %s ended: %s",
		      ended, hived_last_error(e));
		return;
	}
	snprintf(note, sizeof(note),
		 "guaranteed again in its VC's cells after job %s ended", ended);
	for (size_t i = 0; i < n; i++) {
		const char *name = hived_promoted_name(e, i);
		job_record_t *j = find_job_record ?
			find_job_record(strtoul(name, NULL, 10)) : NULL;

		info("select/hived: job %s is guaranteed again: job %s ended and its VC's cells now hold it where it runs, so no other VC's job can preempt it",
		     name, ended);
		if (j)
			_comment_add(j, note);
	}
	if (n)
		hived_status_count_promoted((int) n);
}

extern void hived_job_class_comment(job_record_t *job_ptr, const char *note)
{
	const char *old = job_ptr->system_comment ? job_ptr->system_comment : "";
	char *base, *cut, *text;

	if (!xstrncmp(old, "hived: ", 7))
		old += 7;
	base = xstrdup(old);
	/* Only the latest reload's word stands: an earlier one would contradict it. */
	if ((cut = strstr(base, "; reload: ")))
		*cut = '\0';
	else if (!xstrncmp(base, "reload: ", 8))
		base[0] = '\0';
	text = xstrdup_printf("%s%sreload: %s", base, base[0] ? "; " : "",
			      note);
	hived_job_set_comment(job_ptr, text);
	xfree(text);
	xfree(base);
}

/* "0-3,6" from ascending GPU indices. */
static void _ranges(char **s, const int32_t *l, int32_t n)
{
	for (int32_t k = 0; k < n; k++) {
		int32_t end = k;

		while ((end + 1 < n) && (l[end + 1] == l[end] + 1))
			end++;
		if (end > k)
			xstrfmtcat(*s, "%s%d-%d", k ? "," : "", l[k], l[end]);
		else
			xstrfmtcat(*s, "%s%d", k ? "," : "", l[k]);
		k = end;
	}
}

extern void hived_job_placed_comment(job_record_t *job_ptr,
				     const hived_job_ask_t *ask,
				     const hived_decision *d)
{
	char *text = NULL;

	if (ask->asked)
		xstrfmtcat(text, "asked %s; ", ask->asked);
	xstrcat(text, "given");
	for (size_t p = 0; p < d->n_pods; p++) {
		xstrfmtcat(text, " %s:", d->pods[p].node_name);
		_ranges(&text, d->pods[p].leaves, d->pods[p].n_leaves);
		if (d->pods[p].n_fractions) {
			xstrcat(text, " fractions ");
			_ranges(&text, d->pods[p].fractions,
				d->pods[p].n_fractions);
		}
	}
	xstrfmtcat(text, " (%s, %s%s)", ask->vc ? ask->vc : "no VC",
		   (ask->req.priority < 0) ? "opportunistic" : "guaranteed",
		   d->borrowed ? ", on idle GPUs outside its cells: preemptible" :
		   "");
	hived_job_set_comment(job_ptr, text);
	xfree(text);

	/* Victims that keep running say so, or their comment would lie. */
	for (size_t i = 0; find_job_record && (i < d->n_lazy_preempted); i++) {
		job_record_t *v = find_job_record(
			strtoul(d->lazy_preempted[i], NULL, 10));
		char note[64];

		if (!v)
			continue;
		snprintf(note, sizeof(note),
			 "lazy-preempted by job %u: now opportunistic",
			 job_ptr->job_id);
		_comment_add(v, note);
	}
}
