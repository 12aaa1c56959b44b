/**
 * @file saibuffer.h
 * @brief Buffer pool / buffer profile attributes, statistics and the buffer
 *        API table used by alphad (subset of SAI v1.18.1 inc/saibuffer.h).
 */
#ifndef __SAIBUFFER_H_
#define __SAIBUFFER_H_

#include "saitypes.h"

typedef enum _sai_buffer_pool_type_t
{
    SAI_BUFFER_POOL_TYPE_INGRESS,
    SAI_BUFFER_POOL_TYPE_EGRESS,
    SAI_BUFFER_POOL_TYPE_BOTH,
} sai_buffer_pool_type_t;

typedef enum _sai_buffer_pool_threshold_mode_t
{
    SAI_BUFFER_POOL_THRESHOLD_MODE_STATIC,
    SAI_BUFFER_POOL_THRESHOLD_MODE_DYNAMIC,
} sai_buffer_pool_threshold_mode_t;

typedef enum _sai_buffer_pool_attr_t
{
    SAI_BUFFER_POOL_ATTR_START = 0,
    /** @type sai_uint64_t READ_ONLY; shared buffer size in bytes */
    SAI_BUFFER_POOL_ATTR_SHARED_SIZE = SAI_BUFFER_POOL_ATTR_START,
    /** @type sai_buffer_pool_type_t MANDATORY_ON_CREATE | CREATE_ONLY */
    SAI_BUFFER_POOL_ATTR_TYPE = 1,
    /** @type sai_uint64_t MANDATORY_ON_CREATE | CREATE_AND_SET; bytes */
    SAI_BUFFER_POOL_ATTR_SIZE = 2,
    /** @type sai_buffer_pool_threshold_mode_t CREATE_ONLY */
    SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE = 3,
} sai_buffer_pool_attr_t;

typedef enum _sai_buffer_pool_stat_t
{
    SAI_BUFFER_POOL_STAT_CURR_OCCUPANCY_BYTES = 0x00000000,
    SAI_BUFFER_POOL_STAT_WATERMARK_BYTES = 0x00000001,
    SAI_BUFFER_POOL_STAT_DROPPED_PACKETS = 0x00000002,
} sai_buffer_pool_stat_t;

typedef enum _sai_buffer_profile_threshold_mode_t
{
    SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC,
    SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC,
} sai_buffer_profile_threshold_mode_t;

typedef enum _sai_buffer_profile_attr_t
{
    SAI_BUFFER_PROFILE_ATTR_START = 0,
    /** @type sai_object_id_t (buffer pool) MANDATORY_ON_CREATE | CREATE_ONLY */
    SAI_BUFFER_PROFILE_ATTR_POOL_ID = SAI_BUFFER_PROFILE_ATTR_START,
    /** @type sai_uint64_t MANDATORY_ON_CREATE | CREATE_AND_SET; bytes */
    SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE = 1,
    SAI_BUFFER_PROFILE_ATTR_BUFFER_SIZE = SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE,
    /** @type sai_buffer_profile_threshold_mode_t MANDATORY_ON_CREATE | CREATE_ONLY */
    SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE = 2,
    /** @type sai_int8_t MANDATORY_ON_CREATE | CREATE_AND_SET; threshold 2^n of free pool */
    SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH = 3,
    /** @type sai_uint64_t MANDATORY_ON_CREATE | CREATE_AND_SET; bytes */
    SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH = 4,
    /** @type sai_uint64_t; bytes */
    SAI_BUFFER_PROFILE_ATTR_XOFF_TH = 5,
    /** @type sai_uint64_t; bytes */
    SAI_BUFFER_PROFILE_ATTR_XON_TH = 6,
} sai_buffer_profile_attr_t;

/* --- buffer pool --- */
typedef sai_status_t (*sai_create_buffer_pool_fn)(
        _Out_ sai_object_id_t *buffer_pool_id,
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t attr_count,
        _In_ const sai_attribute_t *attr_list);
typedef sai_status_t (*sai_remove_buffer_pool_fn)(
        _In_ sai_object_id_t buffer_pool_id);
typedef sai_status_t (*sai_set_buffer_pool_attribute_fn)(
        _In_ sai_object_id_t buffer_pool_id,
        _In_ const sai_attribute_t *attr);
typedef sai_status_t (*sai_get_buffer_pool_attribute_fn)(
        _In_ sai_object_id_t buffer_pool_id,
        _In_ uint32_t attr_count,
        _Inout_ sai_attribute_t *attr_list);
