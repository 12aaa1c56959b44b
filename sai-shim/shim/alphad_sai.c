/**
 * @file alphad_sai.c
 * @brief libalphad-sai: the alphad daemon's stable C ABI over any libsai
 *        (include/alphad/alphad_sai.h).
 *
 * Opening: dlopen the libsai, serve the profile key/values through the SAI
 * service method table, create the switch (INIT_SWITCH=true), enumerate
 * ports -> egress queues (UNICAST or ALL) -> buffer profiles -> pool.
 * Per-queue alpha and restore: alpha.c; counters: stats.c.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sai.h>

#include "alphad/alphad_sai.h"
#include "internal.h"

/* ---------------------------------------------------------------- profile registry
 * SAI's profile callbacks carry only a profile id, so open handles are kept
 * in a small process-wide table indexed by that id. */

#define MAX_HANDLES 64
static pthread_mutex_t g_reg_mu = PTHREAD_MUTEX_INITIALIZER;
static alphad_sai_t *g_reg[MAX_HANDLES];

static int reg_add(alphad_sai_t *h)
{
    int id = -1;
    pthread_mutex_lock(&g_reg_mu);
    for (int i = 0; i < MAX_HANDLES; i++)
        if (!g_reg[i]) {
            g_reg[i] = h;
            id = i;
            break;
        }
    pthread_mutex_unlock(&g_reg_mu);
    return id;
}

static void reg_remove(alphad_sai_t *h)
{
    pthread_mutex_lock(&g_reg_mu);
    if (h->profile_id < MAX_HANDLES && g_reg[h->profile_id] == h)
        g_reg[h->profile_id] = NULL;
    pthread_mutex_unlock(&g_reg_mu);
}

static const char *svc_get_value(sai_switch_profile_id_t id, const char *variable)
{
    const char *v = NULL;
    if (!variable)
        return NULL;
    pthread_mutex_lock(&g_reg_mu);
    alphad_sai_t *h = id < MAX_HANDLES ? g_reg[id] : NULL;
    if (h)
        for (size_t i = 0; i < h->n_kv; i++)
            if (strcmp(h->keys[i], variable) == 0)
                v = h->values[i];
    pthread_mutex_unlock(&g_reg_mu);
    return v;
}

static int svc_get_next_value(sai_switch_profile_id_t id, const char **variable, const char **value)
{
    int rc = -1;
    pthread_mutex_lock(&g_reg_mu);
    alphad_sai_t *h = id < MAX_HANDLES ? g_reg[id] : NULL;
    /* value == NULL resets (the sonic-sairedis convention) and returns 0;
     * *variable == NULL restarts and returns the first pair (SAI's comment) */
    if (h && !value) {
        h->kv_iter = 0;
        rc = 0;
    } else if (h && variable) {
        if (!*variable)
            h->kv_iter = 0;
        if (h->kv_iter < h->n_kv) {
            *variable = h->keys[h->kv_iter];
            *value = h->values[h->kv_iter];
            h->kv_iter++;
            rc = 0;
        }
    }
    pthread_mutex_unlock(&g_reg_mu);
    return rc;
}

static const sai_service_method_table_t g_services = {svc_get_value, svc_get_next_value};

/* ---------------------------------------------------------------- errors */

