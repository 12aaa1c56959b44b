// libalphad-sai over libsai-vasic: discovery, per-queue profile cloning and
// restore, error codes and messages, fault recovery, the realtime clock.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "helpers.h"

using alphad_test::Profile;
using alphad_test::Shim;
using alphad_test::Vasic;

namespace {

const char *kFourByTwo = "switch ports=4 queues=2 speed_gbps=25 buffer_bytes=2000000 dynamic_th=-1\n";

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

TEST(Shim, VersionAndStrings) {
    EXPECT_EQ(alphad_sai_abi_version(), ALPHAD_SAI_ABI_VERSION);
    EXPECT_STREQ(alphad_strerror(ALPHAD_OK), "success");
    EXPECT_STREQ(alphad_strerror(ALPHAD_E_RANGE), "log2 alpha out of range");
    EXPECT_STREQ(alphad_strerror(static_cast<alphad_status_t>(999)), "unknown status");
}

TEST(Shim, NullHandleIsAnInvalidArgumentEverywhere) {
    uint32_t n;
    int8_t k;
    alphad_queue_stats_t st;
    alphad_queue_info_t qi;
    EXPECT_EQ(alphad_sai_counts(nullptr, &n, &n), ALPHAD_E_INVALID_ARG);
    EXPECT_EQ(alphad_sai_queues(nullptr, &qi, 1), ALPHAD_E_INVALID_ARG);
    EXPECT_EQ(alphad_sai_read_stats(nullptr, &st, 1, nullptr, nullptr), ALPHAD_E_INVALID_ARG);
    EXPECT_EQ(alphad_sai_set_log2_alpha(nullptr, 0, 0), ALPHAD_E_INVALID_ARG);
    EXPECT_EQ(alphad_sai_set_log2_alpha_bulk(nullptr, nullptr, nullptr, 0, &n), ALPHAD_E_INVALID_ARG);
    EXPECT_EQ(alphad_sai_get_log2_alpha(nullptr, 0, &k), ALPHAD_E_INVALID_ARG);
    EXPECT_EQ(alphad_sai_restore(nullptr), ALPHAD_E_INVALID_ARG);
    EXPECT_EQ(alphad_sai_advance(nullptr, 1), ALPHAD_E_INVALID_ARG);
    EXPECT_STREQ(alphad_sai_last_error(nullptr), "");
    alphad_sai_close(nullptr);
    alphad_sai_t *h = nullptr;
    char err[128];
    EXPECT_EQ(alphad_sai_open(nullptr, nullptr, 0, &h, err, sizeof(err)), ALPHAD_E_INVALID_ARG);
    alphad_kv_t bad = {nullptr, "x"};
    EXPECT_EQ(alphad_sai_open(ALPHAD_TEST_VASIC, &bad, 1, &h, err, sizeof(err)), ALPHAD_E_INVALID_ARG);
    EXPECT_STREQ(err, "alphad_sai_open: profile entry 0 has a NULL or empty key");
}

TEST(Shim, DiscoversPortsQueuesProfilesAndPool) {
    Shim s(Shim::manual(kFourByTwo));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    EXPECT_EQ(s.n_ports, 4u);
    ASSERT_EQ(s.n_queues, 8u);
    std::set<uint64_t> oids;
    for (uint32_t i = 0; i < 8; i++) {
        const auto &q = s.info[i];
        EXPECT_EQ(q.port_index, i / 2);
        EXPECT_EQ(q.queue_index, i % 2);
        EXPECT_EQ(q.port_speed_mbps, 25000u);
        EXPECT_EQ(q.log2_alpha, -1);
        EXPECT_EQ(q.original_log2_alpha, -1);
        EXPECT_EQ(q.dynamic, 1);
        EXPECT_EQ(q.profile_oid, s.info[0].profile_oid);
        oids.insert(q.queue_oid);
    }
    EXPECT_EQ(oids.size(), 8u);
    alphad_queue_info_t small[4];
    EXPECT_EQ(alphad_sai_queues(s.h, small, 4), ALPHAD_E_BUFFER_TOO_SMALL);
    alphad_queue_stats_t st[4];
    EXPECT_EQ(alphad_sai_read_stats(s.h, st, 4, nullptr, nullptr), ALPHAD_E_BUFFER_TOO_SMALL);
    auto stats = s.stats();
    EXPECT_EQ(stats.pool.size_bytes, 2000000u);
    EXPECT_EQ(stats.t_ns, 0u);  // model time of a manual clock
}

TEST(Shim, CloneOnFirstChangeThenModifyThenRestoreExactly) {
    Vasic v;
    Shim s(Shim::manual(kFourByTwo));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    ASSERT_TRUE(v.tables());
    const uint64_t orig = s.info[0].profile_oid;
    ASSERT_EQ(v.profile_count(), 1);

    // first change of queue 2: a clone, only queue 2 points at it
    ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, 2, 2), ALPHAD_OK) << s.error();
    const sai_object_id_t clone = v.queue_profile(s.info[2].queue_oid);
    EXPECT_NE(clone, orig);
    EXPECT_EQ(v.profile_count(), 2);
    EXPECT_EQ(v.profile_th(clone), 2);
    EXPECT_EQ(v.profile_th(orig), -1);
    for (uint32_t i = 0; i < s.n_queues; i++)
        if (i != 2)
            EXPECT_EQ(v.queue_profile(s.info[i].queue_oid), orig) << i;
    EXPECT_EQ(s.log2_alpha(2), 2);
    EXPECT_EQ(s.log2_alpha(3), -1);

    // second change: the same clone is modified, no new profile
    ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, 2, -5), ALPHAD_OK) << s.error();
    EXPECT_EQ(v.queue_profile(s.info[2].queue_oid), clone);
    EXPECT_EQ(v.profile_th(clone), -5);
    EXPECT_EQ(v.profile_count(), 2);

    // more queues, in bulk
    const uint32_t qs[] = {0, 7, 5};
    const int8_t ks[] = {7, -8, 0};
    uint32_t done = 99;
    ASSERT_EQ(alphad_sai_set_log2_alpha_bulk(s.h, qs, ks, 3, &done), ALPHAD_OK) << s.error();
    EXPECT_EQ(done, 3u);
    EXPECT_EQ(v.profile_count(), 5);
    EXPECT_EQ(v.profile_th(v.queue_profile(s.info[7].queue_oid)), -8);

    // restore: every queue on the original profile, original alpha, no clone left
    ASSERT_EQ(alphad_sai_restore(s.h), ALPHAD_OK) << s.error();
    for (uint32_t i = 0; i < s.n_queues; i++) {
        EXPECT_EQ(v.queue_profile(s.info[i].queue_oid), orig) << i;
        EXPECT_EQ(s.log2_alpha(i), -1) << i;
    }
    EXPECT_EQ(v.profile_th(orig), -1);
    EXPECT_EQ(v.profile_count(), 1);
    EXPECT_EQ(v.object_type(clone), SAI_OBJECT_TYPE_NULL);
    // idempotent
    ASSERT_EQ(alphad_sai_restore(s.h), ALPHAD_OK);
    EXPECT_EQ(v.profile_count(), 1);
    // and usable again afterwards
    ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, 2, 1), ALPHAD_OK);
    EXPECT_EQ(v.profile_count(), 2);
}

