/**
 * @file model.c
 * @brief Shared-buffer switch model: DT admission, per-port schedulers,
 *        traffic sources. See model.h.
 *
 * Cost per step is proportional to the number of emitting sources plus the
 * number of ports with a non-empty queue (bitmaps), and stretches with no
 * emitting source and no queued packet are skipped in one go.
 */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEVER UINT64_MAX
#define PKT_SIZE_MASK 0x3fffffffu

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* xorshift64* */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* Exponential inter-arrival time in ns for a Poisson process of rate hz (>= 1 ns). */
static uint64_t rng_exp_ns(uint64_t *s, double hz)
{
    double u = (double)((rng_next(s) >> 11) + 1) * (1.0 / 9007199254740992.0); /* (0,1] */
    double ns = -log(u) / hz * 1e9;
    if (ns < 1.0)
        return 1;
    if (ns > 1e18)
        return (uint64_t)1e18;
    return (uint64_t)ns;
}

static int mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a && b > UINT64_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

/* ---------------------------------------------------------------- profiles */

int vm_profile_alloc(struct vm *m)
{
    uint32_t slot = 0;
    while (slot < m->n_profiles && m->profiles[slot].used)
        slot++;
    if (slot == m->n_profiles) {
        if (m->n_profiles >= (1u << 24) - 1)
            return -1;
        if (m->n_profiles == m->cap_profiles) {
            uint32_t cap = m->cap_profiles ? m->cap_profiles * 2 : 16;
            struct vm_profile *p = realloc(m->profiles, (size_t)cap * sizeof(*p));
            if (!p)
                return -1;
            memset(p + m->cap_profiles, 0, (size_t)(cap - m->cap_profiles) * sizeof(*p));
            m->profiles = p;
            m->cap_profiles = cap;
        }
        m->n_profiles++;
    }
    struct vm_profile *p = &m->profiles[slot];
    uint32_t gen = (p->gen + 1) & 0xffffffu;
    memset(p, 0, sizeof(*p));
    p->gen = gen ? gen : 1;
    p->used = 1;
    m->live_profiles++;
    return (int)slot;
}

void vm_profile_free(struct vm *m, uint32_t slot)
{
    if (slot < m->n_profiles && m->profiles[slot].used) {
        m->profiles[slot].used = 0;
        m->live_profiles--;
    }
}

void vm_queue_set_profile(struct vm *m, uint32_t qi, uint32_t slot)
{
    struct vm_queue *q = &m->queues[qi];
    m->profiles[q->profile].refs--;
    q->profile = slot;
    m->profiles[slot].refs++;
}

/* ---------------------------------------------------------------- data path */

static int ring_grow(struct vm_queue *q)
{
    uint32_t ncap = q->cap ? q->cap * 2 : 16;
    uint64_t *r;
    if (ncap == 0)
        return -1;
    r = malloc((size_t)ncap * sizeof(*r));
    if (!r)
        return -1;
    for (uint32_t i = 0; i < q->count; i++)
        r[i] = q->ring[(q->head + i) & (q->cap - 1)];
    free(q->ring);
    q->ring = r;
    q->cap = ncap;
    q->head = 0;
    return 0;
}

/* Offer one packet to queue qi: DT admission, then enqueue or drop. */
static void vm_offer(struct vm *m, uint32_t qi, uint32_t size, int kind)
{
    struct vm_queue *q = &m->queues[qi];
    const struct vm_profile *p = &m->profiles[q->profile];
    uint64_t free_bytes = m->sw.buffer_bytes - m->pool_occ;
    m->offered[kind] += size;
    if (size > free_bytes)
        goto drop;
    if (p->mode == VM_TH_DYNAMIC) {
        /* DT: admit iff len_q < 2^k * (B - Q) */
        int k = p->dynamic_th;
        if (k >= 0) {
            if (q->len >= (free_bytes << k))
                goto drop;
        } else if ((q->len << -k) >= free_bytes) {
            goto drop;
        }
    } else if (q->len + size > p->static_th) {
        goto drop;
    }
    {
        const uint32_t key = ((uint32_t)kind << 30) | size;
        uint64_t *tail = q->count ? &q->ring[(q->head + q->count - 1) & (q->cap - 1)] : NULL;
        if (tail && (uint32_t)*tail == key && (*tail >> 32) < UINT32_MAX) {
            *tail += 1ull << 32; /* one more packet in the last run */
        } else {
            if (q->count == q->cap && ring_grow(q))
                goto drop;
            q->ring[(q->head + q->count) & (q->cap - 1)] = (1ull << 32) | key;
            q->count++;
        }
    }
    q->len += size;
    if (q->len > q->wm)
        q->wm = q->len;
    if (q->len > q->wm_total)
        q->wm_total = q->len;
    m->pool_occ += size;
    if (m->pool_occ > m->pool_wm)
        m->pool_wm = m->pool_occ;
    if (q->len == size) { /* was empty */
        struct vm_port *pt = &m->ports[q->port];
        if (pt->mask == 0) {
            m->busy[q->port >> 6] |= 1ull << (q->port & 63);
            m->n_busy++;
        }
        pt->mask |= 1ull << q->index;
    }
    return;
drop:
    q->drop_packets++;
    q->drop_bytes += size;
    m->pool_drop_packets++;
    m->dropped[kind] += size;
}