const char *sai_status_name(sai_status_t st, char *buf, size_t len)
{
    static const struct {
        sai_status_t st;
        const char *name;
    } names[] = {
        {SAI_STATUS_SUCCESS, "SAI_STATUS_SUCCESS"},
        {SAI_STATUS_FAILURE, "SAI_STATUS_FAILURE"},
        {SAI_STATUS_NOT_SUPPORTED, "SAI_STATUS_NOT_SUPPORTED"},
        {SAI_STATUS_NO_MEMORY, "SAI_STATUS_NO_MEMORY"},
        {SAI_STATUS_INSUFFICIENT_RESOURCES, "SAI_STATUS_INSUFFICIENT_RESOURCES"},
        {SAI_STATUS_INVALID_PARAMETER, "SAI_STATUS_INVALID_PARAMETER"},
        {SAI_STATUS_ITEM_ALREADY_EXISTS, "SAI_STATUS_ITEM_ALREADY_EXISTS"},
        {SAI_STATUS_ITEM_NOT_FOUND, "SAI_STATUS_ITEM_NOT_FOUND"},
        {SAI_STATUS_BUFFER_OVERFLOW, "SAI_STATUS_BUFFER_OVERFLOW"},
        {SAI_STATUS_UNINITIALIZED, "SAI_STATUS_UNINITIALIZED"},
        {SAI_STATUS_TABLE_FULL, "SAI_STATUS_TABLE_FULL"},
        {SAI_STATUS_MANDATORY_ATTRIBUTE_MISSING, "SAI_STATUS_MANDATORY_ATTRIBUTE_MISSING"},
        {SAI_STATUS_NOT_IMPLEMENTED, "SAI_STATUS_NOT_IMPLEMENTED"},
        {SAI_STATUS_OBJECT_IN_USE, "SAI_STATUS_OBJECT_IN_USE"},
        {SAI_STATUS_INVALID_OBJECT_TYPE, "SAI_STATUS_INVALID_OBJECT_TYPE"},
        {SAI_STATUS_INVALID_OBJECT_ID, "SAI_STATUS_INVALID_OBJECT_ID"},
    };
    static const struct {
        sai_status_t base;
        const char *name;
    } ranges[] = {
        {SAI_STATUS_INVALID_ATTRIBUTE_0, "SAI_STATUS_INVALID_ATTRIBUTE"},
        {SAI_STATUS_INVALID_ATTR_VALUE_0, "SAI_STATUS_INVALID_ATTR_VALUE"},
        {SAI_STATUS_ATTR_NOT_IMPLEMENTED_0, "SAI_STATUS_ATTR_NOT_IMPLEMENTED"},
        {SAI_STATUS_UNKNOWN_ATTRIBUTE_0, "SAI_STATUS_UNKNOWN_ATTRIBUTE"},
        {SAI_STATUS_ATTR_NOT_SUPPORTED_0, "SAI_STATUS_ATTR_NOT_SUPPORTED"},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].st == st) {
            snprintf(buf, len, "%s (%d)", names[i].name, (int)st);
            return buf;
        }
    for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
        if (st <= ranges[i].base && st > ranges[i].base - 0x10000) {
            snprintf(buf, len, "%s_%d (%d)", ranges[i].name, (int)(ranges[i].base - st), (int)st);
            return buf;
        }
    snprintf(buf, len, "SAI status %d", (int)st);
    return buf;
}

void set_error(alphad_sai_t *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->last_error, sizeof(h->last_error), fmt, ap);
    va_end(ap);
}

alphad_status_t sai_fail(alphad_sai_t *h, alphad_status_t code, sai_status_t st, const char *call,
                         const char *objfmt, ...)
{
    char obj[160], sname[96];
    va_list ap;
    va_start(ap, objfmt);
    vsnprintf(obj, sizeof(obj), objfmt, ap);
    va_end(ap);
    const char *detail = h->vasic_last_error ? h->vasic_last_error() : NULL;
    snprintf(h->last_error, sizeof(h->last_error), "%s(%s) failed: %s%s%s", call, obj,
             sai_status_name(st, sname, sizeof(sname)), detail && *detail ? ": " : "",
             detail && *detail ? detail : "");
    return code;
}

ALPHAD_API uint32_t alphad_sai_abi_version(void)
{
    return ALPHAD_SAI_ABI_VERSION;
}

ALPHAD_API const char *alphad_strerror(alphad_status_t status)
{
    switch (status) {
    case ALPHAD_OK:
        return "success";
    case ALPHAD_E_INVALID_ARG:
        return "invalid argument";
    case ALPHAD_E_LOAD:
        return "the libsai could not be loaded";
    case ALPHAD_E_SYMBOL:
        return "the libsai lacks a required symbol";
    case ALPHAD_E_SAI:
        return "a SAI call failed";
    case ALPHAD_E_NOT_FOUND:
        return "no such queue or object";
    case ALPHAD_E_RANGE:
        return "log2 alpha out of range";
    case ALPHAD_E_NOMEM:
        return "out of memory";
    case ALPHAD_E_NOT_SUPPORTED:
        return "not supported";
    case ALPHAD_E_BUFFER_TOO_SMALL:
        return "buffer too small";
    case ALPHAD_E_STATE:
        return "invalid state";
    }
    return "unknown status";
}

