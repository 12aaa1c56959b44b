/**
 * @file sai_abi_check.c
 * @brief Compile-time checks of the SAI ABI facts libalphad-sai and
 *        libsai-vasic rely on. The expected numbers are those of the official
 *        SAI headers (v1.18.1); the file is compiled against whichever headers
 *        the build uses (the subset in include/sai, or -DALPHAD_SAI_HEADERS),
 *        so a mismatch in either fails the build.
 */
#include <stddef.h>

#include <sai.h>

#define CHECK(cond) _Static_assert(cond, #cond)
#define MEMBER_AT(type, member, index) CHECK(offsetof(type, member) == (index) * sizeof(void *))

/* sai_attribute_t: 4-byte id, then an 8-aligned 40-byte value union */
CHECK(sizeof(sai_object_id_t) == 8);
CHECK(sizeof(sai_attr_id_t) == 4);
CHECK(sizeof(sai_stat_id_t) == 4);
CHECK(sizeof(sai_status_t) == 4);
CHECK(sizeof(sai_attribute_value_t) == 40);
CHECK(offsetof(sai_attribute_t, value) == 8);
CHECK(sizeof(sai_attribute_t) == 48);
CHECK(sizeof(sai_object_list_t) == 16);
CHECK(offsetof(sai_object_list_t, list) == 8);
CHECK(sizeof(((sai_attribute_value_t *)0)->s8) == 1);
CHECK(sizeof(((sai_attribute_value_t *)0)->u8) == 1);
CHECK(sizeof(((sai_attribute_value_t *)0)->booldata) == 1);
CHECK(sizeof(sai_service_method_table_t) == 2 * sizeof(void *));

/* method tables: position of every member used */
MEMBER_AT(sai_switch_api_t, create_switch, 0);
MEMBER_AT(sai_switch_api_t, remove_switch, 1);
MEMBER_AT(sai_switch_api_t, set_switch_attribute, 2);
MEMBER_AT(sai_switch_api_t, get_switch_attribute, 3);
MEMBER_AT(sai_switch_api_t, clear_switch_stats, 6);
MEMBER_AT(sai_port_api_t, get_port_attribute, 3);
MEMBER_AT(sai_port_api_t, clear_port_all_stats, 7);
MEMBER_AT(sai_queue_api_t, set_queue_attribute, 2);
MEMBER_AT(sai_queue_api_t, get_queue_attribute, 3);
MEMBER_AT(sai_queue_api_t, get_queue_stats, 4);
MEMBER_AT(sai_queue_api_t, get_queue_stats_ext, 5);
MEMBER_AT(sai_queue_api_t, clear_queue_stats, 6);
MEMBER_AT(sai_queue_api_t, get_queues_attribute, 8);
MEMBER_AT(sai_buffer_api_t, get_buffer_pool_attribute, 3);
MEMBER_AT(sai_buffer_api_t, get_buffer_pool_stats, 4);
MEMBER_AT(sai_buffer_api_t, get_buffer_pool_stats_ext, 5);
MEMBER_AT(sai_buffer_api_t, clear_buffer_pool_stats, 6);
MEMBER_AT(sai_buffer_api_t, create_buffer_profile, 14);
MEMBER_AT(sai_buffer_api_t, remove_buffer_profile, 15);
MEMBER_AT(sai_buffer_api_t, set_buffer_profile_attribute, 16);
MEMBER_AT(sai_buffer_api_t, get_buffer_profile_attribute, 17);
MEMBER_AT(sai_buffer_api_t, get_ingress_priority_groups_attribute, 19);

/* method tables: the official length (a caller built with the official headers
 * reads every member of a table it is handed) */
CHECK(sizeof(sai_switch_api_t) == 15 * sizeof(void *));
CHECK(sizeof(sai_port_api_t) == 35 * sizeof(void *));
CHECK(sizeof(sai_queue_api_t) == 9 * sizeof(void *));
CHECK(sizeof(sai_buffer_api_t) == 20 * sizeof(void *));
MEMBER_AT(sai_switch_api_t, switch_mdio_cl22_write, 14);
MEMBER_AT(sai_port_api_t, get_port_llr_profile_attribute, 34);

/* the release: 1.18.1 or later (SAI_STATS_MODE_NONE first appears in 1.18.1) */
CHECK(SAI_API_VERSION >= SAI_VERSION(1, 18, 1));
CHECK(SAI_STATS_MODE_NONE == 0);
CHECK(sizeof(sai_stat_capability_t) == 8 && offsetof(sai_stat_capability_t, stat_modes) == 4);
CHECK(sizeof(sai_stat_capability_list_t) == 16 && offsetof(sai_stat_capability_list_t, list) == 8);

