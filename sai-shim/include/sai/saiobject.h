/**
 * @file saiobject.h
 * @brief Capability queries used by alphad (subset of SAI v1.18.1 inc/saiobject.h).
 */
#ifndef __SAIOBJECT_H_
#define __SAIOBJECT_H_

#include "saitypes.h"

/**
 * Statistics the implementation supports for objects of @p object_type, each
 * with its modes (sai_stats_mode_t bits). SAI_STATUS_BUFFER_OVERFLOW with
 * count set to the number needed when the list is too short.
 */
sai_status_t sai_query_stats_capability(
        _In_ sai_object_id_t switch_id,
        _In_ sai_object_type_t object_type,
        _Inout_ sai_stat_capability_list_t *stats_capability);

#endif /* __SAIOBJECT_H_ */
