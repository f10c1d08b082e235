/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived.h - the C API of the HiveD engine (libhived).
 *
 * One opaque handle per cluster. Nothing here touches files, sockets or globals:
 * callers hand in JSON text and get values back. No call aborts; every failure is a
 * hived_rc plus a sentence that names the key or job involved: from
 * hived_last_error() for calls on an engine, in errbuf for calls that take one.
 * Codes may be added: treat one you do not know as an error (hived_rc_str names it).
 *
 * Memory: strings and arrays returned through `const` pointers belong to the engine
 * and stay valid until the next call that changes the engine (submit, finish, node,
 * reconfigure, add_running). Strings returned through `char **` are malloc()ed and
 * belong to the caller (free()).
 */
#ifndef HIVED_H
#define HIVED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hived_engine hived_engine;

typedef enum {
	HIVED_OK = 0,
	HIVED_EINVAL = 1,    /* a request field is wrong (the message names it) */
	HIVED_ECONFIG = 2,   /* a config is invalid; the old one (if any) stays */
	HIVED_ENOENT = 3,    /* unknown job, node, VC or cell type */
	HIVED_EEXIST = 4,    /* a job of that name already exists */
	HIVED_ENOMEM = 5,    /* out of memory (the message names the call) */
	HIVED_EINVARIANT = 6, /* hived_check_invariants found a violation */
	/* a bug in libhived (an unexpected exception or state), never the caller's
	 * input: the message names the call; report it. */
	HIVED_EINTERNAL = 7
} hived_rc;

#define HIVED_PRIORITY_OPPORTUNISTIC (-1)
#define HIVED_PRIORITY_MAX 1000

typedef struct {
	int32_t pod_number;       /* pods in this member */
	int32_t leaf_cell_number; /* GPUs per pod (0 with fraction_number) */
	/* > 0: instead of whole GPUs, this many of the smallest fractions of ONE GPU per
	 * pod (a chain with cell levels below isGpuLevel), rounded up to the buddy level
	 * that holds them (3 eighths take a half); every member of a job then asks for
	 * the same number. 0: whole GPUs. */
	int32_t fraction_number;
} hived_member;

typedef struct {
	const char *job;              /* unique name */
	const char *vc;               /* virtual cluster; may be NULL for opportunistic */
	int32_t priority;             /* -1 opportunistic, 0..1000 guaranteed */
	const char *leaf_cell_type;   /* NULL: any GPU model the VC has */
	const char *pinned_cell_id;   /* NULL: not pinned */
	const char *within_cell_type; /* NULL: none; all GPUs inside one cell of this type */
	/* NULL: none; each pod's GPUs inside one cell of this type (below the node) */
	const char *pod_within_cell_type;
	int lazy_preemption;          /* 1: demote instead of kill when preempted */
	int distinct_nodes;           /* 1: no two pods on one node (Slurm -N) */
	const hived_member *members;
	size_t n_members;
	/* NULL, or hived_node_count() bytes; 0 = the job must not use that node */
	const uint8_t *allowed_nodes;
	/* > 1: the job asked for a GPU count only (no node count). A guaranteed job whose
	 * shape cannot be bound now may then run as up to this many smaller pods on
	 * distinct nodes in its VC's free cells. 0 or 1: never split. */
	int32_t split_max_pods;
	/* 1 (guaranteed jobs): when its VC has the free GPUs but not in cells of its
	 * shape, the job may start on idle GPUs outside them, as opportunistic
	 * (lazy-preempted from its start; the decision says "borrowed"), instead of
	 * waiting. The first guaranteed job that needs those GPUs preempts it. */
	int borrow_idle_cells;
} hived_job_request;

typedef enum {
	HIVED_PLACED = 0,
	HIVED_WAITING = 1,  /* valid, but cannot be placed now */
	HIVED_REJECTED = 2  /* can never be placed as asked */
} hived_outcome;

