/**
 * @file vasic.h
 * @brief Extension symbols of libsai-vasic, the virtual shared-buffer switch
 *        ASIC that implements a subset of the SAI API.
 *
 * libsai-vasic is a libsai: it exports sai_api_initialize, sai_api_query,
 * sai_api_uninitialize, sai_log_set, sai_object_type_query and
 * sai_query_stats_capability, and serves the switch, port, queue and buffer
 * method tables, each of the official length (unimplemented members return
 * SAI_STATUS_NOT_IMPLEMENTED). The functions below are not
 * SAI; they drive and inspect the model (clock, traffic totals, fault
 * injection). Like a vendor libsai, the library holds one switch per process.
 *
 * Profile keys read at create_switch (through profile_get_value):
 *   VASIC_SCENARIO       path of a scenario file (see vasic/SCENARIO.md)
 *   VASIC_SCENARIO_TEXT  scenario text inline (used if VASIC_SCENARIO is unset)
 *   VASIC_CLOCK          "realtime" (default) or "manual"
 * and three that make it behave as a vendor's libsai may:
 *   VASIC_UNSUPPORTED_STATS  comma-separated counters the switch lacks
 *                            (e.g. "SAI_QUEUE_STAT_DROPPED_BYTES")
 *   VASIC_STATS_CAPABILITY   "on" (default) or "off": sai_query_stats_capability
 *                            returns SAI_STATUS_NOT_IMPLEMENTED
 *   VASIC_TH_REFUSAL         status of a dynamic threshold outside th_min..th_max:
 *                            "invalid_attr_value" (default), "attr_not_supported",
 *                            "not_supported" or "invalid_parameter"
 *
 * Functions returning int return 0 on success or a negative errno value:
 *   -ENODEV   no switch (sai_api_initialize/create_switch not done)
 *   -ENOTSUP  operation not available in this clock mode
 *   -EINVAL   bad argument
 */
#ifndef ALPHAD_VASIC_H
#define ALPHAD_VASIC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define VASIC_API __declspec(dllexport)
#else
#define VASIC_API __attribute__((visibility("default")))
#endif

/**
 * Traffic accounting per source kind, in bytes since create_switch.
 * Append-only: new fields go at the end.
 */
struct vasic_totals {
    uint64_t incast_offered_bytes;   /**< bytes emitted by incast bursts */
    uint64_t incast_dropped_bytes;   /**< of those, dropped at admission */
    uint64_t incast_delivered_bytes; /**< of those, transmitted */
    uint64_t greedy_offered_bytes;
    uint64_t greedy_dropped_bytes;
    uint64_t greedy_delivered_bytes;
    uint64_t onoff_offered_bytes;
    uint64_t onoff_dropped_bytes;
    uint64_t onoff_delivered_bytes;
    uint64_t incast_bursts;          /**< bursts started */
    uint64_t incast_bursts_skipped;  /**< bursts not started: all burst slots of the source busy */
    uint64_t model_ns;               /**< model time */
    uint64_t lag_ns;                 /**< realtime clock: wall time minus model time, last measured */
    uint64_t max_lag_ns;             /**< realtime clock: largest lag seen */
    uint64_t steps;                  /**< model steps executed (idle stretches skipped in one go) */
};

/** Advance the model by @p ns nanoseconds (manual clock only; -ENOTSUP in realtime mode).
 *  Time below one step is carried over to the next call. */
VASIC_API int vasic_advance(uint64_t ns);

/** Current model time in nanoseconds (0 without a switch). */
VASIC_API uint64_t vasic_now_ns(void);

/** Detail of the last failure (e.g. "scenario:<file>:<line>: ..."); reset to ""
 *  at the start of every SAI object call, so after a failed call it describes
 *  that call. Process-wide; the text may change when another thread calls in. */
VASIC_API const char *vasic_last_error(void);

/** Copy the traffic totals into @p out. */
VASIC_API int vasic_totals(struct vasic_totals *out);

/**
 * Make the next @p count SAI calls of kind @p what return SAI_STATUS_FAILURE.
 * Kinds: "get_stats" (queue and pool get/get_ext/clear stats), "set_profile"
 * (set_buffer_profile_attribute), "create_profile", "remove_profile",
 * "set_queue" (set_queue_attribute), "get_attr" (every get_*_attribute).
 * count 0 cancels. -EINVAL for an unknown kind or negative count.
 */
VASIC_API int vasic_inject_fault(const char *what, int count);

/** Number of buffer profiles that exist (the default one included). */
VASIC_API int vasic_profile_count(void);

#ifdef __cplusplus
}
#endif

#endif /* ALPHAD_VASIC_H */
