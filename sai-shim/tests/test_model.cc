// Behaviour of the shared-buffer model, observed through libalphad-sai with a
// manual clock: DT steady states, watermarks, schedulers, traffic sources.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <tuple>

#include "helpers.h"

using alphad_test::dt_steady_state;
using alphad_test::Shim;
using alphad_test::Vasic;

namespace {

constexpr double kB = 2000000.0;  // shared buffer of the DT tests, bytes

// (log2 alpha, number of saturated queues, same port?)
class DtSteadyState : public ::testing::TestWithParam<std::tuple<int, int, bool>> {};

TEST_P(DtSteadyState, SettlesAtAlphaBOverOnePlusNAlpha) {
    const int k = std::get<0>(GetParam());
    const int n = std::get<1>(GetParam());
    const bool same_port = std::get<2>(GetParam());
    std::ostringstream scn;
    scn << "switch ports=" << (same_port ? 1 : n) << " queues=" << (same_port ? n : 1)
        << " speed_gbps=10 buffer_bytes=" << static_cast<uint64_t>(kB) << " dynamic_th=" << k << "\n";
    // each queue fed at 20 Gbps: above line rate, and above its share of a shared port
    if (same_port)
        scn << "greedy port=0 queue=all rate_gbps=20\n";
    else
        scn << "greedy port=all queue=0 rate_gbps=20\n";
    Shim s(Shim::manual(scn.str()));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    ASSERT_EQ(s.n_queues, static_cast<uint32_t>(n));
    s.advance_ms(10);
    auto st = s.stats();
    const double alpha = std::ldexp(1.0, k);
    const double expect = dt_steady_state(kB, std::vector<double>(n, alpha))[0];
    double total = 0;
    for (int i = 0; i < n; i++) {
        const double len = static_cast<double>(st.q[i].curr_occupancy_bytes);
        EXPECT_NEAR(len, expect, 0.02 * expect) << "queue " << i << " alpha " << alpha << " n " << n;
        EXPECT_GT(st.q[i].dropped_packets, 0u) << "a saturated queue drops";
        total += len;
    }
    EXPECT_EQ(static_cast<double>(st.pool.curr_occupancy_bytes), total);
    EXPECT_EQ(st.pool.size_bytes, static_cast<uint64_t>(kB));
}

// names such as Log2AlphaMinus3_4Queues_SamePort
std::string dt_case_name(const ::testing::TestParamInfo<DtSteadyState::ParamType> &info) {
    const int k = std::get<0>(info.param);
    return "Log2Alpha" + std::string(k < 0 ? "Minus" : "") + std::to_string(std::abs(k)) + "_" +
           std::to_string(std::get<1>(info.param)) + "Queues_" +
           (std::get<2>(info.param) ? "SamePort" : "OnePerPort");
}

INSTANTIATE_TEST_SUITE_P(Grid, DtSteadyState,
                         ::testing::Combine(::testing::Values(-3, -1, 0, 2), ::testing::Values(1, 2, 4),
                                            ::testing::Bool()),
                         dt_case_name);

TEST(Model, UnequalAlphasThroughTheShim) {
    // alphas set per queue through cloned profiles give the heterogeneous fixed point
    Shim s(Shim::manual("switch ports=3 queues=1 buffer_bytes=6000000 dynamic_th=-1\n"
                        "greedy port=all queue=0 rate_gbps=20\n"));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, 0, 1), ALPHAD_OK) << s.error();
    ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, 2, -3), ALPHAD_OK) << s.error();
    s.advance_ms(10);
    auto st = s.stats();
    auto expect = dt_steady_state(6000000.0, {2.0, 0.5, 0.125});
    for (int i = 0; i < 3; i++)
        EXPECT_NEAR(static_cast<double>(st.q[i].curr_occupancy_bytes), expect[i], 0.02 * expect[i]) << i;
}