typedef enum {
	HIVED_WAIT_NONE = 0,
	HIVED_WAIT_VC_QUOTA = 1, /* the VC's free cells cannot hold it now */
	HIVED_WAIT_NO_CELL = 2,  /* no free/healthy physical cells of that shape, or
				  * enough free GPUs but scattered */
	HIVED_WAIT_PRIORITY = 3, /* its pinned cell is held by equal/higher priority */
	/* the VC's cells can never hold it as they are; its quota may grow (sacctmgr) */
	HIVED_WAIT_VC_TOO_SMALL = 4
} hived_wait_kind;

typedef struct {
	int32_t node;           /* node index, 0..hived_node_count()-1 */
	const char *node_name;
	const int32_t *leaves;  /* GPU indices on that node, ascending */
	int32_t n_leaves;
	/* NULL/0: the pod holds the whole GPUs in `leaves`. Else it holds part of the one
	 * GPU in `leaves`: these fraction slots of it (0 .. fractions per GPU - 1,
	 * ascending), one aligned buddy cell (slots 0-1, 2-3, 0-3, ...). */
	const int32_t *fractions;
	int32_t n_fractions;
} hived_pod;

typedef struct {
	hived_outcome outcome;
	hived_wait_kind wait_kind;
	const char *reason;        /* why waiting/rejected; "" when placed */
	const hived_pod *pods;     /* one per pod, members in request order */
	size_t n_pods;
	const char *const *preempted;      /* victims to kill (whole jobs) */
	size_t n_preempted;
	const char *const *lazy_preempted; /* victims demoted to opportunistic */
	size_t n_lazy_preempted;
	/* 1: placed outside its VC's cells (borrow_idle_cells), running as opportunistic */
	int borrowed;
} hived_decision;

/* --- a job's shape from Slurm's GPU options ---------------------------- */

/*
 * What a job that asks for whole GPUs gives: sbatch -N, --gres=gpu:K or
 * --gpus-per-node=K, --gpus=N, --exclusive. select/hived (from a job record) and
 * hivedctl whatif (from options) both turn it into members with
 * hived_gpu_shape_of, so a what-if asks the shape slurmctld would.
 */
typedef struct {
	int32_t nodes;           /* -N (its lower bound); below 1 counts as 1 */
	int32_t max_nodes;       /* -N's upper bound; 0: no node count was given */
	int64_t gpus_per_node;   /* --gres=gpu:K / --gpus-per-node=K; 0: not given */
	int64_t gpus_per_job;    /* --gpus=N; read only when gpus_per_node is 0 */
	int whole_node;          /* 1: it has its nodes exclusively (--exclusive) */
	int split_count_only;    /* hived.conf "splitCountOnlyJobs" */
	size_t node_count;       /* nodes in the cluster (hived_node_count) */
	/* GPUs of the largest node it could be given (hived_whole_node_leaves) */
	int32_t max_node_leaves;
} hived_gpu_ask;

typedef struct {
	hived_member members[2];
	size_t n_members;
	int32_t split_max_pods; /* for hived_job_request.split_max_pods */
	/* > 0: each pod is a whole node of this many GPUs (whole_node); the job
	 * belongs on nodes of exactly that many (allowed_nodes) */
	int32_t whole_node_leaves;
} hived_gpu_shape;

/*
 * K GPUs on each of -N nodes; --gpus=N over -N > 1 nodes evenly; --gpus=N alone
 * on the fewest nodes (whole nodes of the largest node's GPUs, then the rest),
 * which with split_count_only the engine may split over up to -N's upper bound
 * (every node when none was given) pods. whole_node: Slurm gives the job every
 * GPU of its nodes, so each pod is a whole node of max_node_leaves GPUs, never
 * split (a pod larger than any node stays as asked). HIVED_EINVAL, errbuf naming
 * the option, when the counts make no shape (--gpus=5 over 2 nodes).
 */
hived_rc hived_gpu_shape_of(const hived_gpu_ask *ask, hived_gpu_shape *out,
			    char *errbuf, size_t errlen);

/* --- lifetime ---------------------------------------------------------- */

/* Build an engine from hived.conf JSON text. On failure *out is NULL and errbuf holds
 * the reason (naming the key path). */
