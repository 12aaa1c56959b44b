/**
 * @file scenario.c
 * @brief Parser of the libsai-vasic traffic scenario format (vasic/SCENARIO.md).
 *
 * One directive per line, '#' starts a comment, arguments are key=value
 * tokens. The switch directive is read first (whatever its position) so that
 * traffic directives can be checked against the switch shape. Every error is
 * reported as "scenario:<name>:<line>: <what is wrong>".
 */
#include "scenario.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 32
#define MAX_PORTS 4096u
#define MAX_QUEUES 64u
#define MAX_SOURCES 1000000u

struct ctx {
    const char *name;
    char *err;
    size_t err_len;
    struct vscn *s;
};

struct line {
    int no;
    const char *directive;
    int n;
    const char *key[MAX_TOKENS];
    const char *val[MAX_TOKENS];
};

static int fail(struct ctx *c, int line, const char *fmt, ...)
{
    if (c->err && c->err_len) {
        int n = snprintf(c->err, c->err_len, "scenario:%s:%d: ", c->name, line);
        if (n >= 0 && (size_t)n < c->err_len) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(c->err + n, c->err_len - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

void vscn_defaults(struct vscn *s)
{
    memset(s, 0, sizeof(*s));
    s->sw.ports = 16;
    s->sw.queues = 8;
    s->sw.speed_bps = 10000000000ull;
    /* 9.6 KB per port per Gbps (Trident2-like, as in the ABM evaluation) */
    s->sw.buffer_bytes = (uint64_t)llround(9.6 * 1024.0 * 16 * 10);
    s->sw.sched = VSCN_SCHED_RR;
    s->sw.step_ns = 1000;
    s->sw.pkt_bytes = 1500;
    s->sw.dynamic_th = -1;
    s->sw.th_min = -8;
    s->sw.th_max = 7;
    s->sw.seed = 1;
}

void vscn_free(struct vscn *s)
{
    if (!s)
        return;
    free(s->src);
    s->src = NULL;
    s->n_src = s->cap_src = 0;
}

/* ---------------------------------------------------------------- values */

static const char *get(const struct line *l, const char *key)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->key[i], key) == 0)
            return l->val[i];
    return NULL;
}

static int check_keys(struct ctx *c, const struct line *l, const char *const *allowed)
{
    for (int i = 0; i < l->n; i++) {
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            if (strcmp(*a, l->key[i]) == 0)
                ok = 1;
        if (!ok) {
            char list[512] = "";
            size_t used = 0;
            for (const char *const *a = allowed; *a; a++) {
                int n = snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "", *a);
                if (n < 0 || (size_t)n >= sizeof(list) - used)
                    break;
                used += (size_t)n;
            }
            return fail(c, l->no, "unknown key '%s' for directive '%s' (allowed: %s)", l->key[i],
                        l->directive, list);
        }
        for (int j = 0; j < i; j++)
            if (strcmp(l->key[j], l->key[i]) == 0)
                return fail(c, l->no, "duplicate key '%s'", l->key[i]);
    }
    return 0;
}

static int parse_u64(struct ctx *c, const struct line *l, const char *key, const char *v, uint64_t lo,
                     uint64_t hi, uint64_t *out)
{
    const char *p = v;
    if (*p == '\0')
        return fail(c, l->no, "missing value for key '%s'", key);
    for (; *p; p++)
        if (*p < '0' || *p > '9')
            return fail(c, l->no, "bad number '%s' for key '%s' (expected a non-negative integer)",
                        v, key);
    errno = 0;
    unsigned long long x = strtoull(v, NULL, 10);
    if (errno == ERANGE || x < lo || x > hi)
        return fail(c, l->no, "%s=%s out of range (%llu..%llu)", key, v, (unsigned long long)lo,
                    (unsigned long long)hi);
    *out = x;
    return 0;
}