TEST(Model, WatermarkIsPeakSinceLastReadThenCurrentOccupancy) {
    // port 0 queue 0 grows at 10 Gbps net for 1 ms, then drains at 10 Gbps
    Shim s(Shim::manual("switch ports=1 queues=2 buffer_bytes=10000000\n"
                        "greedy port=0 queue=0 rate_gbps=20 stop_ms=1\n"));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    s.advance_ms(0.5);
    auto a = s.stats();
    EXPECT_NEAR(static_cast<double>(a.q[0].curr_occupancy_bytes), 625000.0, 3000.0);
    // still rising: the peak is the occupancy after the last step's arrivals,
    // at most one step of drain (1250 B at 10 Gbps, 1 us) above the current one
    EXPECT_GE(a.q[0].shared_watermark_bytes, a.q[0].curr_occupancy_bytes);
    EXPECT_LE(a.q[0].shared_watermark_bytes, a.q[0].curr_occupancy_bytes + 1500);
    EXPECT_EQ(a.pool.watermark_bytes, a.q[0].shared_watermark_bytes);

    s.advance_ms(0.7);  // t = 1.2 ms: peak ~1.25 MB at 1 ms, now ~1.0 MB
    auto b = s.stats();
    EXPECT_NEAR(static_cast<double>(b.q[0].shared_watermark_bytes), 1250000.0, 3000.0);
    EXPECT_NEAR(static_cast<double>(b.q[0].curr_occupancy_bytes), 1000000.0, 3000.0);
    EXPECT_EQ(b.pool.watermark_bytes, b.q[0].shared_watermark_bytes);
    EXPECT_EQ(b.q[1].shared_watermark_bytes, 0u);

    auto c = s.stats();  // no time passed: the watermark restarted from the occupancy
    EXPECT_EQ(c.q[0].shared_watermark_bytes, b.q[0].curr_occupancy_bytes);
    EXPECT_EQ(c.pool.watermark_bytes, b.pool.curr_occupancy_bytes);
    EXPECT_EQ(c.q[0].bytes, b.q[0].bytes);  // counters are read, not cleared

    s.advance_ms(0.1);  // draining: the peak since the last read is the occupancy at that read
    auto d = s.stats();
    EXPECT_EQ(d.q[0].shared_watermark_bytes, c.q[0].curr_occupancy_bytes);
    EXPECT_LT(d.q[0].curr_occupancy_bytes, c.q[0].curr_occupancy_bytes);
    EXPECT_EQ(d.pool.watermark_bytes, c.pool.curr_occupancy_bytes);
    EXPECT_EQ(d.t_ns, 1300000u);
}

TEST(Model, RoundRobinSharesAPortEqually) {
    Shim s(Shim::manual("switch ports=1 queues=3 buffer_bytes=4000000 scheduler=rr\n"
                        "greedy port=0 queue=0,2 rate_gbps=10\n"));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    s.advance_ms(5);
    auto st = s.stats();
    // 5 ms at 10 Gbps = 6.25 MB, split evenly (to a packet) between queues 0 and 2
    EXPECT_NEAR(static_cast<double>(st.q[0].bytes + st.q[2].bytes), 6250000.0, 3000.0);
    EXPECT_LE(std::llabs(static_cast<long long>(st.q[0].bytes) - static_cast<long long>(st.q[2].bytes)), 1500);
    EXPECT_EQ(st.q[1].bytes, 0u);
}

TEST(Model, StrictPriorityServesTheHighestIndexFirst) {
    Shim s(Shim::manual("switch ports=1 queues=3 buffer_bytes=4000000 scheduler=sp\n"
                        "greedy port=0 queue=0,2 rate_gbps=10\n"));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    s.advance_ms(5);
    auto st = s.stats();
    EXPECT_NEAR(static_cast<double>(st.q[2].bytes), 6250000.0, 3000.0);
    EXPECT_EQ(st.q[0].bytes, 0u);  // starved
    EXPECT_GT(st.q[0].curr_occupancy_bytes, 0u);
}

TEST(Model, OnOffDeliversItsDutyCycle) {
    Vasic v;
    Shim s(Shim::manual("switch ports=1 queues=1 buffer_bytes=4000000\n"
                        "onoff port=0 queue=0 rate_gbps=5 on_ms=2 off_ms=8 start_ms=1 stop_ms=41\n"));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    s.advance_ms(50);
    auto t = v.totals();
    // 4 on-periods of 2 ms at 5 Gbps = 5 MB, below line rate: no drops, all delivered
    EXPECT_NEAR(static_cast<double>(t.onoff_offered_bytes), 5000000.0, 4 * 1500.0);
    EXPECT_EQ(t.onoff_dropped_bytes, 0u);
    EXPECT_EQ(t.onoff_delivered_bytes, t.onoff_offered_bytes);
    EXPECT_EQ(t.greedy_offered_bytes, 0u);
}

