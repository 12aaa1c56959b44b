/**
 * @file saiport.h
 * @brief Port attributes and API table used by alphad (subset of SAI v1.18.1
 *        inc/saiport.h; official values of the implicitly numbered enum).
 */
#ifndef __SAIPORT_H_
#define __SAIPORT_H_

#include "saitypes.h"

typedef enum _sai_port_type_t
{
    SAI_PORT_TYPE_LOGICAL,
    SAI_PORT_TYPE_CPU,
    SAI_PORT_TYPE_FABRIC,
    SAI_PORT_TYPE_RECYCLE,
} sai_port_type_t;

typedef enum _sai_port_oper_status_t
{
    SAI_PORT_OPER_STATUS_UNKNOWN,
    SAI_PORT_OPER_STATUS_UP,
    SAI_PORT_OPER_STATUS_DOWN,
    SAI_PORT_OPER_STATUS_TESTING,
    SAI_PORT_OPER_STATUS_NOT_PRESENT,
} sai_port_oper_status_t;

typedef enum _sai_port_attr_t
{
    SAI_PORT_ATTR_START = 0,

    /** @type sai_port_type_t READ_ONLY */
    SAI_PORT_ATTR_TYPE = SAI_PORT_ATTR_START,

    /** @type sai_port_oper_status_t READ_ONLY */
    SAI_PORT_ATTR_OPER_STATUS = 1,

    /** @type sai_uint32_t READ_ONLY */
    SAI_PORT_ATTR_QOS_NUMBER_OF_QUEUES = 4,

    /** @type sai_object_list_t (queues) READ_ONLY */
    SAI_PORT_ATTR_QOS_QUEUE_LIST = 5,

    /** @type sai_uint32_t MANDATORY_ON_CREATE | CREATE_AND_SET; Mbps */
    SAI_PORT_ATTR_SPEED = 31,
} sai_port_attr_t;

typedef sai_status_t (*sai_create_port_fn)(
        _Out_ sai_object_id_t *port_id,
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t attr_count,
        _In_ const sai_attribute_t *attr_list);

typedef sai_status_t (*sai_remove_port_fn)(
        _In_ sai_object_id_t port_id);

typedef sai_status_t (*sai_set_port_attribute_fn)(
        _In_ sai_object_id_t port_id,
        _In_ const sai_attribute_t *attr);

typedef sai_status_t (*sai_get_port_attribute_fn)(
        _In_ sai_object_id_t port_id,
        _In_ uint32_t attr_count,
        _Inout_ sai_attribute_t *attr_list);

typedef sai_status_t (*sai_get_port_stats_fn)(
        _In_ sai_object_id_t port_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids,
        _Out_ uint64_t *counters);

typedef sai_status_t (*sai_get_port_stats_ext_fn)(
        _In_ sai_object_id_t port_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids,
        _In_ sai_stats_mode_t mode,
        _Out_ uint64_t *counters);

typedef sai_status_t (*sai_clear_port_stats_fn)(
        _In_ sai_object_id_t port_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids);

typedef sai_status_t (*sai_clear_port_all_stats_fn)(
        _In_ sai_object_id_t port_id);

/* The rest of the official table's members (not used by alphad). */
typedef sai_status_t (*sai_create_port_pool_fn)(
        _Out_ sai_object_id_t *object_id,
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t attr_count,
        _In_ const sai_attribute_t *attr_list);

typedef sai_status_t (*sai_remove_port_pool_fn)(
        _In_ sai_object_id_t object_id);

typedef sai_status_t (*sai_set_port_pool_attribute_fn)(
        _In_ sai_object_id_t object_id,
        _In_ const sai_attribute_t *attr);

typedef sai_status_t (*sai_get_port_pool_attribute_fn)(
        _In_ sai_object_id_t object_id,
        _In_ uint32_t attr_count,
        _Inout_ sai_attribute_t *attr_list);

typedef sai_status_t (*sai_get_port_pool_stats_fn)(
        _In_ sai_object_id_t object_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids,
        _Out_ uint64_t *counters);

typedef sai_status_t (*sai_get_port_pool_stats_ext_fn)(
        _In_ sai_object_id_t object_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids,
        _In_ sai_stats_mode_t mode,
        _Out_ uint64_t *counters);

typedef sai_status_t (*sai_clear_port_pool_stats_fn)(
        _In_ sai_object_id_t object_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids);

typedef sai_status_t (*sai_create_port_connector_fn)(
        _Out_ sai_object_id_t *object_id,
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t attr_count,
        _In_ const sai_attribute_t *attr_list);