hived_rc hived_engine_new(const char *config_json, hived_engine **out,
			  char *errbuf, size_t errlen);
/* Rebuild an engine exactly from hived_snapshot() output. */
hived_rc hived_engine_restore(const char *snapshot_json, hived_engine **out,
			      char *errbuf, size_t errlen);
/* A copy to try "what if" on; free it with hived_engine_free. */
hived_rc hived_engine_clone(const hived_engine *e, hived_engine **out);
void hived_engine_free(hived_engine *e);
const char *hived_last_error(const hived_engine *e);

/* --- jobs -------------------------------------------------------------- */

/* Decide and (unless dry_run) commit. Victims in the decision are released (killed)
 * or demoted (lazy) before the job is placed. With dry_run nothing changes. */
hived_rc hived_submit(hived_engine *e, const hived_job_request *req, int dry_run,
		      const hived_decision **out);
/* A running job's expected end (Unix seconds; 0 or less: unknown, it never ends). */
typedef struct {
	const char *job;
	int64_t end;
} hived_job_end;

/*
 * "What if this job were submitted now?", answered by hived_will_run's self-undoing
 * trials on e: e's state ends as it was (not safe beside other calls on e). req
 * as for hived_submit (req->job must not name a job the engine holds). ends: the
 * running jobs' expected end times, from which a job that waits gets a start
 * estimate the way backfill's WILL_RUN does (end jobs in that order until it fits).
 * *json (malloc()ed) on HIVED_OK:
 *   {"job","vc","class","priority","gpus","vcFreeGpus" (-1: no VC),
 *    "startsNow":bool,"outcome":"placed"|"waiting"|"rejected",
 *    "cause":"none"|"vcQuotaInUse"|"fragmented"|"noHealthyCell"|"higherPriority"|
 *            "nodesNotAllowed"|"largerThanVc"|"noIdleCell"|"noCell"|"rejected",
 *    "reason":text, ["doomedCells":n,]
 *    placed:  "placement":[{"node","leaves":[..]}],"preempts":[{"job","vc","class",
 *             "gpus","lazy"}]
 *    waiting: "estimate":{"start":unix|null, "afterJobs":[..],"placement","preempts"
 *             | "why":text}}
 * A request the engine refuses as malformed returns its hived_rc, and *json is
 * {"error":text} naming the field.
 */
hived_rc hived_whatif(const hived_engine *e, const hived_job_request *req,
		      const hived_job_end *ends, size_t n_ends, int64_t now,
		      char **json);
/*
 * Backfill's WILL_RUN: where and when could this job start? The running jobs in
 * `ends` (any order; ends of 0 or less and names the engine does not hold are
 * ignored) end tentatively, earliest end time first, all jobs of one end time
 * together, and after each end time the job is tried as hived_submit's dry run.
 * *out: the first decision that places it (or the last one, waiting or rejected);
 * *start: the end time after which it fits (0: it fits now, -1: it never fits with
 * these ends). Answered on e itself, not on a copy: every change is undone before
 * the call returns (hived_snapshot and the invariants are as before) and the job
 * leaves no waiting mark. Costs the released jobs' GPUs plus one decision per end
 * time tried, not O(cluster). req->job must not name a job the engine holds.
 */
hived_rc hived_will_run(hived_engine *e, const hived_job_request *req,
			const hived_job_end *ends, size_t n_ends, int64_t *start,
			const hived_decision **out);
/*
 * hived_will_run for a caller that keeps its list of ends between questions (backfill
 * asks about many jobs of one state). A nonzero ends_gen is the caller's number for
 * the list at `ends`: a later call with the same number and the same n_ends vouches
 * that the list is the same (its content, wherever it lies now), so a question asked
 * before of the same state is answered without reading it (O(1) instead of
 * O(n_ends)), and the order of its ends is kept for the next trial. A caller that
 * changes the list must give it a new number; one that builds an equal list again may
 * keep the number. 0 vouches for nothing (hived_will_run): nothing is kept, and every
 * question is a trial of its own. The engine never keeps the list itself.
 */
