/**
 * @file alphad_sai.h
 * @brief libalphad-sai: the small, stable C ABI that the alphad daemon uses to
 *        read buffer telemetry from, and write per-queue DT alpha to, any libsai.
 *
 * The library loads a libsai by path (dlopen), initialises one switch, and
 * exposes:
 *   - enumeration of ports and egress queues (speed, queue index, object ids);
 *   - one call that reads the statistics of every queue and of the shared
 *     egress pool (counters with READ, the shared watermark with READ_AND_CLEAR);
 *   - setting the log2 alpha (SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH) of one
 *     queue: on the first change of a queue its buffer profile, which is
 *     usually shared by many queues, is cloned and the queue is pointed at the
 *     clone; later changes only set the clone's dynamic threshold;
 *   - restore: every queue back on its original profile, every clone removed.
 *
 * Handles are opaque. Status codes are append-only: a value, once published,
 * never changes meaning. Every function is safe to call with a NULL handle
 * (it returns ALPHAD_E_INVALID_ARG). A handle is not thread-safe: callers
 * serialise calls on one handle.
 *
 * ABI version: ALPHAD_SAI_ABI_VERSION, returned by alphad_sai_abi_version().
 */
#ifndef ALPHAD_SAI_H
#define ALPHAD_SAI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define ALPHAD_API __declspec(dllexport)
#else
#define ALPHAD_API __attribute__((visibility("default")))
#endif

/** Major ABI version; bumped only on an incompatible change. */
#define ALPHAD_SAI_ABI_VERSION 1u

/** Bounds of a log2 alpha accepted by the shim (SONiC YANG: dynamic_th -8..7). */
#define ALPHAD_LOG2_ALPHA_MIN (-8)
#define ALPHAD_LOG2_ALPHA_MAX 7

/** Status codes. Append-only: never renumber, never reuse. */
typedef enum alphad_status {
    ALPHAD_OK = 0,
    ALPHAD_E_INVALID_ARG = 1,   /**< NULL pointer, zero-sized buffer, bad key */
    ALPHAD_E_LOAD = 2,          /**< the libsai could not be loaded (dlopen) */
    ALPHAD_E_SYMBOL = 3,        /**< the libsai lacks a required symbol */
    ALPHAD_E_SAI = 4,           /**< a SAI call failed (see alphad_sai_last_error) */
    ALPHAD_E_NOT_FOUND = 5,     /**< queue index out of range / unknown object */
    ALPHAD_E_RANGE = 6,         /**< log2 alpha outside the accepted range */
    ALPHAD_E_NOMEM = 7,         /**< allocation failed */
    ALPHAD_E_NOT_SUPPORTED = 8, /**< e.g. static-threshold profile, no manual clock */
    ALPHAD_E_BUFFER_TOO_SMALL = 9, /**< caller's array shorter than needed */
    ALPHAD_E_STATE = 10         /**< call not valid in the handle's state */
} alphad_status_t;

/** Opaque handle to one opened libsai and its switch. */
typedef struct alphad_sai alphad_sai_t;

/** One key/value pair of the SAI service-method profile (profile_get_value). */
typedef struct alphad_kv {
    const char *key;
    const char *value;
} alphad_kv_t;

/** One egress queue, in the shim's stable order (port order, then queue index). */
typedef struct alphad_queue_info {
    uint64_t queue_oid;        /**< SAI object id of the queue */
    uint64_t port_oid;         /**< SAI object id of its port */
    uint64_t profile_oid;      /**< buffer profile the queue had when opened */
    uint32_t port_index;       /**< 0-based position of the port in the port list */
    uint32_t queue_index;      /**< SAI_QUEUE_ATTR_INDEX */
    uint32_t port_speed_mbps;  /**< SAI_PORT_ATTR_SPEED */
    int8_t   log2_alpha;       /**< dynamic threshold currently in effect */
    int8_t   original_log2_alpha; /**< dynamic threshold when opened */
    uint8_t  dynamic;          /**< 1 if the profile is in dynamic threshold mode */
    uint8_t  reserved;
} alphad_queue_info_t;

