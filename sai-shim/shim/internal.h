/**
 * @file internal.h
 * @brief libalphad-sai's private handle and helpers shared by its sources
 *        (alphad_sai.c: open, discovery, errors; alpha.c: alpha and restore;
 *        stats.c: counters).
 */
#ifndef ALPHAD_SHIM_INTERNAL_H
#define ALPHAD_SHIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <sai.h>

#include "alphad/alphad_sai.h"

typedef sai_status_t (*api_initialize_fn)(uint64_t, const sai_service_method_table_t *);
typedef sai_status_t (*api_query_fn)(sai_api_t, void **);
typedef sai_status_t (*api_uninitialize_fn)(void);
typedef int (*vasic_advance_fn)(uint64_t);
typedef uint64_t (*vasic_now_fn)(void);
typedef const char *(*vasic_last_error_fn)(void);

/** A buffer profile as found at open. */
struct profile {
    sai_object_id_t oid;
    sai_object_id_t pool;
    uint64_t size;
    int32_t mode;
    int8_t dynamic_th;
};

struct queue {
    alphad_queue_info_t info;
    sai_object_id_t clone;     /**< profile created by the shim, or 0 */
    int32_t orig;              /**< index of the original profile in profiles, -1: none */
};

struct alphad_sai {
    void *lib;
    char *path;
    api_uninitialize_fn uninitialize;
    int initialized;
    sai_switch_api_t *sw_api;
    sai_port_api_t *port_api;
    sai_queue_api_t *queue_api;
    sai_buffer_api_t *buf_api;
    sai_object_id_t switch_id;
    /* service method table profile */
    uint32_t profile_id;
    char **keys, **values;
    size_t n_kv, kv_iter;
    /* topology */
    uint32_t n_ports;
    struct queue *q;
    uint32_t n_queues;
    struct profile *profiles;
    uint32_t n_profiles, cap_profiles;
    sai_object_id_t pool;
    uint64_t pool_size;
    /* orphans: clones whose removal failed, retried by restore */
    sai_object_id_t *orphans;
    uint32_t n_orphans, cap_orphans;
    /* optional model extensions */
    vasic_advance_fn vasic_advance;
    vasic_now_fn vasic_now_ns;
    vasic_last_error_fn vasic_last_error;
    char last_error[1024];
    /* counters the libsai supports (stats.c): ALPHAD_STAT_* bits */
    uint32_t queue_stats_ok, pool_stats_ok;
    sai_stat_id_t q_read_ids[5];   /* the supported READ counters, in one call */
    uint8_t q_read_field[5];       /* their ALPHAD_STAT_QUEUE_* bit positions */
    uint32_t n_q_read;
};

void set_error(alphad_sai_t *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "<call>(<object>) failed: <status>[: <libsai detail>]"; returns code */
alphad_status_t sai_fail(alphad_sai_t *h, alphad_status_t code, sai_status_t st, const char *call,
                         const char *objfmt, ...) __attribute__((format(printf, 5, 6)));
/* Which counters the libsai supports: sai_query_stats_capability, else one read of each. */
void probe_stats(alphad_sai_t *h);
/* "SAI_STATUS_X (n)" into buf */
const char *sai_status_name(sai_status_t st, char *buf, size_t len);
/* One attribute of one object; ALPHAD_E_SAI naming call, attribute and object on failure. */
alphad_status_t get_attr(alphad_sai_t *h, sai_status_t (*fn)(sai_object_id_t, uint32_t, sai_attribute_t *),
                         const char *call, const char *what, sai_object_id_t oid, sai_attribute_t *a);
/* The queue now uses profile @p oid (moved by someone else since open): its new original. */
alphad_status_t adopt_profile(alphad_sai_t *h, struct queue *q, sai_object_id_t oid);

#endif /* ALPHAD_SHIM_INTERNAL_H */