hived_rc hived_will_run_kept(hived_engine *e, const hived_job_request *req,
			     const hived_job_end *ends, size_t n_ends,
			     uint64_t ends_gen, int64_t *start,
			     const hived_decision **out);
/*
 * What the last hived_will_run or hived_will_run_kept on e did: the running jobs its
 * trial ended and put back, by class, and the dry runs of the job it asked. A
 * question's cost is mostly these; its answer never depends on them (hived-bench
 * reports them). All zero before the first question, or if e is NULL; a call
 * refused before it reaches the engine (a bad request) leaves them as they were.
 */
typedef struct hived_will_run_counts {
	int from_memo;			/* answered from an earlier question: no trial */
	int64_t ended_own;		/* the asking VC's guaranteed jobs */
	int64_t ended_guaranteed;	/* other VCs' guaranteed jobs */
	int64_t ended_opportunistic;	/* opportunistic jobs of any VC */
	int32_t decisions;
	/* 1: only the asking VC's own jobs were ended; the VC's guarantee gives the
	 * start time without the rest (a guaranteed job that may use every healthy node
	 * of its chains, no VC cell there doomed). Its placement may then differ from
	 * one after every end. */
	int by_guarantee;	/* also for a memo answer: its trial's */
} hived_will_run_counts;
void hived_will_run_last(const hived_engine *e, hived_will_run_counts *out);
/* Release a job's cells (it finished, was cancelled, or was preempted). */
hived_rc hived_finish(hived_engine *e, const char *job);
/* Call after hived_finish: demoted jobs (borrowers, lazy-preempted) whose VC's free
 * cells can now hold them where they run are bound there and guaranteed from now on,
 * oldest first, none past a waiting job of its VC with a higher priority.
 * *n_promoted (may be NULL) says how many; hived_promoted_name gives their names,
 * valid until the next call that changes e. hived_will_run does not foresee it. */
hived_rc hived_promote(hived_engine *e, size_t *n_promoted);
const char *hived_promoted_name(const hived_engine *e, size_t i);
/* Waiting marks (guaranteed jobs whose last decision was "wait": doomed cells are
 * charged to VCs without waiting work first, and no demoted job is promoted past a
 * waiting job of higher priority) stay until the job is placed, finished or recorded
 * running. A host that learns of no cancellation of a pending job drops the marks of
 * jobs keep(job, arg) says are no longer waiting; *n_forgotten (may be NULL) says how
 * many went. keep must not call back into e. */
typedef int (*hived_keep_waiting_f)(const char *job, void *arg);
hived_rc hived_forget_waiting(hived_engine *e, hived_keep_waiting_f keep, void *arg,
			      size_t *n_forgotten);
/* Record a job that already runs at a known placement (restart recovery). A guaranteed
 * job that no longer fits its VC is demoted to opportunistic (*demoted = 1). Pods
 * give node indices and GPU indices. GPUs the config does not have (node index out of
 * range, unknown GPU index) are left out and the job demoted: after HIVED_OK,
 * hived_last_error() then names what was left out ("" otherwise). Only a job none of
 * whose GPUs exist is refused (HIVED_ENOENT). */
hived_rc hived_add_running(hived_engine *e, const hived_job_request *req,
			   const hived_pod *pods, size_t n_pods, int *demoted);
int hived_job_exists(const hived_engine *e, const char *job);
/* 1 if the engine holds `job` on exactly these pods (GPU sets per node compared as
 * sets; pod order ignored). */
int hived_job_matches(const hived_engine *e, const char *job,
		      const hived_pod *pods, size_t n_pods);
/* Names of every job the engine holds; the array and strings stay valid until the
 * next call that changes the engine. */
size_t hived_job_list(hived_engine *e, const char *const **names);
/* The same for the jobs it holds as opportunistic (asked so, demoted by a reload or
 * lazy-preempted); valid until the next call that changes the engine or lists jobs. */
size_t hived_opportunistic_job_list(hived_engine *e, const char *const **names);