/* Next queue to serve on port pt. */
static inline uint32_t vm_pick(const struct vm *m, const struct vm_port *pt)
{
    if (m->sw.sched == VSCN_SCHED_SP)
        return 63u - (uint32_t)__builtin_clzll(pt->mask);
    uint64_t hi = pt->rr < 64 ? pt->mask & (~0ull << pt->rr) : 0;
    return (uint32_t)__builtin_ctzll(hi ? hi : pt->mask);
}

static void vm_port_tx(struct vm *m, uint32_t pi)
{
    struct vm_port *pt = &m->ports[pi];
    struct vm_queue *base = &m->queues[(size_t)pi * m->sw.queues];
    pt->credit += pt->rate;
    while (pt->mask) {
        uint32_t qx = vm_pick(m, pt);
        struct vm_queue *q = &base[qx];
        uint64_t run = q->ring[q->head];
        uint32_t pkt = (uint32_t)run;
        uint32_t size = pkt & PKT_SIZE_MASK;
        uint64_t cost = (uint64_t)size * VM_UNITS_PER_BYTE;
        if (pt->credit < cost)
            return; /* carry the credit to the next step */
        pt->credit -= cost;
        if ((run >> 32) > 1) {
            q->ring[q->head] = run - (1ull << 32);
        } else {
            q->head = (q->head + 1) & (q->cap - 1);
            q->count--;
        }
        q->len -= size;
        q->tx_bytes += size;
        q->tx_packets++;
        m->pool_occ -= size;
        m->delivered[pkt >> 30] += size;
        if (q->count == 0)
            pt->mask &= ~(1ull << qx);
        pt->rr = qx + 1;
    }
    /* all queues empty: an idle port does not hoard credit */
    pt->credit = 0;
    m->busy[pi >> 6] &= ~(1ull << (pi & 63));
    m->n_busy--;
}

static void vm_emit(struct vm *m, struct vm_source *s)
{
    const uint32_t pkt = m->sw.pkt_bytes;
    if (s->cfg.kind != VSCN_INCAST) {
        const uint64_t cost = (uint64_t)pkt * VM_UNITS_PER_BYTE;
        s->acc += s->rate;
        while (s->acc >= cost) {
            s->acc -= cost;
            vm_offer(m, s->qi, pkt, s->cfg.kind);
        }
        return;
    }
    /* incast: fanin senders in lock step, one packet each per round; the
     * last round carries each sender's remainder */
    for (uint32_t i = 0; i < s->n_bursts;) {
        struct vm_burst *b = &s->burst[i];
        int done = 0;
        b->acc += s->rate;
        for (;;) {
            uint32_t size = b->round + 1 == s->rounds ? s->last_size : pkt;
            uint64_t cost = (uint64_t)size * VM_UNITS_PER_BYTE;
            if (b->acc < cost)
                break;
            b->acc -= cost;
            vm_offer(m, s->qi, size, VSCN_INCAST);
            if (++b->sent == s->cfg.fanin) {
                b->sent = 0;
                if (++b->round == s->rounds) {
                    done = 1;
                    break;
                }
            }
        }
        if (done) {
            s->burst[i] = s->burst[--s->n_bursts];
            if (s->n_bursts == 0)
                m->active_dirty = 1;
        } else {
            i++;
        }
    }
}