TEST(Shim, OtherQueuesOnTheOriginalProfileKeepTheirBehaviour) {
    // queues 0:0 and 1:0 saturated; only 0:0 gets alpha 2, 1:0 stays at 0.5
    Shim s(Shim::manual("switch ports=2 queues=2 buffer_bytes=2000000 dynamic_th=-1\n"
                        "greedy port=0,1 queue=0 rate_gbps=20\n"));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, s.index(0, 0), 1), ALPHAD_OK) << s.error();
    s.advance_ms(10);
    auto st = s.stats();
    auto expect = alphad_test::dt_steady_state(2000000.0, {2.0, 0.5});
    EXPECT_NEAR(static_cast<double>(st.q[s.index(0, 0)].curr_occupancy_bytes), expect[0], 0.02 * expect[0]);
    EXPECT_NEAR(static_cast<double>(st.q[s.index(1, 0)].curr_occupancy_bytes), expect[1], 0.02 * expect[1]);
    // after restore both are back to alpha 0.5: B/4 each
    ASSERT_EQ(alphad_sai_restore(s.h), ALPHAD_OK);
    s.advance_ms(10);
    st = s.stats();
    for (uint32_t p = 0; p < 2; p++)
        EXPECT_NEAR(static_cast<double>(st.q[s.index(p, 0)].curr_occupancy_bytes), 500000.0, 10000.0);
}