/* --- cluster ----------------------------------------------------------- */

size_t hived_node_count(const hived_engine *e);
const char *hived_node_name(const hived_engine *e, size_t node);
/* -1 if unknown */
int32_t hived_node_index(const hived_engine *e, const char *name);
hived_rc hived_set_node_health(hived_engine *e, const char *node, int healthy);

/* Load a new config keeping running jobs; jobs that no longer fit are demoted and
 * listed (malloc()ed JSON array text in *lazy_preempted_json, may be NULL). On error
 * the old config stays in force. The same rules as hived_reconfigure_ex with no flags
 * and no removable VCs. */
hived_rc hived_reconfigure(hived_engine *e, const char *config_json,
			   char **lazy_preempted_json);

/* Let a reconfiguration remove any VC, even one in which guaranteed jobs run. */
#define HIVED_RECONF_ALLOW_VC_REMOVAL 1u

/*
 * Load a new config keeping running jobs. A config that no longer has a VC in which
 * guaranteed jobs run is refused (HIVED_ECONFIG, the old config stays, the message
 * names the VCs and the jobs), unless flags has HIVED_RECONF_ALLOW_VC_REMOVAL or the
 * VC is in removable_vcs or in the config's own slurm.allowRemovingVcs. Otherwise:
 * jobs that no longer fit their VC are demoted; jobs an earlier config demoted that
 * fit again are promoted back to guaranteed; GPUs on nodes (or GPU indices) the new
 * config does not have are dropped from their jobs, which keep the rest, demoted.
 * *report_json (malloc()ed, may be NULL):
 * {"demoted":[job...],"promoted":[job...],"dropped":["<job>: <what was dropped>"...]};
 * a non-empty "dropped" is also in hived_last_error() after HIVED_OK.
 */
hived_rc hived_reconfigure_ex(hived_engine *e, const char *config_json,
			      unsigned flags, const char *const *removable_vcs,
			      size_t n_removable, char **report_json);

/* --- inspection -------------------------------------------------------- */

/* Status JSON of the cluster (vc == NULL) or of one VC. */
hived_rc hived_inspect(const hived_engine *e, const char *vc, char **json);
/* Status JSON of one job. */
hived_rc hived_inspect_job(const hived_engine *e, const char *job, char **json);
/* Every node with its cells above (racks ...) and, per GPU, its groups below the
 * node (socket, pair ...), the VC whose cell is bound to it, the job on it and its
 * class: what a cell map draws. In a chain with cell levels below the GPU
 * (isGpuLevel) there is one entry per smallest fraction, with "fraction": its slot. */
hived_rc hived_inspect_topology(const hived_engine *e, char **json);
hived_rc hived_snapshot(const hived_engine *e, char **json);
/* HIVED_OK, or HIVED_EINVARIANT with the violated invariant in errbuf. */
hived_rc hived_check_invariants(const hived_engine *e, char *errbuf, size_t errlen);
/* Bytes of engine state (cells, jobs, indexes). */
size_t hived_memory_bytes(const hived_engine *e);

const char *hived_rc_str(hived_rc rc);

/* --- cluster shape, for hosts mapping their own names ------------------- */

/* VCs in configuration order; names as written in hived.conf. */
size_t hived_vc_count(const hived_engine *e);
const char *hived_vc_name(const hived_engine *e, size_t vc);
/*
 * The quota counters behind "VC quota is in use": GPUs of the VC's non-pinned
 * cells no job holds (-1: unknown VC), and the GPUs of those cells a running
 * guaranteed job holds (0 for opportunistic, pinned or unknown jobs; *vc is then
 * NULL, else the job's VC, valid until the engine changes). O(1) each.
 */
