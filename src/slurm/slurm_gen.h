/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm_gen.h - what differs between the Slurm releases select/hived builds for,
 * as far as the decision logic sees it: where the interface headers live, the list
 * types, the shape of job_test's exclusions. Everything else that differs (entry
 * points, forwarding table, plugin id, lifecycle) is in select_gen_*.c.
 *
 * Generations of the select interface:
 *   2205  22.05            37 operations, exc_core_bitmap, loaded with every select_*.so
 *   2311  23.11 - 24.11    32 operations, resv_exc_t (+ will_run_data_t from 24.11)
 *   2505  25.05 and later  13-14 operations, only SelectType is loaded, id 109
 * Include after src/common/slurm_xlator.h.
 */
#ifndef HIVED_SLURM_GEN_H
#define HIVED_SLURM_GEN_H

#include <slurm/slurm_version.h>

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
#define HIVED_SELECT_GEN 2505
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
#define HIVED_SELECT_GEN 2311
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 5, 0) && \
	SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
#define HIVED_SELECT_GEN 2205
#else
#error "select/hived supports Slurm 22.05 and 23.11 or later"
#endif

#include "src/common/list.h"
#include "src/slurmctld/slurmctld.h"

/* The interface headers moved from src/common to src/interfaces in 23.02. */
#if HIVED_SELECT_GEN == 2205
#include "src/common/gres.h"
#include "src/common/select.h"
#include "src/common/slurm_priority.h"
/* 24.05 removed List/ListIterator; the newer names work for every release. */
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#else
#include "src/interfaces/gres.h"
#include "src/interfaces/priority.h"
#include "src/interfaces/select.h"
#endif

/*
 * What a reservation keeps from job_test: a cluster-wide core bitmap in 22.05,
 * a resv_exc_t with one core bitmap per node (exc_cores[]) from 23.11.
 */
#if HIVED_SELECT_GEN == 2205
typedef bitstr_t hived_exc_t;
#else
typedef resv_exc_t hived_exc_t;
#endif

/*
 * The backfill window of a WILL_RUN (24.11+); nothing before. HIVED_WILL_RUN_END:
 * the window's end, after which cons_tres ends no running job (0: none given).
 */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
typedef will_run_data_t hived_will_run_t;
#define HIVED_WILL_RUN_END(w) ((w) ? (w)->end : (time_t) 0)
#else
typedef void hived_will_run_t;
#define HIVED_WILL_RUN_END(w) ((void) (w), (time_t) 0)
#endif

/*
 * A job Slurm gives every GRES of its nodes (--exclusive, --core-spec, or a
 * partition's OverSubscribe=EXCLUSIVE, which slurmctld sets before job_test):
 * whole_node is a value up to 23.11 (1 required, 3 MCS), flags from 24.11.
 */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
#define HIVED_WHOLE_NODE(d) ((d) && ((d)->whole_node & WHOLE_NODE_REQUIRED))
#else
#define HIVED_WHOLE_NODE(d) ((d) && ((d)->whole_node == WHOLE_NODE_REQUIRED))
#endif

/* 26.05 added select_p_job_mem_reduce (select_ops.h). */
#define HIVED_JOB_MEM_REDUCE \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0))

/* The Slurm release the plugin was built for, e.g. "24.11.5". */
#define HIVED_SLURM_VERSION_STRING SLURM_VERSION_STRING

#endif