typedef sai_status_t (*sai_get_buffer_pool_stats_fn)(
        _In_ sai_object_id_t buffer_pool_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids,
        _Out_ uint64_t *counters);
typedef sai_status_t (*sai_get_buffer_pool_stats_ext_fn)(
        _In_ sai_object_id_t buffer_pool_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids,
        _In_ sai_stats_mode_t mode,
        _Out_ uint64_t *counters);
typedef sai_status_t (*sai_clear_buffer_pool_stats_fn)(
        _In_ sai_object_id_t buffer_pool_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids);

/* --- ingress priority group (declared for the table layout only) --- */
typedef sai_status_t (*sai_create_ingress_priority_group_fn)(
        _Out_ sai_object_id_t *ingress_priority_group_id,
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t attr_count,
        _In_ const sai_attribute_t *attr_list);
typedef sai_status_t (*sai_remove_ingress_priority_group_fn)(
        _In_ sai_object_id_t ingress_priority_group_id);
typedef sai_status_t (*sai_set_ingress_priority_group_attribute_fn)(
        _In_ sai_object_id_t ingress_priority_group_id,
        _In_ const sai_attribute_t *attr);
typedef sai_status_t (*sai_get_ingress_priority_group_attribute_fn)(
        _In_ sai_object_id_t ingress_priority_group_id,
        _In_ uint32_t attr_count,
        _Inout_ sai_attribute_t *attr_list);
typedef sai_status_t (*sai_get_ingress_priority_group_stats_fn)(
        _In_ sai_object_id_t ingress_priority_group_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids,
        _Out_ uint64_t *counters);
typedef sai_status_t (*sai_get_ingress_priority_group_stats_ext_fn)(
        _In_ sai_object_id_t ingress_priority_group_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids,
        _In_ sai_stats_mode_t mode,
        _Out_ uint64_t *counters);
typedef sai_status_t (*sai_clear_ingress_priority_group_stats_fn)(
        _In_ sai_object_id_t ingress_priority_group_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids);

/* --- buffer profile --- */
typedef sai_status_t (*sai_create_buffer_profile_fn)(
        _Out_ sai_object_id_t *buffer_profile_id,
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t attr_count,
        _In_ const sai_attribute_t *attr_list);
typedef sai_status_t (*sai_remove_buffer_profile_fn)(
        _In_ sai_object_id_t buffer_profile_id);
typedef sai_status_t (*sai_set_buffer_profile_attribute_fn)(
        _In_ sai_object_id_t buffer_profile_id,
        _In_ const sai_attribute_t *attr);
typedef sai_status_t (*sai_get_buffer_profile_attribute_fn)(
        _In_ sai_object_id_t buffer_profile_id,
        _In_ uint32_t attr_count,
        _Inout_ sai_attribute_t *attr_list);

/** Buffer method table (complete, in official order). */
typedef struct _sai_buffer_api_t
{
    sai_create_buffer_pool_fn                   create_buffer_pool;
    sai_remove_buffer_pool_fn                   remove_buffer_pool;
    sai_set_buffer_pool_attribute_fn            set_buffer_pool_attribute;
    sai_get_buffer_pool_attribute_fn            get_buffer_pool_attribute;
    sai_get_buffer_pool_stats_fn                get_buffer_pool_stats;
    sai_get_buffer_pool_stats_ext_fn            get_buffer_pool_stats_ext;
    sai_clear_buffer_pool_stats_fn              clear_buffer_pool_stats;
    sai_create_ingress_priority_group_fn        create_ingress_priority_group;
    sai_remove_ingress_priority_group_fn        remove_ingress_priority_group;
    sai_set_ingress_priority_group_attribute_fn set_ingress_priority_group_attribute;
    sai_get_ingress_priority_group_attribute_fn get_ingress_priority_group_attribute;
    sai_get_ingress_priority_group_stats_fn     get_ingress_priority_group_stats;
    sai_get_ingress_priority_group_stats_ext_fn get_ingress_priority_group_stats_ext;
    sai_clear_ingress_priority_group_stats_fn   clear_ingress_priority_group_stats;
    sai_create_buffer_profile_fn                create_buffer_profile;
    sai_remove_buffer_profile_fn                remove_buffer_profile;
    sai_set_buffer_profile_attribute_fn         set_buffer_profile_attribute;
    sai_get_buffer_profile_attribute_fn         get_buffer_profile_attribute;
    sai_bulk_object_set_attribute_fn            set_ingress_priority_groups_attribute;
    sai_bulk_object_get_attribute_fn            get_ingress_priority_groups_attribute;
} sai_buffer_api_t;

#endif /* __SAIBUFFER_H_ */