ALPHAD_API const char *alphad_sai_last_error(const alphad_sai_t *h)
{
    return h ? h->last_error : "";
}

/* ---------------------------------------------------------------- open / close */

static void handle_free(alphad_sai_t *h)
{
    if (!h)
        return;
    reg_remove(h);
    for (size_t i = 0; i < h->n_kv; i++) {
        free(h->keys[i]);
        free(h->values[i]);
    }
    free(h->keys);
    free(h->values);
    free(h->q);
    free(h->profiles);
    free(h->orphans);
    free(h->path);
    free(h);
}

alphad_status_t get_attr(alphad_sai_t *h, sai_status_t (*fn)(sai_object_id_t, uint32_t, sai_attribute_t *),
                         const char *call, const char *what, sai_object_id_t oid, sai_attribute_t *a)
{
    sai_status_t st = fn(oid, 1, a);
    if (st != SAI_STATUS_SUCCESS)
        return sai_fail(h, ALPHAD_E_SAI, st, call, "%s of 0x%llx", what, (unsigned long long)oid);
    return ALPHAD_OK;
}

/* Read an object list attribute, growing the buffer as the libsai asks. */
static alphad_status_t get_list(alphad_sai_t *h, sai_status_t (*fn)(sai_object_id_t, uint32_t, sai_attribute_t *),
                                const char *call, const char *what, sai_object_id_t oid, sai_attr_id_t id,
                                uint32_t hint, sai_object_id_t **out, uint32_t *n)
{
    uint32_t cap = hint ? hint : 64;
    for (int tries = 0; tries < 4; tries++) {
        sai_object_id_t *list = calloc(cap, sizeof(*list));
        sai_attribute_t a;
        if (!list) {
            set_error(h, "out of memory");
            return ALPHAD_E_NOMEM;
        }
        memset(&a, 0, sizeof(a));
        a.id = id;
        a.value.objlist.count = cap;
        a.value.objlist.list = list;
        sai_status_t st = fn(oid, 1, &a);
        if (st == SAI_STATUS_BUFFER_OVERFLOW && a.value.objlist.count > cap) {
            cap = a.value.objlist.count;
            free(list);
            continue;
        }
        if (st != SAI_STATUS_SUCCESS) {
            free(list);
            return sai_fail(h, ALPHAD_E_SAI, st, call, "%s of 0x%llx", what, (unsigned long long)oid);
        }
        *out = list;
        *n = a.value.objlist.count;
        return ALPHAD_OK;
    }
    set_error(h, "%s(%s of 0x%llx): list size keeps changing", call, what, (unsigned long long)oid);
    return ALPHAD_E_SAI;
}

static int cmp_queue(const void *a, const void *b)
{
    const struct queue *x = a, *y = b;
    if (x->info.port_index != y->info.port_index)
        return x->info.port_index < y->info.port_index ? -1 : 1;
    if (x->info.queue_index != y->info.queue_index)
        return x->info.queue_index < y->info.queue_index ? -1 : 1;
    return 0;
}