TEST(Shim, SettingTheCurrentValueWritesNothing) {
    Vasic v;
    Shim s(Shim::manual(kFourByTwo));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    // the original value: no clone is made
    ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, 1, -1), ALPHAD_OK);
    EXPECT_EQ(v.profile_count(), 1);
    ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, 1, 3), ALPHAD_OK);
    // an armed fault on the profile write is not consumed by a no-op...
    ASSERT_EQ(v.inject_fault("set_profile", 1), 0);
    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, 1, 3), ALPHAD_OK);
    // ...but hits the next real write
    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, 1, 4), ALPHAD_E_SAI);
}

TEST(Shim, ErrorCodesForBadQueueAndRange) {
    Shim s(Shim::manual(kFourByTwo));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    int8_t k;
    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, 8, 0), ALPHAD_E_NOT_FOUND);
    EXPECT_EQ(s.error(), "queue 8 out of range (the switch has 8 managed queues)");
    EXPECT_EQ(alphad_sai_get_log2_alpha(s.h, 8, &k), ALPHAD_E_NOT_FOUND);
    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, 0, 8), ALPHAD_E_RANGE);
    EXPECT_EQ(s.error(), "log2 alpha 8 of queue 0 outside -8..7");
    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, 0, -9), ALPHAD_E_RANGE);
    EXPECT_EQ(s.log2_alpha(0), -1);
    const uint32_t qs[] = {0, 1, 2};
    const int8_t ks[] = {1, 9, 2};
    uint32_t done = 99;
    EXPECT_EQ(alphad_sai_set_log2_alpha_bulk(s.h, qs, ks, 3, &done), ALPHAD_E_RANGE);
    EXPECT_EQ(done, 1u);
    EXPECT_EQ(s.log2_alpha(0), 1);
    EXPECT_EQ(s.log2_alpha(2), -1);
}

TEST(Shim, LibsaiRangeNarrowerThanTheShims) {
    // the switch accepts dynamic_th -2..3 only: 5 passes the shim's check, the libsai refuses it
    Vasic v;
    Shim s(Shim::manual("switch ports=1 queues=2 th_min=-2 th_max=3 dynamic_th=0\n"));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    // refused when creating the clone: no profile left behind
    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, 0, 5), ALPHAD_E_RANGE);
    EXPECT_TRUE(contains(s.error(), "create_buffer_profile(clone of 0x")) << s.error();
    EXPECT_TRUE(contains(s.error(), "SAI_STATUS_INVALID_ATTR_VALUE_3")) << s.error();
    EXPECT_EQ(v.profile_count(), 1);
    EXPECT_EQ(s.log2_alpha(0), 0);
    // refused when modifying the clone: the old value stays
    ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, 0, 3), ALPHAD_OK) << s.error();
    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, 0, -3), ALPHAD_E_RANGE);
    EXPECT_TRUE(contains(s.error(), "set_buffer_profile_attribute(profile 0x")) << s.error();
    EXPECT_TRUE(contains(s.error(), "SHARED_DYNAMIC_TH -3 outside -2..3")) << s.error();
    EXPECT_EQ(s.log2_alpha(0), 3);
    EXPECT_EQ(v.profile_count(), 2);
}