/* ---------------------------------------------------------------- events */

static void vm_source_event(struct vm *m, struct vm_source *s, uint64_t t)
{
    const struct vscn_source *c = &s->cfg;
    switch (c->kind) {
    case VSCN_GREEDY:
        if (t >= c->stop_ns) {
            s->on = 0;
            s->next_event = NEVER;
        } else if (t >= c->start_ns) {
            if (!s->on)
                s->acc = 0;
            s->on = 1;
            s->next_event = c->stop_ns;
        } else {
            s->next_event = c->start_ns;
        }
        break;
    case VSCN_ONOFF:
        if (t >= c->stop_ns) {
            s->on = 0;
            s->next_event = NEVER;
        } else if (t < c->start_ns) {
            s->next_event = c->start_ns;
        } else if (c->off_ns == 0) {
            if (!s->on)
                s->acc = 0;
            s->on = 1;
            s->next_event = c->stop_ns;
        } else {
            uint64_t cycle = c->on_ns + c->off_ns;
            uint64_t ph = (t - c->start_ns) % cycle;
            int on = ph < c->on_ns;
            uint64_t nx = t - ph + (on ? c->on_ns : cycle);
            if (on && !s->on)
                s->acc = 0;
            s->on = on;
            s->next_event = nx < c->stop_ns ? nx : c->stop_ns;
        }
        break;
    case VSCN_INCAST:
        while (s->next_event <= t && s->next_event < c->stop_ns) {
            if (s->n_bursts < VM_MAX_BURSTS) {
                memset(&s->burst[s->n_bursts], 0, sizeof(s->burst[0]));
                s->n_bursts++;
                m->bursts++;
            } else {
                m->bursts_skipped++;
            }
            if (c->period_ns)
                s->next_event += c->period_ns;
            else
                s->next_event += rng_exp_ns(&s->rng, c->poisson_hz);
        }
        if (s->next_event >= c->stop_ns)
            s->next_event = NEVER;
        break;
    default:
        s->next_event = NEVER;
    }
}

static void vm_events(struct vm *m)
{
    uint64_t t = m->now_ns, next = NEVER;
    for (uint32_t i = 0; i < m->n_src; i++) {
        struct vm_source *s = &m->src[i];
        if (s->next_event <= t)
            vm_source_event(m, s, t);
        if (s->next_event < next)
            next = s->next_event;
    }
    m->next_event = next;
    m->active_dirty = 1;
}

static void vm_rebuild_active(struct vm *m)
{
    m->n_active = 0;
    for (uint32_t i = 0; i < m->n_src; i++) {
        const struct vm_source *s = &m->src[i];
        if (s->cfg.kind == VSCN_INCAST ? s->n_bursts > 0 : s->on)
            m->active[m->n_active++] = i;
    }
    m->active_dirty = 0;
}

static void vm_step(struct vm *m)
{
    if (m->now_ns >= m->next_event)
        vm_events(m);
    if (m->active_dirty)
        vm_rebuild_active(m);
    for (uint32_t i = 0; i < m->n_active; i++)
        vm_emit(m, &m->src[m->active[i]]);
    for (uint32_t w = 0; w < m->busy_words; w++) {
        uint64_t word = m->busy[w];
        while (word) {
            uint32_t b = (uint32_t)__builtin_ctzll(word);
            word &= word - 1;
            vm_port_tx(m, w * 64 + b);
        }
    }
    m->now_ns += m->sw.step_ns;
    m->steps++;
}

uint64_t vm_quiet_until(struct vm *m)
{
    if (m->active_dirty)
        vm_rebuild_active(m);
    if (m->n_active == 0 && m->n_busy == 0 && m->next_event > m->now_ns)
        return m->next_event;
    return m->now_ns;
}

void vm_run_until(struct vm *m, uint64_t t_end)
{
    const uint64_t step = m->sw.step_ns;
    while (t_end >= step && m->now_ns <= t_end - step) {
        if (m->active_dirty)
            vm_rebuild_active(m);
        if (m->n_active == 0 && m->n_busy == 0 && m->next_event > m->now_ns) {
            /* nothing emits, nothing queued: jump to the next event */
            uint64_t avail = (t_end - m->now_ns) / step;
            uint64_t need = m->next_event == NEVER ? avail
                                                   : (m->next_event - m->now_ns + step - 1) / step;
            uint64_t n = need < avail ? need : avail;
            m->now_ns += n * step;
            m->steps++;
            continue;
        }
        vm_step(m);
    }
}