static alphad_status_t read_profile(alphad_sai_t *h, struct profile *p)
{
    sai_get_buffer_profile_attribute_fn get = h->buf_api->get_buffer_profile_attribute;
    sai_attribute_t a;
    alphad_status_t rc;
    memset(&a, 0, sizeof(a));
    a.id = SAI_BUFFER_PROFILE_ATTR_POOL_ID;
    if ((rc = get_attr(h, get, "get_buffer_profile_attribute", "POOL_ID", p->oid, &a)))
        return rc;
    p->pool = a.value.oid;
    a.id = SAI_BUFFER_PROFILE_ATTR_BUFFER_SIZE;
    if ((rc = get_attr(h, get, "get_buffer_profile_attribute", "BUFFER_SIZE", p->oid, &a)))
        return rc;
    p->size = a.value.u64;
    a.id = SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE;
    if ((rc = get_attr(h, get, "get_buffer_profile_attribute", "THRESHOLD_MODE", p->oid, &a)))
        return rc;
    p->mode = a.value.s32;
    p->dynamic_th = 0;
    if (p->mode == SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC) {
        a.id = SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH;
        if ((rc = get_attr(h, get, "get_buffer_profile_attribute", "SHARED_DYNAMIC_TH", p->oid, &a)))
            return rc;
        p->dynamic_th = a.value.s8;
    }
    return ALPHAD_OK;
}

/* Index of profile @p oid in the table, reading it from the libsai if new; -1 for none. */
static alphad_status_t find_profile(alphad_sai_t *h, sai_object_id_t oid, int32_t *idx)
{
    alphad_status_t rc;
    *idx = -1;
    if (oid == SAI_NULL_OBJECT_ID)
        return ALPHAD_OK;
    for (uint32_t j = 0; j < h->n_profiles; j++)
        if (h->profiles[j].oid == oid) {
            *idx = (int32_t)j;
            return ALPHAD_OK;
        }
    if (h->n_profiles == h->cap_profiles) {
        uint32_t cap = h->cap_profiles ? h->cap_profiles * 2 : 8;
        struct profile *p = realloc(h->profiles, (size_t)cap * sizeof(*p));
        if (!p) {
            set_error(h, "out of memory");
            return ALPHAD_E_NOMEM;
        }
        h->profiles = p;
        h->cap_profiles = cap;
    }
    struct profile *p = &h->profiles[h->n_profiles];
    memset(p, 0, sizeof(*p));
    p->oid = oid;
    if ((rc = read_profile(h, p)))
        return rc;
    *idx = (int32_t)h->n_profiles++;
    return ALPHAD_OK;
}

/* Make @p oid the original profile of queue @p q (at open, or when the queue
 * was moved to another profile by someone else before its first change). */
alphad_status_t adopt_profile(alphad_sai_t *h, struct queue *q, sai_object_id_t oid)
{
    int32_t idx;
    alphad_status_t rc = find_profile(h, oid, &idx);
    if (rc)
        return rc;
    const struct profile *p = idx >= 0 ? &h->profiles[idx] : NULL;
    q->orig = idx;
    q->info.profile_oid = oid;
    q->info.dynamic = p && p->mode == SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC;
    q->info.log2_alpha = q->info.original_log2_alpha = p ? p->dynamic_th : 0;
    return ALPHAD_OK;
}