// A vendor refuses a dynamic threshold outside its range in its own way; each is ALPHAD_E_RANGE.
struct Refusal {
    const char *profile;  // VASIC_TH_REFUSAL
    const char *status;   // as named in the error message
};

void PrintTo(const Refusal &r, std::ostream *os) { *os << r.profile; }

class VendorRefusal : public ::testing::TestWithParam<Refusal> {};

TEST_P(VendorRefusal, OutOfRangeDynamicThIsARangeError) {
    Vasic v;
    auto profile = Shim::manual("switch ports=1 queues=2 th_min=-7 th_max=3 dynamic_th=0\n");
    profile.push_back({"VASIC_TH_REFUSAL", GetParam().profile});
    Shim s(profile);
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, 0, 5), ALPHAD_E_RANGE);  // refused creating the clone
    EXPECT_TRUE(contains(s.error(), GetParam().status)) << s.error();
    EXPECT_EQ(v.profile_count(), 1);
    ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, 0, 2), ALPHAD_OK) << s.error();
    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, 0, -8), ALPHAD_E_RANGE);  // refused modifying it
    EXPECT_EQ(s.log2_alpha(0), 2);
}

INSTANTIATE_TEST_SUITE_P(Vendors, VendorRefusal,
                         ::testing::Values(Refusal{"invalid_attr_value", "SAI_STATUS_INVALID_ATTR_VALUE_3"},
                                           Refusal{"attr_not_supported", "SAI_STATUS_ATTR_NOT_SUPPORTED_3"},
                                           Refusal{"not_supported", "SAI_STATUS_NOT_SUPPORTED"},
                                           Refusal{"invalid_parameter", "SAI_STATUS_INVALID_PARAMETER"}),
                         ::testing::PrintToStringParamName());

// A switch without one counter: the other counters are still read, the missing
// one reads 0 and is reported; found through sai_query_stats_capability or,
// where the libsai does not implement it, by reading each counter once.
class MissingCounter : public ::testing::TestWithParam<std::string> {};

TEST_P(MissingCounter, IsReportedAndTheOthersAreRead) {
    auto profile = Shim::manual("switch ports=1 queues=2 buffer_bytes=1000000\n"
                                "greedy port=0 queue=all rate_gbps=20\n");
    profile.push_back({"VASIC_UNSUPPORTED_STATS", "SAI_QUEUE_STAT_DROPPED_BYTES,SAI_BUFFER_POOL_STAT_WATERMARK_BYTES"});
    profile.push_back({"VASIC_STATS_CAPABILITY", GetParam()});
    Shim s(profile);
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    uint32_t qs = 0, ps = 0;
    ASSERT_EQ(alphad_sai_stats_supported(s.h, &qs, &ps), ALPHAD_OK);
    EXPECT_EQ(qs, ALPHAD_STAT_QUEUE_ALL & ~ALPHAD_STAT_QUEUE_DROPPED_BYTES);
    EXPECT_EQ(ps, static_cast<uint32_t>(ALPHAD_STAT_POOL_CURR_OCCUPANCY));
    s.advance_ms(5);
    auto st = s.stats();
    EXPECT_GT(st.q[0].bytes, 0u);
    EXPECT_GT(st.q[0].dropped_packets, 0u);  // saturated: DT drops
    EXPECT_GT(st.q[0].shared_watermark_bytes, 0u);
    EXPECT_EQ(st.q[0].dropped_bytes, 0u);
    EXPECT_GT(st.pool.curr_occupancy_bytes, 0u);
    EXPECT_EQ(st.pool.watermark_bytes, 0u);
    EXPECT_EQ(alphad_sai_stats_supported(nullptr, &qs, &ps), ALPHAD_E_INVALID_ARG);
}

