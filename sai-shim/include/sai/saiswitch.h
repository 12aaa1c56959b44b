/**
 * @file saiswitch.h
 * @brief Switch attributes and API table used by alphad (subset of SAI v1.18.1
 *        inc/saiswitch.h). The official enum is implicitly numbered; the
 *        values below are the official ones, written out.
 */
#ifndef __SAISWITCH_H_
#define __SAISWITCH_H_

#include "saitypes.h"

typedef enum _sai_switch_attr_t
{
    SAI_SWITCH_ATTR_START = 0,

    /** @type sai_uint32_t READ_ONLY */
    SAI_SWITCH_ATTR_NUMBER_OF_ACTIVE_PORTS = SAI_SWITCH_ATTR_START,
    SAI_SWITCH_ATTR_PORT_NUMBER = SAI_SWITCH_ATTR_NUMBER_OF_ACTIVE_PORTS,

    /** @type sai_uint32_t READ_ONLY */
    SAI_SWITCH_ATTR_MAX_NUMBER_OF_SUPPORTED_PORTS = 1,

    /** @type sai_object_list_t (ports) READ_ONLY */
    SAI_SWITCH_ATTR_PORT_LIST = 2,

    /** @type sai_object_id_t READ_ONLY */
    SAI_SWITCH_ATTR_CPU_PORT = 4,

    /** @type sai_uint32_t READ_ONLY */
    SAI_SWITCH_ATTR_NUMBER_OF_QUEUES = 15,

    /** @type sai_uint64_t READ_ONLY; total buffer size in KB */
    SAI_SWITCH_ATTR_TOTAL_BUFFER_SIZE = 48,

    /** @type sai_uint32_t READ_ONLY */
    SAI_SWITCH_ATTR_INGRESS_BUFFER_POOL_NUM = 49,

    /** @type sai_uint32_t READ_ONLY */
    SAI_SWITCH_ATTR_EGRESS_BUFFER_POOL_NUM = 50,

    /** @type sai_uint32_t CREATE_ONLY; id passed to profile_get_value() */
    SAI_SWITCH_ATTR_SWITCH_PROFILE_ID = 113,

    /** @type bool MANDATORY_ON_CREATE | CREATE_ONLY */
    SAI_SWITCH_ATTR_INIT_SWITCH = 116,
} sai_switch_attr_t;

typedef sai_status_t (*sai_create_switch_fn)(
        _Out_ sai_object_id_t *switch_id,
        _In_ uint32_t attr_count,
        _In_ const sai_attribute_t *attr_list);

typedef sai_status_t (*sai_remove_switch_fn)(
        _In_ sai_object_id_t switch_id);

typedef sai_status_t (*sai_set_switch_attribute_fn)(
        _In_ sai_object_id_t switch_id,
        _In_ const sai_attribute_t *attr);

typedef sai_status_t (*sai_get_switch_attribute_fn)(
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t attr_count,
        _Inout_ sai_attribute_t *attr_list);

typedef sai_status_t (*sai_get_switch_stats_fn)(
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids,
        _Out_ uint64_t *counters);

typedef sai_status_t (*sai_get_switch_stats_ext_fn)(
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids,
        _In_ sai_stats_mode_t mode,
        _Out_ uint64_t *counters);

typedef sai_status_t (*sai_clear_switch_stats_fn)(
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t number_of_counters,
        _In_ const sai_stat_id_t *counter_ids);

/* The rest of the official table's members (not used by alphad). */
typedef sai_status_t (*sai_switch_mdio_read_fn)(
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t device_addr,
        _In_ uint32_t start_reg_addr,
        _In_ uint32_t number_of_registers,
        _Out_ uint32_t *reg_val);

typedef sai_status_t (*sai_switch_mdio_write_fn)(
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t device_addr,
        _In_ uint32_t start_reg_addr,
        _In_ uint32_t number_of_registers,
        _In_ const uint32_t *reg_val);

typedef sai_status_t (*sai_create_switch_tunnel_fn)(
        _Out_ sai_object_id_t *object_id,
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t attr_count,
        _In_ const sai_attribute_t *attr_list);

typedef sai_status_t (*sai_remove_switch_tunnel_fn)(
        _In_ sai_object_id_t object_id);

typedef sai_status_t (*sai_set_switch_tunnel_attribute_fn)(
        _In_ sai_object_id_t object_id,
        _In_ const sai_attribute_t *attr);

typedef sai_status_t (*sai_get_switch_tunnel_attribute_fn)(
        _In_ sai_object_id_t object_id,
        _In_ uint32_t attr_count,
        _Inout_ sai_attribute_t *attr_list);

typedef sai_status_t (*sai_switch_mdio_cl22_read_fn)(
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t device_addr,
        _In_ uint32_t start_reg_addr,
        _In_ uint32_t number_of_registers,
        _Out_ uint32_t *reg_val);

typedef sai_status_t (*sai_switch_mdio_cl22_write_fn)(
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t device_addr,
        _In_ uint32_t start_reg_addr,
        _In_ uint32_t number_of_registers,
        _In_ const uint32_t *reg_val);

/** Switch method table: the official table, member for member (SAI v1.18.1). */
typedef struct _sai_switch_api_t
{
    sai_create_switch_fn                   create_switch;
    sai_remove_switch_fn                   remove_switch;
    sai_set_switch_attribute_fn            set_switch_attribute;
    sai_get_switch_attribute_fn            get_switch_attribute;
    sai_get_switch_stats_fn                get_switch_stats;
    sai_get_switch_stats_ext_fn            get_switch_stats_ext;
    sai_clear_switch_stats_fn              clear_switch_stats;
    sai_switch_mdio_read_fn                switch_mdio_read;
    sai_switch_mdio_write_fn               switch_mdio_write;
    sai_create_switch_tunnel_fn            create_switch_tunnel;
    sai_remove_switch_tunnel_fn            remove_switch_tunnel;
    sai_set_switch_tunnel_attribute_fn     set_switch_tunnel_attribute;
    sai_get_switch_tunnel_attribute_fn     get_switch_tunnel_attribute;
    sai_switch_mdio_cl22_read_fn           switch_mdio_cl22_read;
    sai_switch_mdio_cl22_write_fn          switch_mdio_cl22_write;
} sai_switch_api_t;

#endif /* __SAISWITCH_H_ */