static alphad_status_t discover(alphad_sai_t *h)
{
    sai_object_id_t *ports = NULL, *qlist = NULL;
    uint32_t n_ports = 0, nq = 0, cap_q = 0;
    alphad_status_t rc;
    sai_attribute_t a;

    memset(&a, 0, sizeof(a));
    a.id = SAI_SWITCH_ATTR_PORT_NUMBER;
    if ((rc = get_attr(h, h->sw_api->get_switch_attribute, "get_switch_attribute", "PORT_NUMBER",
                       h->switch_id, &a)))
        return rc;
    if ((rc = get_list(h, h->sw_api->get_switch_attribute, "get_switch_attribute", "PORT_LIST", h->switch_id,
                       SAI_SWITCH_ATTR_PORT_LIST, a.value.u32, &ports, &n_ports)))
        return rc;
    h->n_ports = n_ports;
    for (uint32_t p = 0; p < n_ports; p++) {
        uint32_t speed, n_pq = 0;
        memset(&a, 0, sizeof(a));
        a.id = SAI_PORT_ATTR_SPEED;
        if ((rc = get_attr(h, h->port_api->get_port_attribute, "get_port_attribute", "SPEED", ports[p], &a)))
            goto out;
        speed = a.value.u32;
        a.id = SAI_PORT_ATTR_QOS_NUMBER_OF_QUEUES;
        if ((rc = get_attr(h, h->port_api->get_port_attribute, "get_port_attribute", "QOS_NUMBER_OF_QUEUES",
                           ports[p], &a)))
            goto out;
        if ((rc = get_list(h, h->port_api->get_port_attribute, "get_port_attribute", "QOS_QUEUE_LIST", ports[p],
                           SAI_PORT_ATTR_QOS_QUEUE_LIST, a.value.u32, &qlist, &n_pq)))
            goto out;
        for (uint32_t i = 0; i < n_pq; i++) {
            sai_get_queue_attribute_fn gq = h->queue_api->get_queue_attribute;
            memset(&a, 0, sizeof(a));
            a.id = SAI_QUEUE_ATTR_TYPE;
            if ((rc = get_attr(h, gq, "get_queue_attribute", "TYPE", qlist[i], &a)))
                goto out;
            if (a.value.s32 != SAI_QUEUE_TYPE_UNICAST && a.value.s32 != SAI_QUEUE_TYPE_ALL)
                continue; /* multicast, VOQ, fabric: not managed */
            if (nq == cap_q) {
                cap_q = cap_q ? cap_q * 2 : 64;
                struct queue *nqv = realloc(h->q, (size_t)cap_q * sizeof(*nqv));
                if (!nqv) {
                    set_error(h, "out of memory");
                    rc = ALPHAD_E_NOMEM;
                    goto out;
                }
                h->q = nqv;
            }
            struct queue *q = &h->q[nq];
            memset(q, 0, sizeof(*q));
            q->info.queue_oid = qlist[i];
            q->info.port_oid = ports[p];
            q->info.port_index = p;
            q->info.port_speed_mbps = speed;
            a.id = SAI_QUEUE_ATTR_INDEX;
            if ((rc = get_attr(h, gq, "get_queue_attribute", "INDEX", qlist[i], &a)))
                goto out;
            q->info.queue_index = a.value.u8;
            a.id = SAI_QUEUE_ATTR_BUFFER_PROFILE_ID;
            if ((rc = get_attr(h, gq, "get_queue_attribute", "BUFFER_PROFILE_ID", qlist[i], &a)))
                goto out;
            q->info.profile_oid = a.value.oid;
            nq++;
        }
        free(qlist);
        qlist = NULL;
    }
    h->n_queues = nq;
    qsort(h->q, nq, sizeof(*h->q), cmp_queue);

    /* distinct profiles */
    for (uint32_t i = 0; i < nq; i++) {
        struct queue *q = &h->q[i];
        if ((rc = adopt_profile(h, q, q->info.profile_oid)))
            goto out;
        if (!h->pool && q->orig >= 0)
            h->pool = h->profiles[q->orig].pool; /* the pool of the first managed queue */
    }
    if (h->pool) {
        memset(&a, 0, sizeof(a));
        a.id = SAI_BUFFER_POOL_ATTR_SIZE;
        if ((rc = get_attr(h, h->buf_api->get_buffer_pool_attribute, "get_buffer_pool_attribute", "SIZE",
                           h->pool, &a)))
            goto out;
        h->pool_size = a.value.u64;
    }
    rc = ALPHAD_OK;
out:
    free(ports);
    free(qlist);
    return rc;
}