INSTANTIATE_TEST_SUITE_P(Capability, MissingCounter, ::testing::Values("on", "off"),
                         [](const ::testing::TestParamInfo<std::string> &i) {
                             return i.param == "on" ? std::string("QueriedFromTheLibsai")
                                                    : std::string("ProbedCounterByCounter");
                         });

TEST(Shim, LoadErrors) {
    {
        Shim s({}, "/nonexistent/libsai.so");
        EXPECT_EQ(s.rc, ALPHAD_E_LOAD);
        EXPECT_TRUE(contains(s.err, "dlopen(/nonexistent/libsai.so) failed")) << s.err;
        EXPECT_EQ(s.h, nullptr);
    }
    {
        Shim s({}, ALPHAD_TEST_NOSAI);
        EXPECT_EQ(s.rc, ALPHAD_E_SYMBOL);
        EXPECT_TRUE(contains(s.err, "does not export sai_api_initialize")) << s.err;
    }
}

TEST(Shim, MalformedScenarioReachesTheCaller) {
    const std::string path = alphad_test::data("bad_unknown_key.scn");
    Shim s({{"VASIC_CLOCK", "manual"}, {"VASIC_SCENARIO", path}});
    EXPECT_EQ(s.rc, ALPHAD_E_SAI);
    EXPECT_TRUE(contains(s.err, "create_switch(")) << s.err;
    EXPECT_TRUE(contains(s.err, "scenario:" + path + ":4: unknown key 'rate' for directive 'greedy'")) << s.err;
    // inline text names the profile key
    Shim t(Shim::manual("switch ports=2\n\ngreedy port=0 queue=0 rate_gbps=x\n"));
    EXPECT_EQ(t.rc, ALPHAD_E_SAI);
    EXPECT_TRUE(contains(t.err, "scenario:VASIC_SCENARIO_TEXT:3: bad number 'x' for key 'rate_gbps'")) << t.err;
    // the failed open left the libsai usable
    Shim u(Shim::manual(kFourByTwo));
    EXPECT_EQ(u.rc, ALPHAD_OK) << u.err;
}

TEST(Shim, ProfileIsServedAndMisspeltKeysAreCaught) {
    // the vasic enumerates the profile (profile_get_next_value) and refuses unknown VASIC_ keys
    Shim s(Profile{{"SAI_INIT_CONFIG_FILE", "/dev/null"}, {"VASIC_CLOCK", "manual"}, {"VASIC_SCENARO", "x.scn"}});
    EXPECT_EQ(s.rc, ALPHAD_E_SAI);
    EXPECT_TRUE(contains(s.err, "profile: unknown key 'VASIC_SCENARO'")) << s.err;
    // keys of other libsais pass; values reach the libsai through profile_get_value
    Shim t(Profile{{"SAI_INIT_CONFIG_FILE", "/dev/null"},
                   {"VASIC_CLOCK", "manual"},
                   {"VASIC_SCENARIO_TEXT", "switch ports=3 queues=5\n"}});
    ASSERT_EQ(t.rc, ALPHAD_OK) << t.err;
    EXPECT_EQ(t.n_ports, 3u);
    EXPECT_EQ(t.n_queues, 15u);
    EXPECT_EQ(alphad_sai_advance(t.h, 1000), ALPHAD_OK);  // manual clock taken from the profile
}

TEST(Shim, OneSwitchPerProcess) {
    Shim a(Shim::manual(kFourByTwo));
    ASSERT_EQ(a.rc, ALPHAD_OK) << a.err;
    Shim b(Shim::manual(kFourByTwo));
    EXPECT_EQ(b.rc, ALPHAD_E_SAI);
    EXPECT_TRUE(contains(b.err, "sai_api_initialize(")) << b.err;
    EXPECT_TRUE(contains(b.err, "already initialized")) << b.err;
    // the first handle is unaffected
    EXPECT_EQ(alphad_sai_set_log2_alpha(a.h, 0, 2), ALPHAD_OK) << a.error();
    a.advance_ms(1);
}