static int parse_int(struct ctx *c, const struct line *l, const char *key, const char *v, long lo,
                     long hi, int *out)
{
    char *end = NULL;
    if (*v == '\0')
        return fail(c, l->no, "missing value for key '%s'", key);
    errno = 0;
    long x = strtol(v, &end, 10);
    if (*end != '\0' || end == v)
        return fail(c, l->no, "bad number '%s' for key '%s' (expected an integer)", v, key);
    if (errno == ERANGE || x < lo || x > hi)
        return fail(c, l->no, "%s=%s out of range (%ld..%ld)", key, v, lo, hi);
    *out = (int)x;
    return 0;
}

/* A finite decimal number in (lo, hi] if lo_open, else [lo, hi]. */
static int parse_num(struct ctx *c, const struct line *l, const char *key, const char *v, double lo,
                     int lo_open, double hi, double *out)
{
    char *end = NULL;
    if (*v == '\0')
        return fail(c, l->no, "missing value for key '%s'", key);
    errno = 0;
    double x = strtod(v, &end);
    if (*end != '\0' || end == v || !isfinite(x) || v[0] == '+' || (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')))
        return fail(c, l->no, "bad number '%s' for key '%s' (expected a decimal number)", v, key);
    if ((lo_open ? x <= lo : x < lo) || x > hi)
        return fail(c, l->no, "%s=%s out of range (%s%g..%g)", key, v, lo_open ? ">" : "", lo, hi);
    *out = x;
    return 0;
}

/* Index list: "3", "0-7", "0,2,4-5", "all". Writes a sorted, de-duplicated list. */
static int parse_list(struct ctx *c, const struct line *l, const char *key, const char *v,
                      uint32_t limit, const char *what, uint32_t *out, uint32_t *n_out)
{
    unsigned char seen[MAX_PORTS > MAX_QUEUES ? MAX_PORTS : MAX_QUEUES];
    memset(seen, 0, limit);
    if (*v == '\0')
        return fail(c, l->no, "missing value for key '%s'", key);
    if (strcmp(v, "all") == 0) {
        for (uint32_t i = 0; i < limit; i++)
            seen[i] = 1;
    } else {
        const char *p = v;
        while (*p) {
            char *end = NULL;
            if (*p < '0' || *p > '9')
                return fail(c, l->no, "bad %s list '%s' for key '%s' (expected e.g. 3, 0-7, 0,2,5 or all)",
                            what, v, key);
            unsigned long a = strtoul(p, &end, 10), b = a;
            p = end;
            if (*p == '-') {
                p++;
                if (*p < '0' || *p > '9')
                    return fail(c, l->no, "bad %s list '%s' for key '%s' (expected e.g. 3, 0-7, 0,2,5 or all)",
                                what, v, key);
                b = strtoul(p, &end, 10);
                p = end;
            }
            if (*p == ',') {
                p++;
                if (*p == '\0')
                    return fail(c, l->no, "bad %s list '%s' for key '%s' (trailing comma)", what, v, key);
            } else if (*p != '\0') {
                return fail(c, l->no, "bad %s list '%s' for key '%s' (expected e.g. 3, 0-7, 0,2,5 or all)",
                            what, v, key);
            }
            if (b < a)
                return fail(c, l->no, "bad %s range %lu-%lu for key '%s' (end before start)", what, a, b, key);
            if (b >= limit)
                return fail(c, l->no, "%s %lu out of range (the switch has %u %ss: 0-%u)", what, b, limit,
                            what, limit - 1);
            for (unsigned long i = a; i <= b; i++)
                seen[i] = 1;
        }
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < limit; i++)
        if (seen[i])
            out[n++] = i;
    *n_out = n;
    return 0;
}

static int opt_ms(struct ctx *c, const struct line *l, const char *key, uint64_t *ns)
{
    const char *v = get(l, key);
    double ms;
    if (!v)
        return 0;
    if (parse_num(c, l, key, v, 0.0, 0, 1e9, &ms))
        return -1;
    *ns = (uint64_t)llround(ms * 1e6);
    return 0;
}

static int req_gbps(struct ctx *c, const struct line *l, const char *key, uint64_t *bps)
{
    const char *v = get(l, key);
    double g;
    if (!v)
        return fail(c, l->no, "missing required key '%s' for directive '%s'", key, l->directive);
    if (parse_num(c, l, key, v, 0.0, 1, 100000.0, &g))
        return -1;
    *bps = (uint64_t)llround(g * 1e9);
    if (*bps == 0)
        return fail(c, l->no, "%s=%s is below 1 bit/s", key, v);
    return 0;
}

/* ---------------------------------------------------------------- switch */

static int do_switch(struct ctx *c, const struct line *l)
{
    static const char *const keys[] = {"ports", "queues", "speed_gbps", "buffer_bytes",
                                       "buffer_kb_per_port_per_gbps", "scheduler", "step_ns",
                                       "pkt_bytes", "dynamic_th", "th_min", "th_max", "seed", NULL};
    struct vscn_switch *sw = &c->s->sw;
    const char *v;
    uint64_t u;
    double d;
    if (check_keys(c, l, keys))
        return -1;
    if ((v = get(l, "ports"))) {
        if (parse_u64(c, l, "ports", v, 1, MAX_PORTS, &u))
            return -1;
        sw->ports = (uint32_t)u;
    }
    if ((v = get(l, "queues"))) {
        if (parse_u64(c, l, "queues", v, 1, MAX_QUEUES, &u))
            return -1;
        sw->queues = (uint32_t)u;
    }
    if ((v = get(l, "speed_gbps"))) {
        if (req_gbps(c, l, "speed_gbps", &sw->speed_bps))
            return -1;
    }
    const char *bb = get(l, "buffer_bytes"), *bk = get(l, "buffer_kb_per_port_per_gbps");
    if (bb && bk)
        return fail(c, l->no, "conflicting keys 'buffer_bytes' and 'buffer_kb_per_port_per_gbps' (give one)");
    if (bb) {
        if (parse_u64(c, l, "buffer_bytes", bb, 1, 1ull << 40, &sw->buffer_bytes))
            return -1;
    } else {
        double kb = 9.6;
        if (bk && parse_num(c, l, "buffer_kb_per_port_per_gbps", bk, 0.0, 1, 1e6, &kb))
            return -1;
        d = kb * 1024.0 * (double)sw->ports * ((double)sw->speed_bps / 1e9);
        if (d < 1.0 || d > (double)(1ull << 40))
            return fail(c, l->no, "buffer of %.0f bytes out of range (1..%llu)", d, 1ull << 40);
        sw->buffer_bytes = (uint64_t)llround(d);
    }
    if ((v = get(l, "scheduler"))) {
        if (strcmp(v, "rr") == 0)
            sw->sched = VSCN_SCHED_RR;
        else if (strcmp(v, "sp") == 0)
            sw->sched = VSCN_SCHED_SP;
        else
            return fail(c, l->no, "bad value '%s' for key 'scheduler' (expected rr or sp)", v);
    }
    if ((v = get(l, "step_ns"))) {
        if (parse_u64(c, l, "step_ns", v, 1, 1000000, &u))
            return -1;
        sw->step_ns = (uint32_t)u;
    }
    if ((v = get(l, "pkt_bytes"))) {
        if (parse_u64(c, l, "pkt_bytes", v, 64, 65535, &u))
            return -1;
        sw->pkt_bytes = (uint32_t)u;
    }
    if ((v = get(l, "th_min")) && parse_int(c, l, "th_min", v, -20, 20, &sw->th_min))
        return -1;
    if ((v = get(l, "th_max")) && parse_int(c, l, "th_max", v, -20, 20, &sw->th_max))
        return -1;
    if (sw->th_min > sw->th_max)
        return fail(c, l->no, "th_min=%d is above th_max=%d", sw->th_min, sw->th_max);
    if ((v = get(l, "dynamic_th")) && parse_int(c, l, "dynamic_th", v, -128, 127, &sw->dynamic_th))
        return -1;
    if (sw->dynamic_th < sw->th_min || sw->dynamic_th > sw->th_max)
        return fail(c, l->no, "dynamic_th=%d outside th_min..th_max (%d..%d)", sw->dynamic_th,
                    sw->th_min, sw->th_max);
    if ((v = get(l, "seed")) && parse_u64(c, l, "seed", v, 0, UINT64_MAX, &sw->seed))
        return -1;
    if (sw->pkt_bytes > sw->buffer_bytes)
        return fail(c, l->no, "pkt_bytes=%u exceeds the buffer (%llu bytes)", sw->pkt_bytes,
                    (unsigned long long)sw->buffer_bytes);
    return 0;
}

/* ---------------------------------------------------------------- traffic */

static int add_sources(struct ctx *c, const struct line *l, const struct vscn_source *tmpl)
{
    uint32_t ports[MAX_PORTS], queues[MAX_QUEUES];
    uint32_t np = 0, nq = 0;
    const char *pv = get(l, "port"), *qv = get(l, "queue");
    struct vscn *s = c->s;
    if (!pv)
        return fail(c, l->no, "missing required key 'port' for directive '%s'", l->directive);
    if (!qv)
        return fail(c, l->no, "missing required key 'queue' for directive '%s'", l->directive);
    if (parse_list(c, l, "port", pv, s->sw.ports, "port", ports, &np))
        return -1;
    if (parse_list(c, l, "queue", qv, s->sw.queues, "queue", queues, &nq))
        return -1;
    if (s->n_src + (size_t)np * nq > MAX_SOURCES)
        return fail(c, l->no, "too many traffic sources (limit %u)", MAX_SOURCES);
    if (s->n_src + (size_t)np * nq > s->cap_src) {
        size_t cap = s->cap_src ? s->cap_src : 16;
        while (cap < s->n_src + (size_t)np * nq)
            cap *= 2;
        struct vscn_source *p = realloc(s->src, cap * sizeof(*p));
        if (!p)
            return fail(c, l->no, "out of memory");
        s->src = p;
        s->cap_src = cap;
    }
    for (uint32_t i = 0; i < np; i++)
        for (uint32_t j = 0; j < nq; j++) {
            struct vscn_source *x = &s->src[s->n_src++];
            *x = *tmpl;
            x->port = ports[i];
            x->queue = queues[j];
        }
    return 0;
}

static int common_window(struct ctx *c, const struct line *l, struct vscn_source *t)
{
    t->start_ns = 0;
    t->stop_ns = VSCN_NO_STOP;
    if (opt_ms(c, l, "start_ms", &t->start_ns) || opt_ms(c, l, "stop_ms", &t->stop_ns))
        return -1;
    if (t->stop_ns != VSCN_NO_STOP && t->stop_ns <= t->start_ns)
        return fail(c, l->no, "stop_ms must be after start_ms");
    return 0;
}

static int do_greedy(struct ctx *c, const struct line *l)
{
    static const char *const keys[] = {"port", "queue", "rate_gbps", "start_ms", "stop_ms", NULL};
    struct vscn_source t;
    memset(&t, 0, sizeof(t));
    t.kind = VSCN_GREEDY;
    t.line = l->no;
    if (check_keys(c, l, keys) || req_gbps(c, l, "rate_gbps", &t.rate_bps) || common_window(c, l, &t))
        return -1;
    return add_sources(c, l, &t);
}

static int do_onoff(struct ctx *c, const struct line *l)
{
    static const char *const keys[] = {"port", "queue", "rate_gbps", "on_ms", "off_ms",
                                       "start_ms", "stop_ms", NULL};
    struct vscn_source t;
    double ms;
    const char *v;
    memset(&t, 0, sizeof(t));
    t.kind = VSCN_ONOFF;
    t.line = l->no;
    if (check_keys(c, l, keys) || req_gbps(c, l, "rate_gbps", &t.rate_bps) || common_window(c, l, &t))
        return -1;
    if (!(v = get(l, "on_ms")))
        return fail(c, l->no, "missing required key 'on_ms' for directive 'onoff'");
    if (parse_num(c, l, "on_ms", v, 0.0, 1, 1e9, &ms))
        return -1;
    t.on_ns = (uint64_t)llround(ms * 1e6);
    if (!(v = get(l, "off_ms")))
        return fail(c, l->no, "missing required key 'off_ms' for directive 'onoff'");
    if (parse_num(c, l, "off_ms", v, 0.0, 0, 1e9, &ms))
        return -1;
    t.off_ns = (uint64_t)llround(ms * 1e6);
    if (t.on_ns == 0)
        return fail(c, l->no, "on_ms is below 1 ns");
    return add_sources(c, l, &t);
}

static int do_incast(struct ctx *c, const struct line *l)
{
    static const char *const keys[] = {"port", "queue", "bytes", "buffer_pct", "fanin", "sender_gbps",
                                       "period_ms", "poisson_hz", "start_ms", "stop_ms", NULL};
    struct vscn_source t;
    const char *v, *vb, *vp;
    uint64_t u;
    double d;
    memset(&t, 0, sizeof(t));
    t.kind = VSCN_INCAST;
    t.line = l->no;
    if (check_keys(c, l, keys) || common_window(c, l, &t))
        return -1;
    vb = get(l, "bytes");
    vp = get(l, "buffer_pct");
    if (vb && vp)
        return fail(c, l->no, "conflicting keys 'bytes' and 'buffer_pct' (give one)");
    if (!vb && !vp)
        return fail(c, l->no, "missing required key 'bytes' or 'buffer_pct' for directive 'incast'");
    if (vb) {
        if (parse_u64(c, l, "bytes", vb, 1, 1ull << 40, &t.burst_bytes))
            return -1;
    } else {
        if (parse_num(c, l, "buffer_pct", vp, 0.0, 1, 10000.0, &d))
            return -1;
        t.burst_bytes = (uint64_t)llround(d / 100.0 * (double)c->s->sw.buffer_bytes);
    }
    t.fanin = 1;
    if ((v = get(l, "fanin"))) {
        if (parse_u64(c, l, "fanin", v, 1, 100000, &u))
            return -1;
        t.fanin = (uint32_t)u;
    }
    if (t.burst_bytes < t.fanin)
        return fail(c, l->no, "burst of %llu bytes is smaller than fanin=%u (each sender needs 1 byte)",
                    (unsigned long long)t.burst_bytes, t.fanin);
    /* each sender sends bytes/fanin; the burst is fanin times that */
    if (t.burst_bytes / t.fanin > (1ull << 30) - 1)
        return fail(c, l->no, "burst of %llu bytes per sender is too large (limit %llu)",
                    (unsigned long long)(t.burst_bytes / t.fanin), (1ull << 30) - 1);
    t.burst_bytes = (t.burst_bytes / t.fanin) * t.fanin;
    t.sender_bps = c->s->sw.speed_bps;
    if (get(l, "sender_gbps") && req_gbps(c, l, "sender_gbps", &t.sender_bps))
        return -1;
    const char *per = get(l, "period_ms"), *hz = get(l, "poisson_hz");
    if (per && hz)
        return fail(c, l->no, "conflicting keys 'period_ms' and 'poisson_hz' (give one)");
    if (!per && !hz)
        return fail(c, l->no, "missing required key 'period_ms' or 'poisson_hz' for directive 'incast'");
    if (per) {
        if (parse_num(c, l, "period_ms", per, 0.0, 1, 1e9, &d))
            return -1;
        t.period_ns = (uint64_t)llround(d * 1e6);
        if (t.period_ns == 0)
            return fail(c, l->no, "period_ms is below 1 ns");
    } else {
        if (parse_num(c, l, "poisson_hz", hz, 0.0, 1, 1e9, &t.poisson_hz))
            return -1;
    }
    return add_sources(c, l, &t);
}

/* ---------------------------------------------------------------- driver */

/* Split one line (modified in place) into directive and key=value tokens.
 * Returns 0 (empty line: l->directive NULL), or -1 on error. */
static int tokenize(struct ctx *c, char *text, struct line *l)
{
    char *hash = strchr(text, '#');
    char *tok[MAX_TOKENS + 1];
    int nt = 0;
    if (hash)
        *hash = '\0';
    for (char *p = text;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f')
            p++;
        if (*p == '\0')
            break;
        if (nt == MAX_TOKENS + 1)
            return fail(c, l->no, "too many tokens (limit %d)", MAX_TOKENS);
        tok[nt++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\v' && *p != '\f')
            p++;
        if (*p)
            *p++ = '\0';
    }
    l->directive = NULL;
    l->n = 0;
    if (nt == 0)
        return 0;
    l->directive = tok[0];
    if (strchr(tok[0], '='))
        return fail(c, l->no, "line starts with '%s': expected a directive (switch, greedy, incast, onoff)", tok[0]);
    for (int i = 1; i < nt; i++) {
        char *eq = strchr(tok[i], '=');
        if (!eq)
            return fail(c, l->no, "bad token '%s' (expected key=value)", tok[i]);
        if (eq == tok[i])
            return fail(c, l->no, "bad token '%s' (empty key)", tok[i]);
        *eq = '\0';
        l->key[l->n] = tok[i];
        l->val[l->n] = eq + 1;
        l->n++;
    }
    return 0;
}

int vscn_parse_text(const char *text, const char *name, struct vscn *s, char *err, size_t err_len)
{
    struct ctx c = {name ? name : "<text>", err, err_len, s};
    size_t len = text ? strlen(text) : 0;
    char *buf = malloc(len + 1), *copy2 = malloc(len + 1);
    int rc = -1, have_switch = 0;
    vscn_defaults(s);
    if (err && err_len)
        err[0] = '\0';
    if (!buf || !copy2) {
        fail(&c, 0, "out of memory");
        goto out;
    }
    memcpy(buf, text ? text : "", len + 1);
    memcpy(copy2, buf, len + 1);
    /* pass 1: the switch directive */
    for (int pass = 0; pass < 2; pass++) {
        char *p = pass == 0 ? buf : copy2;
        int no = 0;
        while (p) {
            char *nl = strchr(p, '\n');
            struct line l;
            if (nl)
                *nl = '\0';
            l.no = ++no;
            if (tokenize(&c, p, &l))
                goto out;
            p = nl ? nl + 1 : NULL;
            if (!l.directive)
                continue;
            int is_switch = strcmp(l.directive, "switch") == 0;
            if (pass == 0) {
                if (!is_switch)
                    continue;
                if (have_switch) {
                    fail(&c, l.no, "duplicate 'switch' directive (first on line %d)", have_switch);
                    goto out;
                }
                have_switch = l.no;
                if (do_switch(&c, &l))
                    goto out;
                continue;
            }
            if (is_switch)
                continue;
            if (strcmp(l.directive, "greedy") == 0) {
                if (do_greedy(&c, &l))
                    goto out;
            } else if (strcmp(l.directive, "incast") == 0) {
                if (do_incast(&c, &l))
                    goto out;
            } else if (strcmp(l.directive, "onoff") == 0) {
                if (do_onoff(&c, &l))
                    goto out;
            } else {
                fail(&c, l.no, "unknown directive '%s' (expected switch, greedy, incast or onoff)",
                     l.directive);
                goto out;
            }
        }
    }
    rc = 0;
out:
    free(buf);
    free(copy2);
    if (rc)
        vscn_free(s);
    return rc;
}

int vscn_parse_file(const char *path, struct vscn *s, char *err, size_t err_len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t len = 0, cap = 0;
    int rc;
    vscn_defaults(s);
    if (!f) {
        snprintf(err, err_len, "scenario:%s:0: cannot open: %s", path, strerror(errno));
        return -1;
    }
    for (;;) {
        if (cap - len < 4096) {
            size_t ncap = cap ? cap * 2 : 8192;
            char *p = realloc(text, ncap);
            if (!p) {
                free(text);
                fclose(f);
                snprintf(err, err_len, "scenario:%s:0: out of memory", path);
                return -1;
            }
            text = p;
            cap = ncap;
        }
        size_t n = fread(text + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, err_len, "scenario:%s:0: read error", path);
        free(text);
        fclose(f);
        return -1;
    }
    fclose(f);
    text[len] = '\0';
    if (strlen(text) != len) {
        snprintf(err, err_len, "scenario:%s:0: file contains a NUL byte (not a text file?)", path);
        free(text);
        return -1;
    }
    rc = vscn_parse_text(text, path, s, err, err_len);
    free(text);
    return rc;
}