ALPHAD_API alphad_status_t alphad_sai_open(const char *libsai_path, const alphad_kv_t *profile, size_t n_profile,
                                           alphad_sai_t **out, char *err, size_t err_len)
{
    alphad_sai_t *h = NULL;
    alphad_status_t rc;
    api_initialize_fn initialize;
    api_query_fn query = NULL;
    sai_status_t st;
    const char *sym;

    if (out)
        *out = NULL;
    if (err && err_len)
        err[0] = '\0';
    if (!libsai_path || !out || (n_profile && !profile)) {
        if (err && err_len)
            snprintf(err, err_len, "alphad_sai_open: %s is NULL",
                     !libsai_path ? "libsai_path" : !out ? "out" : "profile");
        return ALPHAD_E_INVALID_ARG;
    }
    for (size_t i = 0; i < n_profile; i++)
        if (!profile[i].key || !*profile[i].key || !profile[i].value) {
            if (err && err_len)
                snprintf(err, err_len, "alphad_sai_open: profile entry %zu has a %s", i,
                         !profile[i].key || !*profile[i].key ? "NULL or empty key" : "NULL value");
            return ALPHAD_E_INVALID_ARG;
        }
    h = calloc(1, sizeof(*h));
    if (!h)
        goto nomem;
    h->profile_id = UINT32_MAX;
    h->path = strdup(libsai_path);
    h->keys = calloc(n_profile ? n_profile : 1, sizeof(char *));
    h->values = calloc(n_profile ? n_profile : 1, sizeof(char *));
    if (!h->path || !h->keys || !h->values)
        goto nomem;
    for (size_t i = 0; i < n_profile; i++) {
        h->keys[i] = strdup(profile[i].key);
        h->values[i] = strdup(profile[i].value);
        h->n_kv++;
        if (!h->keys[i] || !h->values[i])
            goto nomem;
    }
    int id = reg_add(h);
    if (id < 0) {
        set_error(h, "alphad_sai_open: too many open handles (limit %d)", MAX_HANDLES);
        rc = ALPHAD_E_STATE;
        goto fail;
    }
    h->profile_id = (uint32_t)id;

    dlerror();
    h->lib = dlopen(libsai_path, RTLD_NOW | RTLD_LOCAL);
    if (!h->lib) {
        const char *e = dlerror();
        set_error(h, "dlopen(%s) failed: %s", libsai_path, e ? e : "unknown error");
        rc = ALPHAD_E_LOAD;
        goto fail;
    }
    sym = "sai_api_initialize";
    initialize = (api_initialize_fn)dlsym(h->lib, sym);
    if (initialize) {
        sym = "sai_api_query";
        query = (api_query_fn)dlsym(h->lib, sym);
    }
    if (initialize && query) {
        sym = "sai_api_uninitialize";
        h->uninitialize = (api_uninitialize_fn)dlsym(h->lib, sym);
    }
    if (!initialize || !query || !h->uninitialize) {
        set_error(h, "%s does not export %s (not a libsai?)", libsai_path, sym);
        rc = ALPHAD_E_SYMBOL;
        goto fail;
    }
    h->vasic_advance = (vasic_advance_fn)dlsym(h->lib, "vasic_advance");
    h->vasic_now_ns = (vasic_now_fn)dlsym(h->lib, "vasic_now_ns");
    h->vasic_last_error = (vasic_last_error_fn)dlsym(h->lib, "vasic_last_error");

    st = initialize(0, &g_services);
    if (st != SAI_STATUS_SUCCESS) {
        rc = sai_fail(h, ALPHAD_E_SAI, st, "sai_api_initialize", "%s", libsai_path);
        goto fail;
    }
    h->initialized = 1;
    static const struct {
        sai_api_t api;
        const char *name;
        size_t off;
    } apis[] = {
        {SAI_API_SWITCH, "SAI_API_SWITCH", offsetof(alphad_sai_t, sw_api)},
        {SAI_API_PORT, "SAI_API_PORT", offsetof(alphad_sai_t, port_api)},
        {SAI_API_QUEUE, "SAI_API_QUEUE", offsetof(alphad_sai_t, queue_api)},
        {SAI_API_BUFFER, "SAI_API_BUFFER", offsetof(alphad_sai_t, buf_api)},
    };
    for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++) {
        void *table = NULL;
        st = query(apis[i].api, &table);
        if (st != SAI_STATUS_SUCCESS || !table) {
            rc = sai_fail(h, ALPHAD_E_SAI, st ? st : SAI_STATUS_FAILURE, "sai_api_query", "%s", apis[i].name);
            goto fail;
        }
        memcpy((char *)h + apis[i].off, &table, sizeof(table));
    }
    {
        const char *missing = !h->sw_api->create_switch                      ? "create_switch"
                              : !h->sw_api->get_switch_attribute             ? "get_switch_attribute"
                              : !h->port_api->get_port_attribute             ? "get_port_attribute"
                              : !h->queue_api->get_queue_attribute           ? "get_queue_attribute"
                              : !h->queue_api->set_queue_attribute           ? "set_queue_attribute"
                              : !h->queue_api->get_queue_stats_ext           ? "get_queue_stats_ext"
                              : !h->buf_api->get_buffer_pool_attribute       ? "get_buffer_pool_attribute"
                              : !h->buf_api->get_buffer_pool_stats_ext       ? "get_buffer_pool_stats_ext"
                              : !h->buf_api->create_buffer_profile           ? "create_buffer_profile"
                              : !h->buf_api->remove_buffer_profile           ? "remove_buffer_profile"
                              : !h->buf_api->set_buffer_profile_attribute    ? "set_buffer_profile_attribute"
                              : !h->buf_api->get_buffer_profile_attribute    ? "get_buffer_profile_attribute"
                                                                             : NULL;
        if (missing) {
            set_error(h, "%s: the SAI method table lacks %s", libsai_path, missing);
            rc = ALPHAD_E_SYMBOL;
            goto fail;
        }
    }

    sai_attribute_t attrs[2];
    memset(attrs, 0, sizeof(attrs));
    attrs[0].id = SAI_SWITCH_ATTR_INIT_SWITCH;
    attrs[0].value.booldata = true;
    attrs[1].id = SAI_SWITCH_ATTR_SWITCH_PROFILE_ID;
    attrs[1].value.u32 = h->profile_id;
    st = h->sw_api->create_switch(&h->switch_id, 2, attrs);
    if (st != SAI_STATUS_SUCCESS) {
        rc = sai_fail(h, ALPHAD_E_SAI, st, "create_switch", "INIT_SWITCH=true, profile %u", h->profile_id);
        goto fail;
    }
    if ((rc = discover(h)))
        goto fail;
    probe_stats(h);
    h->last_error[0] = '\0';
    *out = h;
    return ALPHAD_OK;