/**
 * Statistics of one queue. All fields are uint64_t so that an array of n
 * records is a contiguous n x 6 array of uint64_t.
 */
typedef struct alphad_queue_stats {
    uint64_t curr_occupancy_bytes;   /**< SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES */
    uint64_t shared_watermark_bytes; /**< SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES, read-and-clear */
    uint64_t bytes;                  /**< SAI_QUEUE_STAT_BYTES (transmitted) */
    uint64_t packets;                /**< SAI_QUEUE_STAT_PACKETS */
    uint64_t dropped_packets;        /**< SAI_QUEUE_STAT_DROPPED_PACKETS */
    uint64_t dropped_bytes;          /**< SAI_QUEUE_STAT_DROPPED_BYTES */
} alphad_queue_stats_t;

/** Statistics of the shared egress pool used by the managed queues. */
typedef struct alphad_pool_stats {
    uint64_t size_bytes;             /**< SAI_BUFFER_POOL_ATTR_SIZE */
    uint64_t curr_occupancy_bytes;   /**< SAI_BUFFER_POOL_STAT_CURR_OCCUPANCY_BYTES */
    uint64_t watermark_bytes;        /**< SAI_BUFFER_POOL_STAT_WATERMARK_BYTES, read-and-clear */
} alphad_pool_stats_t;

/** ABI version of the loaded library (ALPHAD_SAI_ABI_VERSION at build time). */
ALPHAD_API uint32_t alphad_sai_abi_version(void);

/** Static, human-readable text of a status code; never NULL. */
ALPHAD_API const char *alphad_strerror(alphad_status_t status);

/**
 * Load the libsai at @p libsai_path, initialise it with the given profile
 * key/values (served through sai_service_method_table_t), create/init the
 * switch and discover ports, queues and the egress pool.
 *
 * @param[in]  libsai_path  path of the shared object to dlopen
 * @param[in]  profile      array of n_profile key/value pairs (may be NULL if 0);
 *                          copied, the caller keeps ownership
 * @param[out] out          new handle; release with alphad_sai_close()
 * @param[out] err          optional buffer for a detailed error message
 * @param[in]  err_len      size of @p err
 */
ALPHAD_API alphad_status_t alphad_sai_open(const char *libsai_path,
                                           const alphad_kv_t *profile, size_t n_profile,
                                           alphad_sai_t **out, char *err, size_t err_len);

/** Uninitialise the libsai and free the handle. Does NOT restore: call
 *  alphad_sai_restore() first if the original configuration must come back. */
ALPHAD_API void alphad_sai_close(alphad_sai_t *h);

/** Detail of the last failure on this handle ("" if none); owned by the handle. */
ALPHAD_API const char *alphad_sai_last_error(const alphad_sai_t *h);

/** Number of ports and of managed egress queues. */
ALPHAD_API alphad_status_t alphad_sai_counts(const alphad_sai_t *h,
                                             uint32_t *n_ports, uint32_t *n_queues);

/** Fill @p out (capacity @p cap) with the queue table; ALPHAD_E_BUFFER_TOO_SMALL if cap < n. */
ALPHAD_API alphad_status_t alphad_sai_queues(const alphad_sai_t *h,
                                             alphad_queue_info_t *out, uint32_t cap);

/**
 * Read every queue's statistics and the pool's in one call.
 * @param[out] q        array of exactly n_queues records (order of alphad_sai_queues)
 * @param[in]  n        capacity of q; ALPHAD_E_BUFFER_TOO_SMALL if < n_queues
 * @param[out] pool     pool statistics (may be NULL)
 * @param[out] t_ns     time of the read in nanoseconds (model time for a
 *                      virtual ASIC, CLOCK_MONOTONIC otherwise); may be NULL
 * The shared watermarks of queues and pool are read with READ_AND_CLEAR: each
 * value is the peak since the previous call. Counters the libsai does not
 * support read as 0 (see alphad_sai_stats_supported()).
 */