TEST(Model, IncastBurstAccountingAndRemainderPackets) {
    Vasic v;
    // 3 bursts (t = 0, 10, 20 ms) of 16 senders x 4000 B = 64000 B: packets of 1500, 1500, 1000
    Shim s(Shim::manual("switch ports=1 queues=1 buffer_bytes=4000000\n"
                        "incast port=0 queue=0 bytes=64000 fanin=16 sender_gbps=10 period_ms=10 stop_ms=25\n"));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    s.advance_ms(40);
    auto t = v.totals();
    EXPECT_EQ(t.incast_bursts, 3u);
    EXPECT_EQ(t.incast_offered_bytes, 3u * 64000);
    EXPECT_EQ(t.incast_dropped_bytes, 0u);
    EXPECT_EQ(t.incast_delivered_bytes, 3u * 64000);
    auto st = s.stats();
    EXPECT_EQ(st.q[0].packets, 3u * 16 * 3);
}

TEST(Model, PoissonIncastIsDeterministicPerSeed) {
    auto run = [](int seed) {
        Vasic v;
        std::ostringstream scn;
        scn << "switch ports=1 queues=1 buffer_bytes=400000 seed=" << seed << "\n"
            << "incast port=0 queue=0 bytes=150000 fanin=8 poisson_hz=2000\n";
        Shim s(Shim::manual(scn.str()));
        EXPECT_EQ(s.rc, ALPHAD_OK) << s.err;
        s.advance_ms(100);
        return v.totals();
    };
    auto a = run(1), b = run(1), c = run(2);
    EXPECT_EQ(a.incast_bursts, b.incast_bursts);
    EXPECT_EQ(a.incast_dropped_bytes, b.incast_dropped_bytes);
    EXPECT_NEAR(static_cast<double>(a.incast_bursts), 200.0, 60.0);  // 2000 Hz x 0.1 s
    EXPECT_TRUE(a.incast_bursts != c.incast_bursts || a.incast_dropped_bytes != c.incast_dropped_bytes);
}

// Incast behaviour under DT: a larger alpha on the incast queue lets bursts use
// more of the free buffer, so fewer incast bytes are dropped.
TEST(Model, LargerIncastAlphaDropsFewerIncastBytes) {
    auto run = [](int8_t k) {
        Vasic v;
        Shim s({{"VASIC_CLOCK", "manual"}, {"VASIC_SCENARIO", alphad_test::data("incast.scn")}});
        EXPECT_EQ(s.rc, ALPHAD_OK) << s.err;
        EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, s.index(0, 1), k), ALPHAD_OK) << s.error();
        s.advance_ms(41);
        return v.totals();
    };
    struct vasic_totals small = run(-4), large = run(2);
    ASSERT_EQ(small.incast_bursts, 20u);
    ASSERT_EQ(large.incast_offered_bytes, small.incast_offered_bytes);
    EXPECT_GT(small.incast_dropped_bytes, 0u);
    EXPECT_LT(large.incast_dropped_bytes, small.incast_dropped_bytes / 2)
        << "alpha 4: " << large.incast_dropped_bytes << " dropped, alpha 1/16: " << small.incast_dropped_bytes;
    // the background keeps flowing either way
    EXPECT_GT(large.greedy_delivered_bytes, 0u);
}

TEST(Model, IdleStretchesAreSkippedNotStepped) {
    Vasic v;
    Shim s(Shim::manual("switch ports=4 queues=2\ngreedy port=0 queue=0 rate_gbps=1 start_ms=900 stop_ms=901\n"));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    s.advance_ms(1000);
    auto t = v.totals();
    EXPECT_EQ(t.model_ns, 1000000000u);
    EXPECT_LT(t.steps, 5000u);  // ~1000 busy steps plus a few jumps
    EXPECT_EQ(t.greedy_delivered_bytes, t.greedy_offered_bytes);
    EXPECT_NEAR(static_cast<double>(t.greedy_offered_bytes), 125000.0, 1500.0);
}

}  // namespace