TEST(Shim, StaticProfileIsNotSupported) {
    // a queue moved to a static-threshold profile (through the SAI API) has no alpha
    Vasic v;
    Shim s(Shim::manual(std::string(kFourByTwo) + "greedy port=1 queue=1 rate_gbps=50\n"));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    ASSERT_TRUE(v.tables());
    const uint32_t q = s.index(1, 1);
    sai_attribute_t pa{};
    pa.id = SAI_BUFFER_PROFILE_ATTR_POOL_ID;
    ASSERT_EQ(v.buf->get_buffer_profile_attribute(s.info[q].profile_oid, 1, &pa), SAI_STATUS_SUCCESS);
    sai_attribute_t a[4]{};
    a[0].id = SAI_BUFFER_PROFILE_ATTR_POOL_ID;
    a[0].value.oid = pa.value.oid;
    a[1].id = SAI_BUFFER_PROFILE_ATTR_BUFFER_SIZE;
    a[1].value.u64 = 0;
    a[2].id = SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE;
    a[2].value.s32 = SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC;
    a[3].id = SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH;
    a[3].value.u64 = 100000;
    sai_object_id_t stat;
    ASSERT_EQ(v.buf->create_buffer_profile(&stat, v.switch_id(s.info[q].queue_oid), 4, a), SAI_STATUS_SUCCESS)
        << v.last_error();
    sai_attribute_t qa{};
    qa.id = SAI_QUEUE_ATTR_BUFFER_PROFILE_ID;
    qa.value.oid = stat;
    ASSERT_EQ(v.queue->set_queue_attribute(s.info[q].queue_oid, &qa), SAI_STATUS_SUCCESS);

    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, q, 1), ALPHAD_E_NOT_SUPPORTED);
    EXPECT_TRUE(contains(s.error(), "static-threshold profile")) << s.error();
    alphad_queue_info_t qi[8];
    ASSERT_EQ(alphad_sai_queues(s.h, qi, 8), ALPHAD_OK);
    EXPECT_EQ(qi[q].dynamic, 0);
    EXPECT_EQ(qi[q].profile_oid, stat);
    EXPECT_EQ(v.profile_count(), 2);  // nothing cloned
    // the model enforces the static threshold: the queue stops at 100 kB
    s.advance_ms(2);
    auto st = s.stats();
    EXPECT_LE(st.q[q].curr_occupancy_bytes, 100000u);
    EXPECT_GT(st.q[q].curr_occupancy_bytes, 100000u - 3 * 1500u);
    EXPECT_GT(st.q[q].dropped_packets, 0u);
}

TEST(Shim, FaultOnStatsFailsOnceThenRecovers) {
    Vasic v;
    Shim s(Shim::manual(kFourByTwo));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    std::vector<alphad_queue_stats_t> st(s.n_queues);
    ASSERT_EQ(v.inject_fault("get_stats", 1), 0);
    EXPECT_EQ(alphad_sai_read_stats(s.h, st.data(), s.n_queues, nullptr, nullptr), ALPHAD_E_SAI);
    EXPECT_TRUE(contains(s.error(), "get_queue_stats_ext(queue 0 oid 0x")) << s.error();
    EXPECT_TRUE(contains(s.error(), "SAI_STATUS_FAILURE (-1): injected fault: get_stats")) << s.error();
    EXPECT_EQ(alphad_sai_read_stats(s.h, st.data(), s.n_queues, nullptr, nullptr), ALPHAD_OK) << s.error();
}