ALPHAD_API alphad_status_t alphad_sai_read_stats(alphad_sai_t *h,
                                                 alphad_queue_stats_t *q, uint32_t n,
                                                 alphad_pool_stats_t *pool, uint64_t *t_ns);

/** Bits of alphad_sai_stats_supported(): queue counters, in alphad_queue_stats_t order. */
#define ALPHAD_STAT_QUEUE_CURR_OCCUPANCY 0x01u
#define ALPHAD_STAT_QUEUE_SHARED_WATERMARK 0x02u
#define ALPHAD_STAT_QUEUE_BYTES 0x04u
#define ALPHAD_STAT_QUEUE_PACKETS 0x08u
#define ALPHAD_STAT_QUEUE_DROPPED_PACKETS 0x10u
#define ALPHAD_STAT_QUEUE_DROPPED_BYTES 0x20u
#define ALPHAD_STAT_QUEUE_ALL 0x3fu
/** ... and pool counters, in alphad_pool_stats_t order after size_bytes. */
#define ALPHAD_STAT_POOL_CURR_OCCUPANCY 0x01u
#define ALPHAD_STAT_POOL_WATERMARK 0x02u
#define ALPHAD_STAT_POOL_ALL 0x03u

/**
 * Which counters the libsai supports (ALPHAD_STAT_* bits): found at open with
 * sai_query_stats_capability where the libsai implements it, else by reading
 * each counter once. alphad_sai_read_stats() reads only these; the others read
 * as 0. A counter the libsai refuses later with NOT_SUPPORTED is dropped here
 * rather than failing the read. Either pointer may be NULL.
 */
ALPHAD_API alphad_status_t alphad_sai_stats_supported(const alphad_sai_t *h, uint32_t *queue_stats,
                                                      uint32_t *pool_stats);

/**
 * Set the dynamic threshold (log2 alpha) of queue @p queue (index into the
 * queue table). Clones the queue's profile on its first change. ALPHAD_E_RANGE
 * if k is outside [ALPHAD_LOG2_ALPHA_MIN, ALPHAD_LOG2_ALPHA_MAX] or the libsai
 * refuses the value (INVALID_ATTR_VALUE, ATTR_NOT_SUPPORTED on the threshold,
 * NOT_SUPPORTED or INVALID_PARAMETER: vendors accept narrower ranges, e.g.
 * -7..3); ALPHAD_E_NOT_SUPPORTED for a static profile.
 */
ALPHAD_API alphad_status_t alphad_sai_set_log2_alpha(alphad_sai_t *h, uint32_t queue, int8_t k);

/**
 * Set several queues at once. Stops at the first failure; *n_done (optional)
 * tells how many were applied, in order.
 */
ALPHAD_API alphad_status_t alphad_sai_set_log2_alpha_bulk(alphad_sai_t *h,
                                                          const uint32_t *queues,
                                                          const int8_t *k, uint32_t n,
                                                          uint32_t *n_done);

/** Current log2 alpha of queue @p queue. */
ALPHAD_API alphad_status_t alphad_sai_get_log2_alpha(const alphad_sai_t *h, uint32_t queue,
                                                     int8_t *k);

/**
 * Put every changed queue back on its original profile and remove every
 * clone. Idempotent. Attempts all queues even if one fails; returns the first
 * error.
 */
ALPHAD_API alphad_status_t alphad_sai_restore(alphad_sai_t *h);

/**
 * Advance the model clock by @p ns nanoseconds. Only for a libsai that is a
 * model with a manual clock (it exports `vasic_advance`); otherwise
 * ALPHAD_E_NOT_SUPPORTED.
 */
ALPHAD_API alphad_status_t alphad_sai_advance(alphad_sai_t *h, uint64_t ns);

#ifdef __cplusplus
}
#endif

#endif /* ALPHAD_SAI_H */
