/**
 * @file saiqueue.h
 * @brief Queue attributes, statistics and API table used by alphad (subset of
 *        SAI v1.18.1 inc/saiqueue.h).
 */
#ifndef __SAIQUEUE_H_
#define __SAIQUEUE_H_

#include "saitypes.h"

typedef enum _sai_queue_type_t
{
    SAI_QUEUE_TYPE_ALL = 0x00000000,
    SAI_QUEUE_TYPE_UNICAST = 0x00000001,
    SAI_QUEUE_TYPE_MULTICAST = 0x00000002,
    SAI_QUEUE_TYPE_UNICAST_VOQ = 0x00000003,
    SAI_QUEUE_TYPE_MULTICAST_VOQ = 0x00000004,
    SAI_QUEUE_TYPE_FABRIC_TX = 0x00000005,
} sai_queue_type_t;

typedef enum _sai_queue_attr_t
{
    SAI_QUEUE_ATTR_START = 0x00000000,
    /** @type sai_queue_type_t */
    SAI_QUEUE_ATTR_TYPE = SAI_QUEUE_ATTR_START,
    /** @type sai_object_id_t (port) */
    SAI_QUEUE_ATTR_PORT = 0x00000001,
    /** @type sai_uint8_t */
    SAI_QUEUE_ATTR_INDEX = 0x00000002,
    /** @type sai_object_id_t */
    SAI_QUEUE_ATTR_PARENT_SCHEDULER_NODE = 0x00000003,
    /** @type sai_object_id_t */
    SAI_QUEUE_ATTR_WRED_PROFILE_ID = 0x00000004,
    /** @type sai_object_id_t (buffer profile) CREATE_AND_SET */
    SAI_QUEUE_ATTR_BUFFER_PROFILE_ID = 0x00000005,
    /** @type sai_object_id_t */
    SAI_QUEUE_ATTR_SCHEDULER_PROFILE_ID = 0x00000006,
} sai_queue_attr_t;

typedef enum _sai_queue_stat_t
{
    SAI_QUEUE_STAT_PACKETS = 0x00000000,
    SAI_QUEUE_STAT_BYTES = 0x00000001,
    SAI_QUEUE_STAT_DROPPED_PACKETS = 0x00000002,
    SAI_QUEUE_STAT_DROPPED_BYTES = 0x00000003,
    SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES = 0x00000018,
    SAI_QUEUE_STAT_WATERMARK_BYTES = 0x00000019,
    SAI_QUEUE_STAT_SHARED_CURR_OCCUPANCY_BYTES = 0x0000001a,
    SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES = 0x0000001b,
} sai_queue_stat_t;

typedef sai_status_t (*sai_create_queue_fn)(
        _Out_ sai_object_id_t *queue_id,
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t attr_count,
        _In_ const sai_attribute_t *attr_list);

typedef sai_status_t (*sai_remove_queue_fn)(
        _In_ sai_object_id_t queue_id);

typedef sai_status_t (*sai_set_queue_attribute_fn)(
        _In_ sai_object_id_t queue_id,
        _In_ const sai_attribute_t *attr);

typedef sai_status_t (*sai_get_queue_attribute_fn)(
        _In_ sai_object_id_t queue_id,
        _In_ uint32_t attr_count,
        _Inout_ sai_attribute_t *attr_list);

typedef sai_status_t (*sai_get_queue_stats_fn)(
        _In_ sai_object_id_t queue_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids,
        _Out_ uint64_t *counters);

typedef sai_status_t (*sai_get_queue_stats_ext_fn)(
        _In_ sai_object_id_t queue_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids,
        _In_ sai_stats_mode_t mode,
        _Out_ uint64_t *counters);

typedef sai_status_t (*sai_clear_queue_stats_fn)(
        _In_ sai_object_id_t queue_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids);

/** Queue method table (complete, in official order). */
typedef struct _sai_queue_api_t
{
    sai_create_queue_fn              create_queue;
    sai_remove_queue_fn              remove_queue;
    sai_set_queue_attribute_fn       set_queue_attribute;
    sai_get_queue_attribute_fn       get_queue_attribute;
    sai_get_queue_stats_fn           get_queue_stats;
    sai_get_queue_stats_ext_fn       get_queue_stats_ext;
    sai_clear_queue_stats_fn         clear_queue_stats;
    sai_bulk_object_set_attribute_fn set_queues_attribute;
    sai_bulk_object_get_attribute_fn get_queues_attribute;
} sai_queue_api_t;

#endif /* __SAIQUEUE_H_ */