/* ---------------------------------------------------------------- setup */

void vm_destroy(struct vm *m)
{
    if (!m)
        return;
    if (m->queues)
        for (uint32_t i = 0; i < m->n_queues; i++)
            free(m->queues[i].ring);
    free(m->queues);
    free(m->ports);
    free(m->profiles);
    free(m->src);
    free(m->active);
    free(m->busy);
    free(m);
}

struct vm *vm_create(const struct vscn *s, char *err, uint64_t err_len)
{
    struct vm *m = calloc(1, sizeof(*m));
    uint64_t seed;
    if (!m)
        goto nomem;
    m->sw = s->sw;
    m->n_ports = s->sw.ports;
    m->n_queues = s->sw.ports * s->sw.queues;
    m->ports = calloc(m->n_ports, sizeof(*m->ports));
    m->queues = calloc(m->n_queues, sizeof(*m->queues));
    m->busy_words = (m->n_ports + 63) / 64;
    m->busy = calloc(m->busy_words, sizeof(*m->busy));
    m->n_src = (uint32_t)s->n_src;
    m->src = calloc(m->n_src ? m->n_src : 1, sizeof(*m->src));
    m->active = calloc(m->n_src ? m->n_src : 1, sizeof(*m->active));
    if (!m->ports || !m->queues || !m->busy || !m->src || !m->active)
        goto nomem;
    for (uint32_t p = 0; p < m->n_ports; p++) {
        m->ports[p].speed_bps = s->sw.speed_bps;
        if (!mul_ok(s->sw.speed_bps, s->sw.step_ns, &m->ports[p].rate)) {
            snprintf(err, err_len, "scenario: speed_gbps x step_ns too large");
            goto fail;
        }
    }
    int d = vm_profile_alloc(m);
    if (d < 0)
        goto nomem;
    m->default_profile = (uint32_t)d;
    m->profiles[d].mode = VM_TH_DYNAMIC;
    m->profiles[d].dynamic_th = (int8_t)s->sw.dynamic_th;
    m->profiles[d].size = 0;
    m->profiles[d].refs = m->n_queues;
    for (uint32_t i = 0; i < m->n_queues; i++) {
        m->queues[i].port = i / s->sw.queues;
        m->queues[i].index = i % s->sw.queues;
        m->queues[i].profile = (uint32_t)d;
    }
    seed = s->sw.seed;
    for (uint32_t i = 0; i < m->n_src; i++) {
        struct vm_source *x = &m->src[i];
        const struct vscn_source *c = &s->src[i];
        uint64_t r;
        x->cfg = *c;
        x->qi = c->port * s->sw.queues + c->queue;
        x->rng = splitmix64(&seed) | 1;
        if (c->kind == VSCN_INCAST) {
            uint32_t pkt = s->sw.pkt_bytes;
            x->per_sender = (uint32_t)(c->burst_bytes / c->fanin);
            x->rounds = (x->per_sender + pkt - 1) / pkt;
            x->last_size = x->per_sender - (x->rounds - 1) * pkt;
            if (!mul_ok(c->sender_bps, c->fanin, &r) || !mul_ok(r, s->sw.step_ns, &x->rate)) {
                snprintf(err, err_len, "scenario: line %d: fanin x sender_gbps x step_ns too large",
                         c->line);
                goto fail;
            }
            x->next_event = c->period_ns ? c->start_ns : c->start_ns + rng_exp_ns(&x->rng, c->poisson_hz);
        } else {
            if (!mul_ok(c->rate_bps, s->sw.step_ns, &x->rate)) {
                snprintf(err, err_len, "scenario: line %d: rate_gbps x step_ns too large", c->line);
                goto fail;
            }
            x->next_event = c->start_ns;
        }
    }
    m->next_event = 0;
    m->active_dirty = 1;
    return m;
nomem:
    snprintf(err, err_len, "out of memory building the model");
fail:
    vm_destroy(m);
    return NULL;
}
