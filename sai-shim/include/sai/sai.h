/**
 * @file sai.h
 * @brief alphad's minimal, ABI-compatible subset of the SAI 1.x headers.
 *
 * Matches opencomputeproject/SAI v1.18.1 (inc/saiversion.h: SAI_MAJOR 1,
 * SAI_MINOR 18, SAI_REVISION 1): only the names libalphad-sai and
 * libsai-vasic use, with the official values, signatures and struct layouts
 * (method tables have the official length, member for member).
 * Include as <sai.h>; configure with -DALPHAD_SAI_HEADERS=<dir> to compile
 * the same sources against the official headers.
 */
#ifndef __SAI_H_
#define __SAI_H_

#include "saitypes.h"
#include "saistatus.h"
#include "saiswitch.h"
#include "saiport.h"
#include "saiqueue.h"
#include "saibuffer.h"
#include "saiobject.h"
#include "saiversion.h"

typedef enum _sai_api_t
{
    SAI_API_UNSPECIFIED = 0,
    SAI_API_SWITCH = 1,
    SAI_API_PORT = 2,
    SAI_API_FDB = 3,
    SAI_API_VLAN = 4,
    SAI_API_VIRTUAL_ROUTER = 5,
    SAI_API_ROUTE = 6,
    SAI_API_NEXT_HOP = 7,
    SAI_API_NEXT_HOP_GROUP = 8,
    SAI_API_ROUTER_INTERFACE = 9,
    SAI_API_NEIGHBOR = 10,
    SAI_API_ACL = 11,
    SAI_API_HOSTIF = 12,
    SAI_API_MIRROR = 13,
    SAI_API_SAMPLEPACKET = 14,
    SAI_API_STP = 15,
    SAI_API_LAG = 16,
    SAI_API_POLICER = 17,
    SAI_API_WRED = 18,
    SAI_API_QOS_MAP = 19,
    SAI_API_QUEUE = 20,
    SAI_API_SCHEDULER = 21,
    SAI_API_SCHEDULER_GROUP = 22,
    SAI_API_BUFFER = 23,
} sai_api_t;

typedef enum _sai_log_level_t
{
    SAI_LOG_LEVEL_DEBUG = 0,
    SAI_LOG_LEVEL_INFO = 1,
    SAI_LOG_LEVEL_NOTICE = 2,
    SAI_LOG_LEVEL_WARN = 3,
    SAI_LOG_LEVEL_ERROR = 4,
    SAI_LOG_LEVEL_CRITICAL = 5,
} sai_log_level_t;

typedef const char *(*sai_profile_get_value_fn)(
        _In_ sai_switch_profile_id_t profile_id,
        _In_ const char *variable);

/** Returns 0 while a pair exists, -1 at the end; *variable == NULL restarts. */
typedef int (*sai_profile_get_next_value_fn)(
        _In_ sai_switch_profile_id_t profile_id,
        _Out_ const char **variable,
        _Out_ const char **value);

/** Services the adapter host gives the adapter. */
typedef struct _sai_service_method_table_t
{
    sai_profile_get_value_fn      profile_get_value;
    sai_profile_get_next_value_fn profile_get_next_value;
} sai_service_method_table_t;

sai_status_t sai_api_initialize(
        _In_ uint64_t flags,
        _In_ const sai_service_method_table_t *services);

sai_status_t sai_api_query(
        _In_ sai_api_t api,
        _Out_ void **api_method_table);

sai_status_t sai_api_uninitialize(void);

sai_status_t sai_log_set(
        _In_ sai_api_t api,
        _In_ sai_log_level_t log_level);

sai_object_type_t sai_object_type_query(
        _In_ sai_object_id_t object_id);

sai_object_id_t sai_switch_id_query(
        _In_ sai_object_id_t object_id);

#endif /* __SAI_H_ */
