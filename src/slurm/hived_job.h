/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hived_job.h - a Slurm job in HiveD's terms: its VC (account), its class and
 * priority (QOS), its gang shape (-N / --gres=gpu:k / --gpus=n), the nodes it may
 * use, and the GPUs it holds.
 */
#ifndef HIVED_JOB_H
#define HIVED_JOB_H

#include "src/slurmctld/slurmctld.h"

#include "hived.h"
#include "slurm_gen.h"	/* gres_job_state_t's header, per release */

typedef enum {
	HIVED_JOB_NO_GPU,	/* not HiveD's business: cons_tres alone */
	HIVED_JOB_UNMANAGED,	/* GPUs in a shape HiveD does not model */
	HIVED_JOB_ASK,		/* ask the engine */
	HIVED_JOB_REFUSE	/* a shape HiveD must place but cannot (shards, MIG
				   slices), or an account without cells the site
				   refuses */
} hived_job_kind_t;

typedef struct {
	hived_job_request req;
	hived_member members[2];
	char name[24];
	char *vc;		/* engine's spelling of the VC name */
	char *leaf_type;
	char *within_type;
	char *pod_within_type;	/* --gres-flags=enforce-binding: a socket */
	char *pinned_id;
	char *asked;		/* the user's --hived-* options, for the comment */
	uint8_t *allowed;	/* hived_node_count() bytes */
	/* > 0: each pod is a whole node of this many GPUs, and usable holds
	 * the nodes the job may use whatever their size (allowed: of this
	 * size), for a smaller size where the largest cannot be had */
	int32_t whole_node_leaves;
	uint8_t *usable;
} hived_job_ask_t;

/*
 * The one classification of a job inside slurmctld: select/hived's decisions
 * (hived_job_build) and priority/hived's bands (hived_verdict.c) both come from
 * it, so the two plugins cannot disagree on a job's class.
 */
typedef struct {
	hived_job_kind_t kind;
	/* the job's single gpu (or shard) request (not NO_GPU) */
	gres_job_state_t *gpu;
	bool shards;		/* --gres=shard:k: members ask for fractions */
	uint32_t nodes;		/* -N, at least 1 */
	/* the gang: pods x GPUs, or pods x shards of one GPU (ASK, REFUSE) */
	hived_member members[2];
	size_t n_members;
	int64_t gpus;		/* all of them (ASK, REFUSE); 0 with shards */
	/* > 1: a GPU count without a node count, see hived_job_request */
	int32_t split_max_pods;
	/* > 0: each pod is a whole node of this many GPUs (it has its nodes
	 * exclusively), so it may use only nodes of that size */
	int32_t whole_node_leaves;
	const char *vc;		/* the engine's spelling; NULL: no cells */
	bool opportunistic;	/* ASK: by QOS, --hived-opportunistic or no VC */
} hived_job_class_t;

/*
 * Classify job_ptr against the engine and settings in force (caller holds
 * hived_ctld_lock(); there is an engine). On UNMANAGED and REFUSE *why says
 * why (xfree it). Values sent by SPANK that hived_spank would not send are
 * refused later, by hived_job_build.
 */
extern hived_job_kind_t hived_job_classify(job_record_t *job_ptr,
					   hived_job_class_t *c, char **why);

/*
 * Describe job_ptr for the engine. bitmap (may be NULL) holds the Slurm nodes the
 * job may use now. On HIVED_JOB_UNMANAGED/REFUSE *why says why (xfree it).
 */
extern hived_job_kind_t hived_job_build(job_record_t *job_ptr,
					bitstr_t *bitmap,
					hived_job_ask_t *ask, char **why);
extern void hived_job_ask_free(hived_job_ask_t *ask);

/* hived.conf "borrowIdleCells" is set and Slurm can preempt a borrower. */
extern bool hived_job_borrowing(const hived_settings *s);
/* One log line at each load: borrowing on, or why it stays off. */
extern void hived_job_say_borrowing(const hived_settings *s);

/* The pod takes every GPU of its node (a node claim; an exclusive job's pod). */
extern bool hived_job_pod_whole_node(hived_engine *e, const hived_pod *pod);

/*
 * Make cons_tres allocate exactly the GPUs the engine chose. SLURM_ERROR when it
 * cannot; *why (xfree it) when Slurm files a chosen index under another type.
 */
extern int hived_job_set_gres_select(job_record_t *job_ptr,
				     const hived_decision *d, char **why);

/* The GPUs a running job holds (from Slurm's record), as engine pods. */
extern int hived_job_alloc_pods(job_record_t *job_ptr, hived_pod **pods,
				size_t *n_pods);
extern void hived_job_pods_free(hived_pod *pods, size_t n_pods);

/*
 * The job's record if it still pends and is not held (priority 0); NULL once it
 * started, was cancelled, held or purged. Call with slurmctld's job lock held.
 */
extern job_record_t *hived_job_waiting(uint32_t job_id);
/* The same as a yes/no, for node claims and the engine's waiting marks. */
extern bool hived_job_still_waits(uint32_t job_id);

/*
 * Slurm calls no select hook when a pending job is cancelled, held or purged:
 * its waiting mark in the engine (which charges doomed cells to VCs without
 * waiting work first and holds promotions behind waiting jobs of higher
 * priority) would stay. Drops such marks, at most once per min_secs.
 * Call with slurmctld's job lock held.
 */
extern void hived_job_forget_stale_waits(hived_engine *e, int min_secs);

/*
 * After hived_finish(e, ended): hived_promote(), then each job it promoted (a
 * demoted one its VC's cells now hold where it runs) is logged, counted and says
 * so in its comment.
 */
extern void hived_job_say_promoted(hived_engine *e, const char *ended);
/* Shown in "scontrol show job" as SystemComment; NULL clears it. */
extern void hived_job_set_comment(job_record_t *job_ptr, const char *text);
/*
 * A reload changed the job's class: "reload: <note>" follows what placement
 * wrote, replacing the note of an earlier reload.
 */
extern void hived_job_class_comment(job_record_t *job_ptr, const char *note);

/*
 * The SystemComment of a placed job: what it asked with --hived-* and the cells
 * it was given, e.g. "hived: asked within=A100-RACK lazy; given node1:0-7
 * (vc1, guaranteed)"; jobs d lazy-preempted get "lazy-preempted by job N" added.
 */
extern void hived_job_placed_comment(job_record_t *job_ptr,
				     const hived_job_ask_t *ask,
				     const hived_decision *d);

#endif