int64_t hived_vc_free_leaves(const hived_engine *e, const char *vc);
int64_t hived_job_quota_leaves(const hived_engine *e, const char *job, const char **vc);
/* 1 if some chain's leaf cells are of this GPU model (case-sensitive). */
int hived_has_leaf_type(const hived_engine *e, const char *leaf_cell_type);
/* 1 if leaf_cell_type is a MIG profile whose slices are cells (childIsMigSlice). */
int hived_is_mig_profile(const hived_engine *e, const char *leaf_cell_type);
/* The MIG profiles with slice cells, ", "-separated in buf (truncated to len); how many. */
size_t hived_mig_profiles(const hived_engine *e, char *buf, size_t len);
/* GPUs of the node (all chains), 0 if unknown. */
int32_t hived_node_leaf_count(const hived_engine *e, size_t node);
/*
 * GPUs of a whole-node pod on the node (an exclusive job's): the node's cell in
 * a chain of GPU model leaf_cell_type (NULL: any, the largest; MIG slice chains
 * never); 0 if none. Slurm gives an exclusive job the node's other GPUs and MIG
 * slices as well; HiveD counts the pod's cell.
 */
int32_t hived_node_cell_leaves(const hived_engine *e, size_t node,
			       const char *leaf_cell_type);
/* 1 if `leaves` GPUs are one whole node cell of the node, in a chain of GPU model
 * leaf_cell_type (NULL: any; MIG slice chains never). */
int hived_is_node_cell_size(const hived_engine *e, size_t node, int32_t leaves,
			    const char *leaf_cell_type);
/*
 * The largest hived_node_cell_leaves() a job could be given: among chains of GPU
 * model leaf_cell_type (NULL: any; MIG slice chains never) and, with vc, the
 * chains the VC has cells in; with nodes (hived_node_count() bytes, 0 = the job
 * may not use it; NULL: every node), only nodes it may use. 0 if there is none
 * or the VC is unknown. O(chains), with nodes O(nodes).
 */
int32_t hived_largest_node_leaves(const hived_engine *e, const char *vc,
				  const char *leaf_cell_type, const uint8_t *nodes);
/*
 * The next smaller whole-node size for an exclusive job whose nodes of `below`
 * GPUs cannot be had now (a partition, or a VC, of two node sizes): as
 * hived_largest_node_leaves(e, vc, leaf_cell_type, nodes), over only the nodes
 * whose hived_node_cell_leaves(e, node, leaf_cell_type) is below `below`. Called
 * from the largest size down, each size comes once. With sized
 * (hived_node_count() bytes), written only when the answer is not 0: 1 for each
 * of those nodes with a node cell of that size, the nodes to allow the job at it.
 * 0 if there is no smaller size. O(chains) where no chain has a smaller node
 * (every node of one size), else O(nodes). select/hived and hivedctl whatif step
 * through sizes with it, so that both give the job the same node.
 */
int32_t hived_next_whole_node_leaves(const hived_engine *e, const char *vc,
				     const char *leaf_cell_type,
				     const uint8_t *nodes, int32_t below,
				     uint8_t *sized);
/*
 * The node size of a job's whole-node pods (hived_gpu_ask.max_node_leaves):
 * hived_largest_node_leaves(e, vc, leaf_cell_type, nodes); if that is 0, the
 * largest node of any chain among those nodes, then anywhere, so that the job
 * asks a shape the engine refuses with its reason (larger than its VC, no cell
 * of its type) rather than none. vc: a guaranteed job's VC, NULL for an
 * opportunistic one. select/hived passes the nodes of the job's partition (and
 * -w), so that an exclusive job in a partition of 4-GPU nodes asks 4-GPU pods.
 */
int32_t hived_whole_node_leaves(const hived_engine *e, const char *vc,
				const char *leaf_cell_type, const uint8_t *nodes);
/* The cell type one level above the node level in the node's chain (a rack),
 * or NULL if nodes are top-level cells. */
const char *hived_node_parent_type(const hived_engine *e, size_t node);
/* The cell type below the node level, in the node's chain, whose cells hold
 * exactly `leaves` GPUs (a socket of a node with 2 sockets), or NULL. */
const char *hived_node_child_type(const hived_engine *e, size_t node, int32_t leaves);
/* Chains in configuration order; a chain's name is its top cell type (the
 * "chain" of the status and topology). Leaf cells in one GPU of the chain: 1,
 * or in a chain with cell levels below isGpuLevel, its smallest fractions per
 * GPU (0 for an unknown chain). */