TEST(Shim, FaultOnCreateOrSetLeavesNoTrace) {
    Vasic v;
    Shim s(Shim::manual(kFourByTwo));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    ASSERT_TRUE(v.tables());
    const uint64_t orig = s.info[4].profile_oid;
    // create_buffer_profile fails: nothing created
    ASSERT_EQ(v.inject_fault("create_profile", 1), 0);
    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, 4, 2), ALPHAD_E_SAI);
    EXPECT_TRUE(contains(s.error(), "create_buffer_profile(")) << s.error();
    EXPECT_EQ(v.profile_count(), 1);
    EXPECT_EQ(s.log2_alpha(4), -1);
    // set_queue_attribute fails after the clone was made: the clone is removed
    ASSERT_EQ(v.inject_fault("set_queue", 1), 0);
    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, 4, 2), ALPHAD_E_SAI);
    EXPECT_TRUE(contains(s.error(), "set_queue_attribute(queue 4")) << s.error();
    EXPECT_EQ(v.profile_count(), 1);
    EXPECT_EQ(v.queue_profile(s.info[4].queue_oid), orig);
    EXPECT_EQ(s.log2_alpha(4), -1);
    // then it works
    ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, 4, 2), ALPHAD_OK) << s.error();
    // set_buffer_profile_attribute fails: the old value stays
    ASSERT_EQ(v.inject_fault("set_profile", 1), 0);
    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, 4, 3), ALPHAD_E_SAI);
    EXPECT_EQ(s.log2_alpha(4), 2);
    EXPECT_EQ(v.profile_th(v.queue_profile(s.info[4].queue_oid)), 2);
    ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, 4, 3), ALPHAD_OK) << s.error();
    EXPECT_EQ(v.profile_th(v.queue_profile(s.info[4].queue_oid)), 3);
}

TEST(Shim, SetQueueAndRemoveBothFailingKeepsTheOrphanForRestore) {
    Vasic v;
    Shim s(Shim::manual(kFourByTwo));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    ASSERT_EQ(v.inject_fault("set_queue", 1), 0);
    ASSERT_EQ(v.inject_fault("remove_profile", 1), 0);
    EXPECT_EQ(alphad_sai_set_log2_alpha(s.h, 1, 2), ALPHAD_E_SAI);
    EXPECT_TRUE(contains(s.error(), "removing the clone")) << s.error();
    EXPECT_EQ(v.profile_count(), 2);  // the clone could not be removed yet
    ASSERT_EQ(alphad_sai_restore(s.h), ALPHAD_OK) << s.error();
    EXPECT_EQ(v.profile_count(), 1);
}

TEST(Shim, RestoreKeepsGoingOnErrorsAndRetries) {
    Vasic v;
    Shim s(Shim::manual(kFourByTwo));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    ASSERT_TRUE(v.tables());
    for (uint32_t q : {1u, 3u, 6u})
        ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, q, 1), ALPHAD_OK);
    ASSERT_EQ(v.profile_count(), 4);
    // the first queue cannot be moved back, the first clone removal fails
    ASSERT_EQ(v.inject_fault("set_queue", 1), 0);
    ASSERT_EQ(v.inject_fault("remove_profile", 1), 0);
    EXPECT_EQ(alphad_sai_restore(s.h), ALPHAD_E_SAI);
    EXPECT_TRUE(contains(s.error(), "set_queue_attribute(queue 1")) << s.error();
    EXPECT_EQ(s.log2_alpha(1), 1);   // still on its clone
    EXPECT_EQ(s.log2_alpha(3), -1);  // moved back; removing its clone failed once and was retried
    EXPECT_EQ(s.log2_alpha(6), -1);
    EXPECT_EQ(v.queue_profile(s.info[3].queue_oid), s.info[0].profile_oid);
    EXPECT_EQ(v.queue_profile(s.info[6].queue_oid), s.info[0].profile_oid);
    EXPECT_EQ(v.profile_count(), 2);  // the original and queue 1's clone
    // retry completes the job
    ASSERT_EQ(alphad_sai_restore(s.h), ALPHAD_OK) << s.error();
    EXPECT_EQ(v.profile_count(), 1);
    for (uint32_t i = 0; i < s.n_queues; i++)
        EXPECT_EQ(v.queue_profile(s.info[i].queue_oid), s.info[0].profile_oid);
}

