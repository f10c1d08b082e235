/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_ops.h - the one list of select/hived's operations, for every interface
 * generation: Slurm's node_select_syms minus "plugin_id", in its order (configure
 * checks it with scripts/slurm-ops-check). HIVED_OWN marks the operations a
 * select_gen_*.c forwards itself, HIVED_PASS those of select_pass.c; each gives
 * the symbol and the field of that file's table of cons_tres pointers.
 *
 * No include guard: include it inside an array initializer after defining one of
 *   HIVED_OPS_OWN_OF T   hived_fwd_op_t entries of the HIVED_OWN operations, into T
 *   HIVED_OPS_PASS_OF T  the same for the HIVED_PASS operations
 *   HIVED_OPS_NAMES      every symbol name
 * (undefined again at the end).
 */
#if defined(HIVED_OPS_OWN_OF)
#define HIVED_OWN(sym, field) { sym, offsetof(HIVED_OPS_OWN_OF, field) },
#define HIVED_PASS(sym, field)
#elif defined(HIVED_OPS_PASS_OF)
#define HIVED_OWN(sym, field)
#define HIVED_PASS(sym, field) { sym, offsetof(HIVED_OPS_PASS_OF, field) },
#elif defined(HIVED_OPS_NAMES)
#define HIVED_OWN(sym, field) sym,
#define HIVED_PASS(sym, field) sym,
#else
#error "define HIVED_OPS_OWN_OF, HIVED_OPS_PASS_OF or HIVED_OPS_NAMES before including select_ops.h"
#endif

#if HIVED_SELECT_GEN < 2505
HIVED_OWN("select_p_state_save", state_save)
HIVED_OWN("select_p_state_restore", state_restore)
HIVED_OWN("select_p_job_init", job_init)
#endif
HIVED_OWN("select_p_node_init", node_init)
HIVED_OWN("select_p_job_test", job_test)
HIVED_PASS("select_p_job_begin", job_begin)
HIVED_PASS("select_p_job_ready", job_ready)
HIVED_PASS("select_p_job_expand", job_expand)
HIVED_PASS("select_p_job_resized", job_resized)
#if HIVED_SELECT_GEN == 2205
HIVED_OWN("select_p_job_signal", job_signal)
#endif
#if HIVED_JOB_MEM_REDUCE
HIVED_OWN("select_p_job_mem_reduce", job_mem_reduce)
#endif
HIVED_PASS("select_p_job_fini", job_fini)
HIVED_PASS("select_p_job_suspend", job_suspend)
HIVED_PASS("select_p_job_resume", job_resume)
#if HIVED_SELECT_GEN < 2505
HIVED_PASS("select_p_step_pick_nodes", step_pick_nodes)
HIVED_PASS("select_p_step_start", step_start)
HIVED_PASS("select_p_step_finish", step_finish)
HIVED_PASS("select_p_select_nodeinfo_pack", nodeinfo_pack)
HIVED_PASS("select_p_select_nodeinfo_unpack", nodeinfo_unpack)
HIVED_PASS("select_p_select_nodeinfo_alloc", nodeinfo_alloc)
HIVED_PASS("select_p_select_nodeinfo_free", nodeinfo_free)
#endif
HIVED_PASS("select_p_select_nodeinfo_set_all", nodeinfo_set_all)
HIVED_PASS("select_p_select_nodeinfo_set", nodeinfo_set)
#if HIVED_SELECT_GEN < 2505
HIVED_PASS("select_p_select_nodeinfo_get", nodeinfo_get)
HIVED_PASS("select_p_select_jobinfo_alloc", jobinfo_alloc)
HIVED_PASS("select_p_select_jobinfo_free", jobinfo_free)
HIVED_PASS("select_p_select_jobinfo_set", jobinfo_set)
HIVED_PASS("select_p_select_jobinfo_get", jobinfo_get)
HIVED_PASS("select_p_select_jobinfo_copy", jobinfo_copy)
HIVED_PASS("select_p_select_jobinfo_pack", jobinfo_pack)
HIVED_PASS("select_p_select_jobinfo_unpack", jobinfo_unpack)
#endif
#if HIVED_SELECT_GEN == 2205
HIVED_OWN("select_p_select_jobinfo_sprint", jobinfo_sprint)
HIVED_OWN("select_p_select_jobinfo_xstrdup", jobinfo_xstrdup)
#endif
#if HIVED_SELECT_GEN < 2505
HIVED_PASS("select_p_get_info_from_plugin", get_info_from_plugin)
#endif
#if HIVED_SELECT_GEN == 2205
HIVED_OWN("select_p_update_node_config", update_node_config)
#endif
HIVED_PASS("select_p_reconfigure", reconfigure)
#if HIVED_SELECT_GEN == 2205
HIVED_OWN("select_p_resv_test", resv_test)
#endif

#undef HIVED_OWN
#undef HIVED_PASS
#undef HIVED_OPS_OWN_OF
#undef HIVED_OPS_PASS_OF
#undef HIVED_OPS_NAMES