typedef sai_status_t (*sai_remove_port_connector_fn)(
        _In_ sai_object_id_t object_id);

typedef sai_status_t (*sai_set_port_connector_attribute_fn)(
        _In_ sai_object_id_t object_id,
        _In_ const sai_attribute_t *attr);

typedef sai_status_t (*sai_get_port_connector_attribute_fn)(
        _In_ sai_object_id_t object_id,
        _In_ uint32_t attr_count,
        _Inout_ sai_attribute_t *attr_list);

typedef sai_status_t (*sai_create_port_serdes_fn)(
        _Out_ sai_object_id_t *object_id,
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t attr_count,
        _In_ const sai_attribute_t *attr_list);

typedef sai_status_t (*sai_remove_port_serdes_fn)(
        _In_ sai_object_id_t object_id);

typedef sai_status_t (*sai_set_port_serdes_attribute_fn)(
        _In_ sai_object_id_t object_id,
        _In_ const sai_attribute_t *attr);

typedef sai_status_t (*sai_get_port_serdes_attribute_fn)(
        _In_ sai_object_id_t object_id,
        _In_ uint32_t attr_count,
        _Inout_ sai_attribute_t *attr_list);

typedef sai_status_t (*sai_create_port_llr_profile_fn)(
        _Out_ sai_object_id_t *object_id,
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t attr_count,
        _In_ const sai_attribute_t *attr_list);

typedef sai_status_t (*sai_remove_port_llr_profile_fn)(
        _In_ sai_object_id_t object_id);

typedef sai_status_t (*sai_set_port_llr_profile_attribute_fn)(
        _In_ sai_object_id_t object_id,
        _In_ const sai_attribute_t *attr);

typedef sai_status_t (*sai_get_port_llr_profile_attribute_fn)(
        _In_ sai_object_id_t object_id,
        _In_ uint32_t attr_count,
        _Inout_ sai_attribute_t *attr_list);

/** Port method table: the official table, member for member (SAI v1.18.1). */
typedef struct _sai_port_api_t
{
    sai_create_port_fn                     create_port;
    sai_remove_port_fn                     remove_port;
    sai_set_port_attribute_fn              set_port_attribute;
    sai_get_port_attribute_fn              get_port_attribute;
    sai_get_port_stats_fn                  get_port_stats;
    sai_get_port_stats_ext_fn              get_port_stats_ext;
    sai_clear_port_stats_fn                clear_port_stats;
    sai_clear_port_all_stats_fn            clear_port_all_stats;
    sai_create_port_pool_fn                create_port_pool;
    sai_remove_port_pool_fn                remove_port_pool;
    sai_set_port_pool_attribute_fn         set_port_pool_attribute;
    sai_get_port_pool_attribute_fn         get_port_pool_attribute;
    sai_get_port_pool_stats_fn             get_port_pool_stats;
    sai_get_port_pool_stats_ext_fn         get_port_pool_stats_ext;
    sai_clear_port_pool_stats_fn           clear_port_pool_stats;
    sai_create_port_connector_fn           create_port_connector;
    sai_remove_port_connector_fn           remove_port_connector;
    sai_set_port_connector_attribute_fn    set_port_connector_attribute;
    sai_get_port_connector_attribute_fn    get_port_connector_attribute;
    sai_create_port_serdes_fn              create_port_serdes;
    sai_remove_port_serdes_fn              remove_port_serdes;
    sai_set_port_serdes_attribute_fn       set_port_serdes_attribute;
    sai_get_port_serdes_attribute_fn       get_port_serdes_attribute;
    sai_bulk_object_create_fn              create_ports;
    sai_bulk_object_remove_fn              remove_ports;
    sai_bulk_object_set_attribute_fn       set_ports_attribute;
    sai_bulk_object_get_attribute_fn       get_ports_attribute;
    sai_bulk_object_create_fn              create_port_serdess;
    sai_bulk_object_remove_fn              remove_port_serdess;
    sai_bulk_object_set_attribute_fn       set_port_serdess_attribute;
    sai_bulk_object_get_attribute_fn       get_port_serdess_attribute;
    sai_create_port_llr_profile_fn         create_port_llr_profile;
    sai_remove_port_llr_profile_fn         remove_port_llr_profile;
    sai_set_port_llr_profile_attribute_fn  set_port_llr_profile_attribute;
    sai_get_port_llr_profile_attribute_fn  get_port_llr_profile_attribute;
} sai_port_api_t;

#endif /* __SAIPORT_H_ */