TEST(Shim, RealtimeClockTracksWallTimeAndCallsAreSafe) {
    Vasic v;
    Shim s(Profile{{"VASIC_SCENARIO_TEXT", "switch ports=4 queues=2 buffer_bytes=1000000\n"
                                    "greedy port=all queue=0 rate_gbps=12\n"
                                    "incast port=1 queue=1 bytes=200000 fanin=8 period_ms=5\n"}});
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    EXPECT_EQ(alphad_sai_advance(s.h, 1000), ALPHAD_E_NOT_SUPPORTED);
    EXPECT_TRUE(contains(s.error(), "realtime")) << s.error();
    ASSERT_TRUE(v.tables());

    // a second thread hammers the vasic's SAI API while this one uses the shim
    std::atomic<bool> stop{false};
    std::atomic<long> other_calls{0}, other_failures{0};
    std::thread other([&] {
        const sai_stat_id_t ids[] = {SAI_QUEUE_STAT_BYTES, SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES};
        uint64_t c[2];
        while (!stop.load()) {
            if (v.queue->get_queue_stats(s.info[5].queue_oid, 2, ids, c) != SAI_STATUS_SUCCESS)
                other_failures++;
            other_calls++;
        }
    });
    const auto w0 = std::chrono::steady_clock::now();
    const uint64_t m0 = s.stats().t_ns;
    int sets = 0;
    while (std::chrono::steady_clock::now() - w0 < std::chrono::milliseconds(300)) {
        auto st = s.stats();
        for (uint32_t i = 0; i < s.n_queues; i++)
            ASSERT_LE(st.q[i].curr_occupancy_bytes, 1000000u);
        ASSERT_EQ(alphad_sai_set_log2_alpha(s.h, sets % s.n_queues, static_cast<int8_t>(sets % 5 - 2)), ALPHAD_OK)
            << s.error();
        sets++;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    const uint64_t m1 = s.stats().t_ns;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count() * 1e9;
    stop = true;
    other.join();
    const double model = static_cast<double>(m1 - m0);
    auto t = v.totals();
    // never ahead of the wall clock; when it cannot keep up (e.g. under
    // valgrind) it runs flat out and reports the lag: model + lag = wall
    EXPECT_LT(model, 1.05 * wall + 2e6);
    EXPECT_GT(model + static_cast<double>(t.lag_ns), 0.7 * wall)
        << "model " << model << " ns + lag " << t.lag_ns << " ns in " << wall << " ns of wall time";
    if (t.max_lag_ns < 20000000)  // kept up: the model advanced with the wall clock
        EXPECT_GT(model, 0.7 * wall);
    EXPECT_GT(model, 0.0);
    EXPECT_GT(other_calls.load(), 100);
    EXPECT_EQ(other_failures.load(), 0);
    EXPECT_GT(t.greedy_delivered_bytes, 0u);
    EXPECT_GE(t.incast_bursts + 1, t.model_ns / 5000000);  // one burst per 5 ms of model time
    EXPECT_GT(t.incast_bursts, 0u);
    ASSERT_EQ(alphad_sai_restore(s.h), ALPHAD_OK) << s.error();
    EXPECT_EQ(v.profile_count(), 1);
}

}  // namespace

TEST(Shim, StepsLongerThanTheLockChunkStillAdvance) {
    // a step_ns above the model thread's 20 us chunk runs as one whole step: the clock advances
    Shim s(Shim::manual("switch ports=2 queues=2 step_ns=50000\ngreedy port=0 queue=0 rate_gbps=10\n"));
    ASSERT_EQ(s.rc, ALPHAD_OK) << s.err;
    ASSERT_EQ(alphad_sai_advance(s.h, 1000000), ALPHAD_OK);
    std::vector<alphad_queue_stats_t> q(s.n_queues);
    uint64_t t_ns = 0;
    ASSERT_EQ(alphad_sai_read_stats(s.h, q.data(), s.n_queues, nullptr, &t_ns), ALPHAD_OK);
    EXPECT_EQ(t_ns, 1000000u);
    EXPECT_GT(q[0].bytes, 0u);
}