size_t hived_chain_count(const hived_engine *e);
const char *hived_chain_name(const hived_engine *e, size_t chain);
int64_t hived_chain_leaves_per_gpu(const hived_engine *e, size_t chain);

/* --- the config an engine is built from, as a Slurm site has it -------- */

typedef struct {
	const char *account; /* becomes the VC name */
	const char *grptres; /* sacctmgr GrpTRES text, e.g. "cpu=64,gres/gpu=16" */
} hived_account_quota;

/*
 * hived.conf text (may be empty: everything derived) + the text of slurm.conf,
 * gres.conf and topology.conf (gres/topology may be NULL) + accounts' GrpTRES →
 * the hived.conf JSON to build the engine from: cells hived.conf does not give are
 * derived from the Slurm files; accounts hived.conf gives no VC get cells from
 * their GPU limit. *summary: the derived hierarchy and every note, refused quota or
 * hived.conf warning ("warning: ..."), one per line, for the log. Both malloc()ed.
 * *refused (may be NULL): one sentence per account limit that could not be given
 * cells ("<account>: <why>"), *n_refused of them, as data for the caller's decisions
 * (free with hived_strings_free). On error errbuf names the file/key.
 */
hived_rc hived_effective_config(const char *hived_conf, const char *slurm_conf,
				const char *gres_conf, const char *topology_conf,
				const hived_account_quota *quotas, size_t n_quotas,
				char **config_json, char **summary,
				char ***refused, size_t *n_refused,
				char *errbuf, size_t errlen);
/* Frees an array of n malloc()ed strings and the array. */
void hived_strings_free(char **strings, size_t n);

/* Unknown top-level keys of hived.conf text that are ignored: one sentence per line in
 * *warnings (malloc()ed, "" when none). Misspelt section names are not warnings but
 * errors (HIVED_ECONFIG, errbuf names the key and the section meant). */
hived_rc hived_config_warnings(const char *config_json, char **warnings,
			       char *errbuf, size_t errlen);

/*
 * The names a user may type in job options, as hived.conf text spells them (the
 * whole text is validated as the engine reads it): the cell types in config order
 * and every pinnedCellId (physical cells and VCs, once each). Cells hived.conf
 * leaves to be derived from slurm.conf are not there (0 cell types). Free both
 * arrays with hived_strings_free. On error errbuf names the key and the reason.
 */
hived_rc hived_config_names(const char *config_json, char ***cell_types,
			    size_t *n_cell_types, char ***pinned_ids,
			    size_t *n_pinned_ids, char *errbuf, size_t errlen);

/* --- hived.conf settings only a host (the Slurm plugin) uses ------------ */

typedef struct {
	char **opportunistic_qos;     /* lower-case QOS names */
	size_t n_opportunistic_qos;
	int accounts_without_cells_reject; /* 0: run them opportunistically */
	int quota_from_sacctmgr;
	int check_invariants;
	int verbose_cell_trace;
	char *state_file;
	int priority_scale;           /* >= 1 */
	/* "jobsLargerThanVc": 1 refuses a HIVED_WAIT_VC_TOO_SMALL job, 0 lets it wait */
	int larger_than_vc_reject;
	/* "splitCountOnlyJobs": 1 sets split_max_pods on jobs that gave a GPU count only */
	int split_count_only_jobs;
	/* "borrowIdleCells": 1 sets borrow_idle_cells on guaranteed jobs */
	int borrow_idle_cells;
	char **allow_removing_vcs;    /* for hived_reconfigure_ex's removable_vcs */
	size_t n_allow_removing_vcs;
} hived_settings;

/* Parse the "slurm" section of hived.conf text (the whole file is validated). */
hived_rc hived_settings_load(const char *config_json, hived_settings **out,
			     char *errbuf, size_t errlen);
void hived_settings_free(hived_settings *s);

#ifdef __cplusplus
}
#endif
#endif /* HIVED_H */
