/**
 * @file saitypes.h
 * @brief Minimal, ABI-compatible subset of the SAI 1.x basic types.
 *
 * Part of the alphad SAI subset: only what libalphad-sai and libsai-vasic
 * use. Names, values and layouts follow the Switch Abstraction Interface
 * (opencomputeproject/SAI) as of v1.18.1, inc/saitypes.h. Values of SAI enums
 * are frozen by SAI's enum lock, so they hold for every 1.x release that has
 * the member. Build with -DALPHAD_SAI_HEADERS=<dir> to use the official
 * headers instead.
 */
#ifndef __SAITYPES_H_
#define __SAITYPES_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* SAL annotations used by SAI prototypes; they expand to nothing. */
#define _In_
#define _Out_
#define _Inout_

typedef int32_t sai_status_t;
typedef uint32_t sai_switch_profile_id_t;
typedef uint32_t sai_attr_id_t;
typedef uint8_t sai_queue_index_t;
typedef uint32_t sai_stat_id_t;

typedef uint64_t sai_uint64_t;
typedef int64_t sai_int64_t;
typedef uint32_t sai_uint32_t;
typedef int32_t sai_int32_t;
typedef uint16_t sai_uint16_t;
typedef int16_t sai_int16_t;
typedef uint8_t sai_uint8_t;
typedef int8_t sai_int8_t;
typedef size_t sai_size_t;
typedef uint64_t sai_object_id_t;
typedef void *sai_pointer_t;

/** The null object id. */
#define SAI_NULL_OBJECT_ID 0L

/** List of object ids: count is in/out (capacity in, entries out). */
typedef struct _sai_object_list_t
{
    uint32_t count;
    sai_object_id_t *list;
} sai_object_list_t;

typedef struct _sai_u8_list_t
{
    uint32_t count;
    uint8_t *list;
} sai_u8_list_t;

typedef struct _sai_s8_list_t
{
    uint32_t count;
    int8_t *list;
} sai_s8_list_t;

typedef struct _sai_u32_list_t
{
    uint32_t count;
    uint32_t *list;
} sai_u32_list_t;

typedef struct _sai_s32_list_t
{
    uint32_t count;
    int32_t *list;
} sai_s32_list_t;

/** Object types used here (values of sai_object_type_t). */
typedef enum _sai_object_type_t
{
    SAI_OBJECT_TYPE_NULL = 0,
    SAI_OBJECT_TYPE_PORT = 1,
    SAI_OBJECT_TYPE_QUEUE = 21,
    SAI_OBJECT_TYPE_SCHEDULER = 22,
    SAI_OBJECT_TYPE_SCHEDULER_GROUP = 23,
    SAI_OBJECT_TYPE_BUFFER_POOL = 24,
    SAI_OBJECT_TYPE_BUFFER_PROFILE = 25,
    SAI_OBJECT_TYPE_INGRESS_PRIORITY_GROUP = 26,
    SAI_OBJECT_TYPE_SWITCH = 33,
} sai_object_type_t;

/**
 * Attribute value. Only the members used here are named; the union is padded
 * to the size of the official union (40 bytes in SAI 1.18, checked at build
 * time) so that arrays of sai_attribute_t have the official stride.
 */
typedef union _sai_attribute_value_t
{
    bool booldata;
    char chardata[32];
    sai_uint8_t u8;
    sai_int8_t s8;
    sai_uint16_t u16;
    sai_int16_t s16;
    sai_uint32_t u32;
    sai_int32_t s32;
    sai_uint64_t u64;
    sai_int64_t s64;
    sai_pointer_t ptr;
    sai_object_id_t oid;
    sai_object_list_t objlist;
    sai_u8_list_t u8list;
    sai_s8_list_t s8list;
    sai_u32_list_t u32list;
    sai_s32_list_t s32list;
    /** Not an official member: pads the union to the official size. */
    uint8_t alphad_reserved_[40];
} sai_attribute_value_t;

typedef struct _sai_attribute_t
{
    sai_attr_id_t id;
    sai_attribute_value_t value;
} sai_attribute_t;

typedef enum _sai_bulk_op_error_mode_t
{
    SAI_BULK_OP_ERROR_MODE_STOP_ON_ERROR,
    SAI_BULK_OP_ERROR_MODE_IGNORE_ERROR,
} sai_bulk_op_error_mode_t;

typedef sai_status_t (*sai_bulk_object_create_fn)(
        _In_ sai_object_id_t switch_id,
        _In_ uint32_t object_count,
        _In_ const uint32_t *attr_count,
        _In_ const sai_attribute_t **attr_list,
        _In_ sai_bulk_op_error_mode_t mode,
        _Out_ sai_object_id_t *object_id,
        _Out_ sai_status_t *object_statuses);

typedef sai_status_t (*sai_bulk_object_remove_fn)(
        _In_ uint32_t object_count,
        _In_ const sai_object_id_t *object_id,
        _In_ sai_bulk_op_error_mode_t mode,
        _Out_ sai_status_t *object_statuses);

typedef sai_status_t (*sai_bulk_object_set_attribute_fn)(
        _In_ uint32_t object_count,
        _In_ const sai_object_id_t *object_id,
        _In_ const sai_attribute_t *attr_list,
        _In_ sai_bulk_op_error_mode_t mode,
        _Out_ sai_status_t *object_statuses);

typedef sai_status_t (*sai_bulk_object_get_attribute_fn)(
        _In_ uint32_t object_count,
        _In_ const sai_object_id_t *object_id,
        _In_ const uint32_t *attr_count,
        _Inout_ sai_attribute_t **attr_list,
        _In_ sai_bulk_op_error_mode_t mode,
        _Out_ sai_status_t *object_statuses);

/** Statistics read mode (flags). */
typedef enum _sai_stats_mode_t
{
    SAI_STATS_MODE_NONE = 0 << 0,
    SAI_STATS_MODE_READ = 1 << 0,
    SAI_STATS_MODE_READ_AND_CLEAR = 1 << 1,
    SAI_STATS_MODE_BULK_READ = 1 << 2,
    SAI_STATS_MODE_BULK_CLEAR = 1 << 3,
    SAI_STATS_MODE_BULK_READ_AND_CLEAR = 1 << 4,
} sai_stats_mode_t;

typedef struct _sai_stat_capability_t
{
    sai_stat_id_t stat_enum;
    uint32_t stat_modes; /**< sai_stats_mode_t bits */
} sai_stat_capability_t;

typedef struct _sai_stat_capability_list_t
{
    uint32_t count;
    sai_stat_capability_t *list;
} sai_stat_capability_list_t;

#endif /* __SAITYPES_H_ */
