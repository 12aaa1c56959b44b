/**
 * @file scenario.h
 * @brief Traffic scenario of libsai-vasic: the switch shape and the traffic
 *        sources. Format: vasic/SCENARIO.md. Internal to libsai-vasic.
 */
#ifndef VASIC_SCENARIO_H
#define VASIC_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#define VSCN_NO_STOP UINT64_MAX

/** Kinds of traffic sources (also the index of the per-kind totals). */
enum vscn_kind {
    VSCN_GREEDY = 0,
    VSCN_INCAST = 1,
    VSCN_ONOFF = 2,
    VSCN_KINDS = 3
};

enum vscn_sched {
    VSCN_SCHED_RR = 0, /**< packet round robin among non-empty queues */
    VSCN_SCHED_SP = 1  /**< strict priority, highest queue index first */
};

struct vscn_switch {
    uint32_t ports;
    uint32_t queues;        /**< egress queues per port, <= 64 */
    uint64_t speed_bps;
    uint64_t buffer_bytes;  /**< B: size of the shared egress pool */
    int sched;              /**< enum vscn_sched */
    uint32_t step_ns;
    uint32_t pkt_bytes;
    int dynamic_th;         /**< dynamic threshold of the default profile */
    int th_min, th_max;     /**< accepted SHARED_DYNAMIC_TH range */
    uint64_t seed;
};

struct vscn_source {
    int kind;               /**< enum vscn_kind */
    int line;               /**< line of the directive (1-based) */
    uint32_t port, queue;
    uint64_t rate_bps;      /**< greedy, onoff */
    uint64_t start_ns;
    uint64_t stop_ns;       /**< VSCN_NO_STOP if none */
    /* incast */
    uint64_t burst_bytes;   /**< total bytes of one burst = per_sender * fanin */
    uint32_t fanin;
    uint64_t sender_bps;
    uint64_t period_ns;     /**< 0 if Poisson */
    double poisson_hz;      /**< 0 if periodic */
    /* onoff */
    uint64_t on_ns, off_ns;
};

struct vscn {
    struct vscn_switch sw;
    struct vscn_source *src;
    size_t n_src, cap_src;
};

/** Fill @p s with the default scenario (no traffic). */
void vscn_defaults(struct vscn *s);

/**
 * Parse scenario text. @p name is the file name used in error messages
 * ("scenario:<name>:<line>: <what>"). On error returns -1 and writes the
 * message to @p err; @p s is left empty.
 */
int vscn_parse_text(const char *text, const char *name, struct vscn *s, char *err, size_t err_len);

/** Read and parse a scenario file. */
int vscn_parse_file(const char *path, struct vscn *s, char *err, size_t err_len);

void vscn_free(struct vscn *s);

#endif /* VASIC_SCENARIO_H */