/* enum values */
CHECK(SAI_API_SWITCH == 1 && SAI_API_PORT == 2 && SAI_API_QUEUE == 20 && SAI_API_BUFFER == 23);
CHECK(SAI_STATS_MODE_READ == 1 && SAI_STATS_MODE_READ_AND_CLEAR == 2);
CHECK(SAI_OBJECT_TYPE_PORT == 1 && SAI_OBJECT_TYPE_QUEUE == 21 && SAI_OBJECT_TYPE_BUFFER_POOL == 24 &&
      SAI_OBJECT_TYPE_BUFFER_PROFILE == 25 && SAI_OBJECT_TYPE_SWITCH == 33);
CHECK(SAI_SWITCH_ATTR_PORT_NUMBER == 0 && SAI_SWITCH_ATTR_PORT_LIST == 2);
CHECK(SAI_SWITCH_ATTR_NUMBER_OF_QUEUES == 15 && SAI_SWITCH_ATTR_TOTAL_BUFFER_SIZE == 48);
CHECK(SAI_SWITCH_ATTR_INGRESS_BUFFER_POOL_NUM == 49 && SAI_SWITCH_ATTR_EGRESS_BUFFER_POOL_NUM == 50);
CHECK(SAI_SWITCH_ATTR_SWITCH_PROFILE_ID == 113 && SAI_SWITCH_ATTR_INIT_SWITCH == 116);
CHECK(SAI_PORT_ATTR_TYPE == 0 && SAI_PORT_ATTR_OPER_STATUS == 1);
CHECK(SAI_PORT_ATTR_QOS_NUMBER_OF_QUEUES == 4 && SAI_PORT_ATTR_QOS_QUEUE_LIST == 5 && SAI_PORT_ATTR_SPEED == 31);
CHECK(SAI_PORT_TYPE_LOGICAL == 0 && SAI_PORT_OPER_STATUS_UP == 1);
CHECK(SAI_QUEUE_ATTR_TYPE == 0 && SAI_QUEUE_ATTR_PORT == 1 && SAI_QUEUE_ATTR_INDEX == 2 &&
      SAI_QUEUE_ATTR_BUFFER_PROFILE_ID == 5);
CHECK(SAI_QUEUE_TYPE_ALL == 0 && SAI_QUEUE_TYPE_UNICAST == 1 && SAI_QUEUE_TYPE_MULTICAST == 2);
CHECK(SAI_QUEUE_STAT_PACKETS == 0 && SAI_QUEUE_STAT_BYTES == 1 && SAI_QUEUE_STAT_DROPPED_PACKETS == 2 &&
      SAI_QUEUE_STAT_DROPPED_BYTES == 3);
CHECK(SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES == 0x18 && SAI_QUEUE_STAT_WATERMARK_BYTES == 0x19 &&
      SAI_QUEUE_STAT_SHARED_CURR_OCCUPANCY_BYTES == 0x1a && SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES == 0x1b);
CHECK(SAI_BUFFER_POOL_ATTR_SHARED_SIZE == 0 && SAI_BUFFER_POOL_ATTR_TYPE == 1 && SAI_BUFFER_POOL_ATTR_SIZE == 2 &&
      SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE == 3);
CHECK(SAI_BUFFER_POOL_TYPE_EGRESS == 1 && SAI_BUFFER_POOL_THRESHOLD_MODE_DYNAMIC == 1);
CHECK(SAI_BUFFER_POOL_STAT_CURR_OCCUPANCY_BYTES == 0 && SAI_BUFFER_POOL_STAT_WATERMARK_BYTES == 1 &&
      SAI_BUFFER_POOL_STAT_DROPPED_PACKETS == 2);
CHECK(SAI_BUFFER_PROFILE_ATTR_POOL_ID == 0 && SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE == 1 &&
      SAI_BUFFER_PROFILE_ATTR_BUFFER_SIZE == 1 && SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE == 2 &&
      SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH == 3 && SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH == 4);
CHECK(SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC == 0 && SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC == 1);
CHECK(SAI_STATUS_SUCCESS == 0 && SAI_STATUS_FAILURE == -1 && SAI_STATUS_NOT_SUPPORTED == -2);
CHECK(SAI_STATUS_INVALID_PARAMETER == -5 && SAI_STATUS_BUFFER_OVERFLOW == -8 && SAI_STATUS_NOT_IMPLEMENTED == -15);
CHECK(SAI_STATUS_OBJECT_IN_USE == -17 && SAI_STATUS_INVALID_OBJECT_ID == -19);
CHECK(SAI_STATUS_INVALID_ATTR_VALUE_0 == -0x20000 && SAI_STATUS_INVALID_ATTR_VALUE_MAX == -0x2FFFF);

/* keep the object file non-empty */
int alphad_sai_abi_checked(void);
int alphad_sai_abi_checked(void)
{
    return 1;
}
