/**
 * @file model.h
 * @brief The shared-buffer switch model behind libsai-vasic. Internal.
 *
 * N ports x Q egress queues share one egress pool of B bytes. A packet of s
 * bytes for queue q is admitted iff
 *     len_q < 2^k_q * (B - Q_pool)   and   Q_pool + s <= B
 * (Dynamic Thresholds, Choudhury & Hahne; k_q = SHARED_DYNAMIC_TH of q's
 * buffer profile). Time advances in fixed steps of step_ns: in a step the
 * sources emit, packets are admitted or dropped, then each port sends
 * speed*step bytes (fractional credit carried) with round robin or strict
 * priority among its non-empty queues. The model is not thread-safe: the
 * SAI layer serialises access.
 */
#ifndef VASIC_MODEL_H
#define VASIC_MODEL_H

#include <stdint.h>

#include "scenario.h"

/** Credit and rate accumulators count bit*ns/s: one byte is 8e9 units. */
#define VM_UNITS_PER_BYTE 8000000000ull
#define VM_MAX_BURSTS 8

enum vm_threshold_mode {
    VM_TH_STATIC = 0,  /* = SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC */
    VM_TH_DYNAMIC = 1  /* = SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC */
};

struct vm_profile {
    int used;
    uint32_t gen;          /**< bumped when the slot is reused (stale ids fail) */
    uint64_t size;         /**< reserved buffer size (stored, not modelled) */
    int mode;              /**< enum vm_threshold_mode */
    int8_t dynamic_th;
    uint64_t static_th;
    uint32_t refs;         /**< queues that point at this profile */
};

struct vm_queue {
    uint64_t *ring;        /**< runs of equal packets: bits 0..29 size, 30..31 source
                                kind, 32..63 number of packets in the run */
    uint32_t cap, head, count; /**< ring capacity (power of 2), first run, runs */
    uint32_t port, index;
    uint32_t profile;      /**< slot in vm.profiles */
    uint64_t len;          /**< occupancy in bytes */
    uint64_t wm;           /**< SHARED_WATERMARK_BYTES: peak since last read-and-clear */
    uint64_t wm_total;     /**< WATERMARK_BYTES (same quantity, cleared separately) */
    uint64_t tx_bytes, tx_packets, drop_packets, drop_bytes;
};

struct vm_port {
    uint64_t speed_bps;
    uint64_t rate;         /**< credit units per step */
    uint64_t credit;
    uint64_t mask;         /**< bit i set: queue i non-empty */
    uint32_t rr;           /**< round robin: next queue index to consider */
};

struct vm_burst {
    uint64_t acc;
    uint32_t round, sent;  /**< current round, packets sent in it */
};

struct vm_source {
    struct vscn_source cfg;
    uint32_t qi;           /**< global queue index */
    uint64_t rate;         /**< credit units per step (incast: of one burst) */
    uint64_t acc;
    int on;
    uint64_t next_event;   /**< model time of the next state change */
    uint64_t rng;
    /* incast */
    uint32_t per_sender, rounds, last_size;
    uint32_t n_bursts;
    struct vm_burst burst[VM_MAX_BURSTS];
};

struct vm {
    struct vscn_switch sw;
    uint64_t now_ns;
    uint64_t steps;
    uint64_t pool_occ, pool_wm, pool_drop_packets;
    uint32_t n_ports, n_queues;
    struct vm_port *ports;
    struct vm_queue *queues;
    struct vm_profile *profiles;
    uint32_t n_profiles, cap_profiles, live_profiles;
    uint32_t default_profile;
    struct vm_source *src;
    uint32_t n_src;
    uint32_t *active;      /**< indices of emitting sources */
    uint32_t n_active;
    int active_dirty;
    uint64_t *busy;        /**< bitmap of ports with a non-empty queue */
    uint32_t busy_words, n_busy;
    uint64_t next_event;
    uint64_t offered[VSCN_KINDS], dropped[VSCN_KINDS], delivered[VSCN_KINDS];
    uint64_t bursts, bursts_skipped;
};

/** Build the model (takes the scenario's sources; the scenario may be freed after). */
struct vm *vm_create(const struct vscn *s, char *err, uint64_t err_len);
void vm_destroy(struct vm *m);

/** Model time up to which nothing happens (no emitting source, no queued
 *  packet): the next event, or now if the model is busy. */
uint64_t vm_quiet_until(struct vm *m);

/** Run whole steps while now + step_ns <= t_end. */
void vm_run_until(struct vm *m, uint64_t t_end);

/** Allocate a profile slot; returns the slot or -1 (no memory). */
int vm_profile_alloc(struct vm *m);
void vm_profile_free(struct vm *m, uint32_t slot);

/** Point queue @p qi at profile slot @p slot (reference counts kept). */
void vm_queue_set_profile(struct vm *m, uint32_t qi, uint32_t slot);

#endif /* VASIC_MODEL_H */
