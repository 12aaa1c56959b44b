/**
 * @file bench.c
 * @brief Benchmark of libsai-vasic and libalphad-sai (not run by ctest):
 *   1. model speed: model seconds per wall second for 16x8 and 64x8 queues
 *      under a default-like scenario (manual clock, 1 us steps and 0.1 us);
 *   2. alphad_sai_read_stats cost at 128 / 512 / 2048 / 8192 queues;
 *   3. alphad_sai_set_log2_alpha cost (first change = clone, then modify).
 * Usage: alphad_sai_bench [path/to/libsai-vasic.so]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alphad/alphad_sai.h"
#include "alphad/vasic.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this thread: the model speed without other processes' load */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const char *g_vasic;

static alphad_sai_t *open_scn(const char *scn)
{
    alphad_kv_t kv[] = {{"VASIC_CLOCK", "manual"}, {"VASIC_SCENARIO_TEXT", scn}};
    alphad_sai_t *h = NULL;
    char err[1024];
    alphad_status_t rc = alphad_sai_open(g_vasic, kv, 2, &h, err, sizeof(err));
    if (rc != ALPHAD_OK) {
        fprintf(stderr, "open failed (%s): %s\n", alphad_strerror(rc), err);
        exit(1);
    }
    return h;
}

/* A default-like scenario: greedy flows slightly above line rate on half the
 * ports, on/off background on every port, Poisson incast on a quarter. */
static void scenario(char *buf, size_t len, unsigned ports, unsigned step_ns)
{
    snprintf(buf, len,
             "switch ports=%u queues=8 speed_gbps=10 buffer_kb_per_port_per_gbps=9.6 step_ns=%u dynamic_th=-1\n"
             "greedy port=0-%u queue=0 rate_gbps=10.5\n"
             "onoff port=all queue=2 rate_gbps=3 on_ms=2 off_ms=8\n"
             "incast port=%u-%u queue=1 buffer_pct=30 fanin=32 sender_gbps=10 poisson_hz=200\n",
             ports, step_ns, ports / 2 - 1, ports / 2, ports / 2 + ports / 4 - 1);
}

static void bench_model(void *vlib, unsigned ports, unsigned step_ns, double model_s)
{
    char scn[1024];
    int (*totals)(struct vasic_totals *) = (int (*)(struct vasic_totals *))dlsym(vlib, "vasic_totals");
    scenario(scn, sizeof(scn), ports, step_ns);
    alphad_sai_t *h = open_scn(scn);
    alphad_sai_advance(h, 10000000); /* warm up: 10 ms */
    double t0 = now_s(), c0 = cpu_s();
    alphad_status_t rc = alphad_sai_advance(h, (uint64_t)(model_s * 1e9));
    double wall = now_s() - t0, cpu = cpu_s() - c0;
    struct vasic_totals t;
    totals(&t);
    printf("model %3ux8 queues, step %4u ns: %.2f model s in %.3f wall s (%.3f CPU s) = %6.2f model s per wall s,"
           " %6.2f per CPU s (%.0f CPU ns per step; incast drop %.1f%%) %s\n",
           ports, step_ns, model_s, wall, cpu, model_s / wall, model_s / cpu, cpu * 1e9 / (model_s * 1e9 / step_ns),
           t.incast_offered_bytes ? 100.0 * (double)t.incast_dropped_bytes / (double)t.incast_offered_bytes : 0.0,
           rc == ALPHAD_OK ? "" : "ADVANCE FAILED");
    alphad_sai_close(h);
}

static void bench_read(unsigned n_queues, int reps)
{
    char scn[1024];
    uint32_t nq;
    scenario(scn, sizeof(scn), n_queues / 8, 1000);
    alphad_sai_t *h = open_scn(scn);
    alphad_sai_counts(h, NULL, &nq);
    alphad_queue_stats_t *st = calloc(nq, sizeof(*st));
    alphad_pool_stats_t pool;
    uint64_t t;
    double *d = calloc((size_t)reps, sizeof(double));
    alphad_sai_advance(h, 2000000);
    for (int i = 0; i < reps; i++) {
        double t0 = now_s();
        if (alphad_sai_read_stats(h, st, nq, &pool, &t) != ALPHAD_OK) {
            fprintf(stderr, "read_stats: %s\n", alphad_sai_last_error(h));
            exit(1);
        }
        d[i] = now_s() - t0;
    }
    qsort(d, (size_t)reps, sizeof(double), cmp_d);
    printf("read_stats %5u queues: median %8.1f us, p99 %8.1f us (%.0f ns per queue)\n", nq, d[reps / 2] * 1e6,
           d[reps * 99 / 100] * 1e6, d[reps / 2] * 1e9 / nq);
    /* set_log2_alpha: first change of every queue (clone), then a modify */
    double t0 = now_s();
    for (uint32_t i = 0; i < nq; i++)
        alphad_sai_set_log2_alpha(h, i, 1);
    double clone = now_s() - t0;
    t0 = now_s();
    for (uint32_t i = 0; i < nq; i++)
        alphad_sai_set_log2_alpha(h, i, 2);
    double modify = now_s() - t0;
    t0 = now_s();
    alphad_sai_restore(h);
    double restore = now_s() - t0;
    printf("set_log2_alpha %5u queues: clone %.2f us/queue, modify %.2f us/queue; restore all %.2f ms\n", nq,
           clone * 1e6 / nq, modify * 1e6 / nq, restore * 1e3);
    free(d);
    free(st);
    alphad_sai_close(h);
}

int main(int argc, char **argv)
{
    g_vasic = argc > 1 ? argv[1] : ALPHAD_BENCH_DEFAULT_VASIC;
    void *vlib = dlopen(g_vasic, RTLD_NOW | RTLD_LOCAL);
    if (!vlib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    printf("libsai-vasic: %s\n", g_vasic);
    bench_model(vlib, 16, 1000, 2.0);
    bench_model(vlib, 64, 1000, 1.0);
    bench_model(vlib, 16, 100, 0.5);
    unsigned sizes[] = {128, 512, 2048, 8192};
    for (unsigned i = 0; i < 4; i++)
        bench_read(sizes[i], sizes[i] >= 8192 ? 200 : 1000);
    dlclose(vlib);
    return 0;
}
