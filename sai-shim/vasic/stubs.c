/**
 * @file stubs.c
 * @brief SAI_STATUS_NOT_IMPLEMENTED for every SAI method signature libsai-vasic
 *        leaves out (see stubs.h). Parameters are unused by design.
 */
#include "stubs.h"

#define NOT_IMPLEMENTED return SAI_STATUS_NOT_IMPLEMENTED

sai_status_t vs_ni_create(sai_object_id_t *id, sai_object_id_t sw, uint32_t n, const sai_attribute_t *a)
{
    NOT_IMPLEMENTED;
}

sai_status_t vs_ni_remove(sai_object_id_t id)
{
    NOT_IMPLEMENTED;
}

sai_status_t vs_ni_set(sai_object_id_t id, const sai_attribute_t *a)
{
    NOT_IMPLEMENTED;
}

sai_status_t vs_ni_get(sai_object_id_t id, uint32_t n, sai_attribute_t *a)
{
    NOT_IMPLEMENTED;
}

sai_status_t vs_ni_stats(sai_object_id_t id, uint32_t n, const sai_stat_id_t *ids, uint64_t *c)
{
    NOT_IMPLEMENTED;
}

sai_status_t vs_ni_stats_ext(sai_object_id_t id, uint32_t n, const sai_stat_id_t *ids, sai_stats_mode_t mode,
                             uint64_t *c)
{
    NOT_IMPLEMENTED;
}

sai_status_t vs_ni_clear(sai_object_id_t id, uint32_t n, const sai_stat_id_t *ids)
{
    NOT_IMPLEMENTED;
}

sai_status_t vs_ni_mdio_read(sai_object_id_t sw, uint32_t dev, uint32_t reg, uint32_t n, uint32_t *val)
{
    NOT_IMPLEMENTED;
}

sai_status_t vs_ni_mdio_write(sai_object_id_t sw, uint32_t dev, uint32_t reg, uint32_t n, const uint32_t *val)
{
    NOT_IMPLEMENTED;
}

sai_status_t vs_ni_bulk_create(sai_object_id_t sw, uint32_t n, const uint32_t *ac, const sai_attribute_t **a,
                               sai_bulk_op_error_mode_t mode, sai_object_id_t *id, sai_status_t *st)
{
    NOT_IMPLEMENTED;
}

sai_status_t vs_ni_bulk_remove(uint32_t n, const sai_object_id_t *id, sai_bulk_op_error_mode_t mode,
                               sai_status_t *st)
{
    NOT_IMPLEMENTED;
}

sai_status_t vs_ni_bulk_set(uint32_t n, const sai_object_id_t *id, const sai_attribute_t *a,
                            sai_bulk_op_error_mode_t mode, sai_status_t *st)
{
    NOT_IMPLEMENTED;
}

sai_status_t vs_ni_bulk_get(uint32_t n, const sai_object_id_t *id, const uint32_t *ac, sai_attribute_t **a,
                            sai_bulk_op_error_mode_t mode, sai_status_t *st)
{
    NOT_IMPLEMENTED;
}