nomem:
    rc = ALPHAD_E_NOMEM;
    if (h)
        set_error(h, "out of memory");
fail:
    if (err && err_len)
        snprintf(err, err_len, "%s", h ? h->last_error : "out of memory");
    if (h) {
        if (h->initialized)
            h->uninitialize();
        if (h->lib)
            dlclose(h->lib);
    }
    handle_free(h);
    return rc;
}

ALPHAD_API void alphad_sai_close(alphad_sai_t *h)
{
    if (!h)
        return;
    if (h->initialized)
        h->uninitialize();
    if (h->lib)
        dlclose(h->lib);
    handle_free(h);
}

/* ---------------------------------------------------------------- queries */

ALPHAD_API alphad_status_t alphad_sai_counts(const alphad_sai_t *h, uint32_t *n_ports, uint32_t *n_queues)
{
    if (!h)
        return ALPHAD_E_INVALID_ARG;
    if (n_ports)
        *n_ports = h->n_ports;
    if (n_queues)
        *n_queues = h->n_queues;
    return ALPHAD_OK;
}

ALPHAD_API alphad_status_t alphad_sai_queues(const alphad_sai_t *h, alphad_queue_info_t *out, uint32_t cap)
{
    if (!h || (!out && h->n_queues))
        return ALPHAD_E_INVALID_ARG;
    if (cap < h->n_queues)
        return ALPHAD_E_BUFFER_TOO_SMALL;
    for (uint32_t i = 0; i < h->n_queues; i++)
        out[i] = h->q[i].info;
    return ALPHAD_OK;
}

ALPHAD_API alphad_status_t alphad_sai_get_log2_alpha(const alphad_sai_t *h, uint32_t queue, int8_t *k)
{
    if (!h || !k)
        return ALPHAD_E_INVALID_ARG;
    if (queue >= h->n_queues)
        return ALPHAD_E_NOT_FOUND;
    *k = h->q[queue].info.log2_alpha;
    return ALPHAD_OK;
}

