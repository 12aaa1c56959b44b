// libsai-vasic through its SAI API alone (no shim): lifecycle, object ids,
// attributes, buffer profiles, statistics modes and error codes.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

#include "helpers.h"

using alphad_test::Vasic;

namespace {

std::map<std::string, std::string> g_profile;

const char *get_value(sai_switch_profile_id_t, const char *variable) {
    auto it = g_profile.find(variable);
    return it == g_profile.end() ? nullptr : it->second.c_str();
}

int get_next_value(sai_switch_profile_id_t, const char **, const char **) { return -1; }

const sai_service_method_table_t kServices = {get_value, get_next_value};

class VasicSai : public ::testing::Test {
  protected:
    Vasic v;
    sai_object_id_t sw = SAI_NULL_OBJECT_ID;

    void SetUp() override {
        ASSERT_NE(v.lib, nullptr) << dlerror();
        g_profile = {{"VASIC_CLOCK", "manual"},
                     {"VASIC_SCENARIO_TEXT", "switch ports=3 queues=4 buffer_bytes=3000000 th_min=-6 th_max=5\n"
                                             "greedy port=0 queue=1 rate_gbps=20\n"}};
        ASSERT_EQ(v.initialize(0, &kServices), SAI_STATUS_SUCCESS);
        ASSERT_TRUE(v.tables());
        sai_attribute_t a{};
        a.id = SAI_SWITCH_ATTR_INIT_SWITCH;
        a.value.booldata = true;
        ASSERT_EQ(v.sw->create_switch(&sw, 1, &a), SAI_STATUS_SUCCESS) << v.last_error();
    }
    void TearDown() override {
        if (v.uninitialize)
            v.uninitialize();
    }

    std::vector<sai_object_id_t> ports() {
        std::vector<sai_object_id_t> l(8);
        sai_attribute_t a{};
        a.id = SAI_SWITCH_ATTR_PORT_LIST;
        a.value.objlist = {static_cast<uint32_t>(l.size()), l.data()};
        EXPECT_EQ(v.sw->get_switch_attribute(sw, 1, &a), SAI_STATUS_SUCCESS);
        l.resize(a.value.objlist.count);
        return l;
    }
    std::vector<sai_object_id_t> queues(sai_object_id_t port) {
        std::vector<sai_object_id_t> l(16);
        sai_attribute_t a{};
        a.id = SAI_PORT_ATTR_QOS_QUEUE_LIST;
        a.value.objlist = {static_cast<uint32_t>(l.size()), l.data()};
        EXPECT_EQ(v.port->get_port_attribute(port, 1, &a), SAI_STATUS_SUCCESS);
        l.resize(a.value.objlist.count);
        return l;
    }
    sai_object_id_t pool() {
        sai_attribute_t a{};
        a.id = SAI_BUFFER_PROFILE_ATTR_POOL_ID;
        EXPECT_EQ(v.buf->get_buffer_profile_attribute(v.queue_profile(queues(ports()[0])[0]), 1, &a),
                  SAI_STATUS_SUCCESS);
        return a.value.oid;
    }
    sai_status_t create_profile(sai_object_id_t *out, int mode, int8_t th, uint64_t static_th = 0) {
        sai_attribute_t a[4]{};
        a[0].id = SAI_BUFFER_PROFILE_ATTR_POOL_ID;
        a[0].value.oid = pool();
        a[1].id = SAI_BUFFER_PROFILE_ATTR_BUFFER_SIZE;
        a[1].value.u64 = 1518;
        a[2].id = SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE;
        a[2].value.s32 = mode;
        if (mode == SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC) {
            a[3].id = SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH;
            a[3].value.s8 = th;
        } else {
            a[3].id = SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH;
            a[3].value.u64 = static_th;
        }
        return v.buf->create_buffer_profile(out, sw, 4, a);
    }
};

TEST(VasicLifecycle, CallsBeforeInitializeAndDoubleInitialize) {
    Vasic v;
    ASSERT_NE(v.lib, nullptr);
    void *t = nullptr;
    EXPECT_EQ(v.query(SAI_API_QUEUE, &t), SAI_STATUS_UNINITIALIZED);
    EXPECT_EQ(v.advance(1000), -ENODEV);
    EXPECT_EQ(v.now_ns(), 0u);
    EXPECT_EQ(v.profile_count(), -ENODEV);
    ASSERT_EQ(v.initialize(0, &kServices), SAI_STATUS_SUCCESS);
    EXPECT_EQ(v.initialize(0, &kServices), SAI_STATUS_FAILURE);
    EXPECT_NE(std::string(v.last_error()).find("already initialized"), std::string::npos);
    EXPECT_EQ(v.query(static_cast<sai_api_t>(SAI_API_FDB), &t), SAI_STATUS_NOT_IMPLEMENTED);
    EXPECT_EQ(v.query(SAI_API_QUEUE, nullptr), SAI_STATUS_INVALID_PARAMETER);
    ASSERT_TRUE(v.tables());
    sai_object_id_t sw;
    EXPECT_EQ(v.sw->create_switch(&sw, 0, nullptr), SAI_STATUS_MANDATORY_ATTRIBUTE_MISSING);
    EXPECT_EQ(v.uninitialize(), SAI_STATUS_SUCCESS);
    EXPECT_EQ(v.uninitialize(), SAI_STATUS_UNINITIALIZED);
}

TEST(VasicLifecycle, ReinitialiseAfterUninitialize) {
    Vasic v;
    g_profile = {{"VASIC_CLOCK", "manual"}, {"VASIC_SCENARIO_TEXT", "switch ports=2 queues=1\n"}};
    for (int round = 0; round < 3; round++) {
        ASSERT_EQ(v.initialize(0, &kServices), SAI_STATUS_SUCCESS);
        ASSERT_TRUE(v.tables());
        sai_attribute_t a{};
        a.id = SAI_SWITCH_ATTR_INIT_SWITCH;
        a.value.booldata = true;
        sai_object_id_t sw;
        ASSERT_EQ(v.sw->create_switch(&sw, 1, &a), SAI_STATUS_SUCCESS);
        EXPECT_EQ(v.sw->create_switch(&sw, 1, &a), SAI_STATUS_ITEM_ALREADY_EXISTS);
        EXPECT_EQ(v.advance(5000), 0);
        EXPECT_EQ(v.now_ns(), 5000u);  // fresh model each round
        ASSERT_EQ(v.uninitialize(), SAI_STATUS_SUCCESS);
    }
}

TEST(VasicLifecycle, BadClockAndScenarioFailCreateSwitch) {
    Vasic v;
    sai_attribute_t a{};
    a.id = SAI_SWITCH_ATTR_INIT_SWITCH;
    a.value.booldata = true;
    sai_object_id_t sw;
    g_profile = {{"VASIC_CLOCK", "sometimes"}};
    ASSERT_EQ(v.initialize(0, &kServices), SAI_STATUS_SUCCESS);
    ASSERT_TRUE(v.tables());
    EXPECT_EQ(v.sw->create_switch(&sw, 1, &a), SAI_STATUS_INVALID_PARAMETER);
    EXPECT_STREQ(v.last_error(), "profile: bad value 'sometimes' for VASIC_CLOCK (expected realtime or manual)");
    g_profile = {{"VASIC_SCENARIO", "/nonexistent.scn"}};
    EXPECT_EQ(v.sw->create_switch(&sw, 1, &a), SAI_STATUS_FAILURE);
    EXPECT_STREQ(v.last_error(), "scenario:/nonexistent.scn:0: cannot open: No such file or directory");
    v.uninitialize();
}

TEST_F(VasicSai, TopologyAndObjectIds) {
    sai_attribute_t a[3]{};
    a[0].id = SAI_SWITCH_ATTR_PORT_NUMBER;
    a[1].id = SAI_SWITCH_ATTR_TOTAL_BUFFER_SIZE;
    a[2].id = SAI_SWITCH_ATTR_NUMBER_OF_QUEUES;
    ASSERT_EQ(v.sw->get_switch_attribute(sw, 3, a), SAI_STATUS_SUCCESS);
    EXPECT_EQ(a[0].value.u32, 3u);
    EXPECT_EQ(a[1].value.u64, 3000000u / 1024);
    EXPECT_EQ(a[2].value.u32, 12u);

    // a list that is too short: BUFFER_OVERFLOW and the needed count
    sai_object_id_t one[1];
    sai_attribute_t l{};
    l.id = SAI_SWITCH_ATTR_PORT_LIST;
    l.value.objlist = {1, one};
    EXPECT_EQ(v.sw->get_switch_attribute(sw, 1, &l), SAI_STATUS_BUFFER_OVERFLOW);
    EXPECT_EQ(l.value.objlist.count, 3u);

    auto p = ports();
    ASSERT_EQ(p.size(), 3u);
    EXPECT_EQ(v.object_type(sw), SAI_OBJECT_TYPE_SWITCH);
    EXPECT_EQ(v.object_type(p[2]), SAI_OBJECT_TYPE_PORT);
    EXPECT_EQ(v.object_type(pool()), SAI_OBJECT_TYPE_BUFFER_POOL);
    EXPECT_EQ(v.object_type(0x1234), SAI_OBJECT_TYPE_NULL);

    sai_attribute_t pa[2]{};
    pa[0].id = SAI_PORT_ATTR_SPEED;
    pa[1].id = SAI_PORT_ATTR_QOS_NUMBER_OF_QUEUES;
    ASSERT_EQ(v.port->get_port_attribute(p[1], 2, pa), SAI_STATUS_SUCCESS);
    EXPECT_EQ(pa[0].value.u32, 10000u);  // Mbps
    EXPECT_EQ(pa[1].value.u32, 4u);

    auto q = queues(p[1]);
    ASSERT_EQ(q.size(), 4u);
    for (uint32_t i = 0; i < q.size(); i++) {
        sai_attribute_t qa[3]{};
        qa[0].id = SAI_QUEUE_ATTR_TYPE;
        qa[1].id = SAI_QUEUE_ATTR_PORT;
        qa[2].id = SAI_QUEUE_ATTR_INDEX;
        ASSERT_EQ(v.queue->get_queue_attribute(q[i], 3, qa), SAI_STATUS_SUCCESS);
        EXPECT_EQ(qa[0].value.s32, SAI_QUEUE_TYPE_UNICAST);
        EXPECT_EQ(qa[1].value.oid, p[1]);
        EXPECT_EQ(qa[2].value.u8, i);
        EXPECT_EQ(v.object_type(q[i]), SAI_OBJECT_TYPE_QUEUE);
    }
    // bad object ids
    sai_attribute_t x{};
    x.id = SAI_PORT_ATTR_SPEED;
    EXPECT_EQ(v.port->get_port_attribute(q[0], 1, &x), SAI_STATUS_INVALID_OBJECT_ID);
    x.id = SAI_QUEUE_ATTR_INDEX;
    EXPECT_EQ(v.queue->get_queue_attribute(p[0], 1, &x), SAI_STATUS_INVALID_OBJECT_ID);
    // an attribute the model does not have: ATTR_NOT_IMPLEMENTED with its index
    sai_attribute_t two[2]{};
    two[0].id = SAI_QUEUE_ATTR_INDEX;
    two[1].id = SAI_QUEUE_ATTR_WRED_PROFILE_ID;
    EXPECT_EQ(v.queue->get_queue_attribute(q[0], 2, two), SAI_STATUS_ATTR_NOT_IMPLEMENTED_0 - 1);
}

TEST_F(VasicSai, DefaultProfileAndPool) {
    auto q = queues(ports()[2]);
    sai_object_id_t prof = v.queue_profile(q[3]);
    EXPECT_EQ(v.object_type(prof), SAI_OBJECT_TYPE_BUFFER_PROFILE);
    for (auto p : ports())
        for (auto qq : queues(p))
            EXPECT_EQ(v.queue_profile(qq), prof);  // one default profile for every queue
    sai_attribute_t a[3]{};
    a[0].id = SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE;
    a[1].id = SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH;
    a[2].id = SAI_BUFFER_PROFILE_ATTR_POOL_ID;
    ASSERT_EQ(v.buf->get_buffer_profile_attribute(prof, 3, a), SAI_STATUS_SUCCESS);
    EXPECT_EQ(a[0].value.s32, SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC);
    EXPECT_EQ(a[1].value.s8, -1);
    sai_attribute_t pa[3]{};
    pa[0].id = SAI_BUFFER_POOL_ATTR_SIZE;
    pa[1].id = SAI_BUFFER_POOL_ATTR_TYPE;
    pa[2].id = SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE;
    ASSERT_EQ(v.buf->get_buffer_pool_attribute(a[2].value.oid, 3, pa), SAI_STATUS_SUCCESS);
    EXPECT_EQ(pa[0].value.u64, 3000000u);
    EXPECT_EQ(pa[1].value.s32, SAI_BUFFER_POOL_TYPE_EGRESS);
    EXPECT_EQ(pa[2].value.s32, SAI_BUFFER_POOL_THRESHOLD_MODE_DYNAMIC);
    EXPECT_EQ(v.profile_count(), 1);
}

TEST_F(VasicSai, BufferProfileLifecycle) {
    sai_object_id_t p1, p2;
    ASSERT_EQ(create_profile(&p1, SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC, 3), SAI_STATUS_SUCCESS);
    EXPECT_EQ(v.profile_count(), 2);
    EXPECT_EQ(v.profile_th(p1), 3);
    // dynamic_th outside the scenario's th_min..th_max (-6..5): INVALID_ATTR_VALUE_0 + index 3
    EXPECT_EQ(create_profile(&p2, SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC, 6), SAI_STATUS_INVALID_ATTR_VALUE_0 - 3);
    EXPECT_EQ(create_profile(&p2, SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC, -7), SAI_STATUS_INVALID_ATTR_VALUE_0 - 3);
    EXPECT_EQ(v.profile_count(), 2);

    sai_attribute_t s{};
    s.id = SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH;
    s.value.s8 = -6;
    EXPECT_EQ(v.buf->set_buffer_profile_attribute(p1, &s), SAI_STATUS_SUCCESS);
    EXPECT_EQ(v.profile_th(p1), -6);
    s.value.s8 = 7;
    EXPECT_EQ(v.buf->set_buffer_profile_attribute(p1, &s), SAI_STATUS_INVALID_ATTR_VALUE_0);
    EXPECT_EQ(v.profile_th(p1), -6);
    // pool and mode are create-only
    s.id = SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE;
    s.value.s32 = SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC;
    EXPECT_EQ(v.buf->set_buffer_profile_attribute(p1, &s), SAI_STATUS_INVALID_PARAMETER);
    s.id = SAI_BUFFER_PROFILE_ATTR_POOL_ID;
    s.value.oid = pool();
    EXPECT_EQ(v.buf->set_buffer_profile_attribute(p1, &s), SAI_STATUS_INVALID_PARAMETER);

    // in use -> refuse removal; after moving the queue away -> removable
    auto q = queues(ports()[0])[2];
    sai_object_id_t orig = v.queue_profile(q);
    sai_attribute_t qa{};
    qa.id = SAI_QUEUE_ATTR_BUFFER_PROFILE_ID;
    qa.value.oid = p1;
    ASSERT_EQ(v.queue->set_queue_attribute(q, &qa), SAI_STATUS_SUCCESS);
    EXPECT_EQ(v.queue_profile(q), p1);
    EXPECT_EQ(v.buf->remove_buffer_profile(p1), SAI_STATUS_OBJECT_IN_USE);
    EXPECT_EQ(v.buf->remove_buffer_profile(orig), SAI_STATUS_OBJECT_IN_USE);
    qa.value.oid = orig;
    ASSERT_EQ(v.queue->set_queue_attribute(q, &qa), SAI_STATUS_SUCCESS);
    EXPECT_EQ(v.buf->remove_buffer_profile(p1), SAI_STATUS_SUCCESS);
    EXPECT_EQ(v.profile_count(), 1);
    // a removed profile's id stays invalid even when its slot is reused
    EXPECT_EQ(v.buf->remove_buffer_profile(p1), SAI_STATUS_INVALID_OBJECT_ID);
    ASSERT_EQ(create_profile(&p2, SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC, 0), SAI_STATUS_SUCCESS);
    EXPECT_NE(p2, p1);
    EXPECT_EQ(v.object_type(p1), SAI_OBJECT_TYPE_NULL);
    EXPECT_EQ(v.buf->set_buffer_profile_attribute(p1, &s), SAI_STATUS_INVALID_OBJECT_ID);
    qa.value.oid = p1;
    EXPECT_EQ(v.queue->set_queue_attribute(q, &qa), SAI_STATUS_INVALID_PARAMETER);
}

TEST_F(VasicSai, CreateProfileValidation) {
    sai_object_id_t p;
    sai_attribute_t a[2]{};
    a[0].id = SAI_BUFFER_PROFILE_ATTR_POOL_ID;
    a[0].value.oid = pool();
    a[1].id = SAI_BUFFER_PROFILE_ATTR_BUFFER_SIZE;
    a[1].value.u64 = 0;
    // dynamic by default, so SHARED_DYNAMIC_TH is missing
    EXPECT_EQ(v.buf->create_buffer_profile(&p, sw, 2, a), SAI_STATUS_MANDATORY_ATTRIBUTE_MISSING);
    EXPECT_EQ(v.buf->create_buffer_profile(&p, sw, 1, a), SAI_STATUS_MANDATORY_ATTRIBUTE_MISSING);
    a[0].value.oid = sw;  // not a pool
    EXPECT_EQ(v.buf->create_buffer_profile(&p, sw, 2, a), SAI_STATUS_INVALID_ATTR_VALUE_0);
    a[0].id = 0x777;  // unknown attribute
    EXPECT_EQ(v.buf->create_buffer_profile(&p, sw, 2, a), SAI_STATUS_UNKNOWN_ATTRIBUTE_0);
    ASSERT_EQ(create_profile(&p, SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC, 0, 50000), SAI_STATUS_SUCCESS);
    sai_attribute_t g{};
    g.id = SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH;
    ASSERT_EQ(v.buf->get_buffer_profile_attribute(p, 1, &g), SAI_STATUS_SUCCESS);
    EXPECT_EQ(g.value.u64, 50000u);
    g.id = SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH;
    g.value.s8 = 1;
    EXPECT_EQ(v.buf->set_buffer_profile_attribute(p, &g), SAI_STATUS_INVALID_PARAMETER);
}

TEST_F(VasicSai, StatsModesAndWatermarkReadAndClear) {
    auto q = queues(ports()[0]);
    // port 0 queue 1 is fed at 2x line rate: it fills to its DT threshold
    ASSERT_EQ(v.advance(200000), 0);  // 0.2 ms
    const sai_stat_id_t ids[] = {SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES, SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES,
                                 SAI_QUEUE_STAT_BYTES, SAI_QUEUE_STAT_PACKETS};
    uint64_t c[4], d[4];
    ASSERT_EQ(v.queue->get_queue_stats(q[1], 4, ids, c), SAI_STATUS_SUCCESS);
    EXPECT_GT(c[0], 0u);
    // still growing: the peak is the occupancy after this step's arrivals,
    // before its departures (at most a step of drain above the current value)
    EXPECT_GE(c[1], c[0]);
    EXPECT_LE(c[1], c[0] + 1500);
    EXPECT_EQ(c[2], c[3] * 1500);
    // READ does not clear
    ASSERT_EQ(v.queue->get_queue_stats_ext(q[1], 4, ids, SAI_STATS_MODE_READ, d), SAI_STATUS_SUCCESS);
    EXPECT_EQ(std::memcmp(c, d, sizeof(c)), 0);
    // READ_AND_CLEAR zeroes counters, leaves the gauge, resets the watermark to the occupancy
    ASSERT_EQ(v.queue->get_queue_stats_ext(q[1], 4, ids, SAI_STATS_MODE_READ_AND_CLEAR, d), SAI_STATUS_SUCCESS);
    ASSERT_EQ(v.queue->get_queue_stats(q[1], 4, ids, c), SAI_STATUS_SUCCESS);
    EXPECT_EQ(c[0], d[0]);
    EXPECT_EQ(c[1], d[0]);
    EXPECT_EQ(c[2], 0u);
    EXPECT_EQ(c[3], 0u);
    // clear_queue_stats (after the queue has reached its threshold: B/3 at 10 Gbps net)
    ASSERT_EQ(v.advance(2000000), 0);
    const sai_stat_id_t drops[] = {SAI_QUEUE_STAT_DROPPED_PACKETS};
    ASSERT_EQ(v.queue->get_queue_stats(q[1], 1, drops, c), SAI_STATUS_SUCCESS);
    EXPECT_GT(c[0], 0u);  // saturated: DT drops
    ASSERT_EQ(v.queue->clear_queue_stats(q[1], 1, drops), SAI_STATUS_SUCCESS);
    ASSERT_EQ(v.queue->get_queue_stats(q[1], 1, drops, c), SAI_STATUS_SUCCESS);
    EXPECT_EQ(c[0], 0u);
    // bad mode, unsupported counter, bad object
    EXPECT_EQ(v.queue->get_queue_stats_ext(q[1], 1, ids, SAI_STATS_MODE_BULK_READ, c), SAI_STATUS_INVALID_PARAMETER);
    const sai_stat_id_t bad[] = {SAI_QUEUE_STAT_BYTES, 0x4242};
    EXPECT_EQ(v.queue->get_queue_stats(q[1], 2, bad, c), SAI_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(v.queue->get_queue_stats(ports()[0], 1, ids, c), SAI_STATUS_INVALID_OBJECT_ID);
    // pool
    const sai_stat_id_t pids[] = {SAI_BUFFER_POOL_STAT_CURR_OCCUPANCY_BYTES, SAI_BUFFER_POOL_STAT_WATERMARK_BYTES};
    ASSERT_EQ(v.buf->get_buffer_pool_stats(pool(), 2, pids, c), SAI_STATUS_SUCCESS);
    EXPECT_GT(c[0], 0u);
    EXPECT_GE(c[1], c[0]);
}

TEST_F(VasicSai, ManualClockCarriesPartialSteps) {
    EXPECT_EQ(v.now_ns(), 0u);
    EXPECT_EQ(v.advance(400), 0);
    EXPECT_EQ(v.now_ns(), 0u);  // below one 1000 ns step
    EXPECT_EQ(v.advance(700), 0);
    EXPECT_EQ(v.now_ns(), 1000u);
    EXPECT_EQ(v.advance(2900), 0);
    EXPECT_EQ(v.now_ns(), 4000u);
    struct vasic_totals t = v.totals();
    EXPECT_EQ(t.model_ns, 4000u);
}

TEST_F(VasicSai, FaultInjectionCountsDown) {
    auto q = queues(ports()[0])[0];
    const sai_stat_id_t ids[] = {SAI_QUEUE_STAT_BYTES};
    uint64_t c;
    EXPECT_EQ(v.inject_fault("no_such_call", 1), -EINVAL);
    EXPECT_EQ(v.inject_fault("get_stats", -1), -EINVAL);
    ASSERT_EQ(v.inject_fault("get_stats", 2), 0);
    EXPECT_EQ(v.queue->get_queue_stats(q, 1, ids, &c), SAI_STATUS_FAILURE);
    EXPECT_STREQ(v.last_error(), "injected fault: get_stats");
    EXPECT_EQ(v.queue->get_queue_stats(q, 1, ids, &c), SAI_STATUS_FAILURE);
    EXPECT_EQ(v.queue->get_queue_stats(q, 1, ids, &c), SAI_STATUS_SUCCESS);
    EXPECT_STREQ(v.last_error(), "");
    ASSERT_EQ(v.inject_fault("get_attr", 1), 0);
    sai_attribute_t a{};
    a.id = SAI_QUEUE_ATTR_INDEX;
    EXPECT_EQ(v.queue->get_queue_attribute(q, 1, &a), SAI_STATUS_FAILURE);
    EXPECT_EQ(v.queue->get_queue_attribute(q, 1, &a), SAI_STATUS_SUCCESS);
    ASSERT_EQ(v.inject_fault("get_attr", 5), 0);
    ASSERT_EQ(v.inject_fault("get_attr", 0), 0);  // cancel
    EXPECT_EQ(v.queue->get_queue_attribute(q, 1, &a), SAI_STATUS_SUCCESS);
}

}  // namespace

namespace {

// A caller built with the official headers may read any member of a table it is
// handed: each table has the official SAI v1.18.1 length, and every slot is callable.
template <typename Table>
void expect_every_slot_callable(const Table *t, size_t official_members, const char *name) {
    static_assert(sizeof(Table) % sizeof(void *) == 0, "a method table is an array of pointers");
    EXPECT_EQ(sizeof(Table) / sizeof(void *), official_members) << name;
    void *slots[sizeof(Table) / sizeof(void *)];
    std::memcpy(slots, t, sizeof(Table));
    for (size_t i = 0; i < sizeof(Table) / sizeof(void *); i++)
        EXPECT_NE(slots[i], nullptr) << name << " member " << i;
}

TEST_F(VasicSai, MethodTablesHaveTheOfficialLengthAndNoEmptySlot) {
    expect_every_slot_callable(v.sw, 15, "sai_switch_api_t");
    expect_every_slot_callable(v.port, 35, "sai_port_api_t");
    expect_every_slot_callable(v.queue, 9, "sai_queue_api_t");
    expect_every_slot_callable(v.buf, 20, "sai_buffer_api_t");
    // the members past the old subset's end answer NOT_IMPLEMENTED
    uint32_t reg = 0;
    EXPECT_EQ(v.sw->switch_mdio_read(sw, 0, 0, 1, &reg), SAI_STATUS_NOT_IMPLEMENTED);
    EXPECT_EQ(v.sw->switch_mdio_cl22_write(sw, 0, 0, 1, &reg), SAI_STATUS_NOT_IMPLEMENTED);
    sai_attribute_t a{};
    EXPECT_EQ(v.port->get_port_llr_profile_attribute(ports()[0], 1, &a), SAI_STATUS_NOT_IMPLEMENTED);
    sai_status_t st[1];
    EXPECT_EQ(v.port->remove_ports(0, nullptr, SAI_BULK_OP_ERROR_MODE_STOP_ON_ERROR, st), SAI_STATUS_NOT_IMPLEMENTED);
}

using QueryStatsCapability = sai_status_t (*)(sai_object_id_t, sai_object_type_t, sai_stat_capability_list_t *);

TEST_F(VasicSai, StatsCapabilityListsEveryCounterWithItsModes) {
    auto query = reinterpret_cast<QueryStatsCapability>(dlsym(v.lib, "sai_query_stats_capability"));
    ASSERT_NE(query, nullptr);
    sai_stat_capability_list_t l{0, nullptr};
    EXPECT_EQ(query(sw, SAI_OBJECT_TYPE_QUEUE, &l), SAI_STATUS_BUFFER_OVERFLOW);
    ASSERT_EQ(l.count, 8u);  // packets, bytes, drops x2, occupancy x2, watermark x2
    std::vector<sai_stat_capability_t> caps(l.count);
    l.list = caps.data();
    ASSERT_EQ(query(sw, SAI_OBJECT_TYPE_QUEUE, &l), SAI_STATUS_SUCCESS);
    std::map<sai_stat_id_t, uint32_t> modes;
    for (const auto &c : caps)
        modes[c.stat_enum] = c.stat_modes;
    EXPECT_EQ(modes.at(SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES), SAI_STATS_MODE_READ | SAI_STATS_MODE_READ_AND_CLEAR);
    EXPECT_EQ(modes.at(SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES), static_cast<uint32_t>(SAI_STATS_MODE_READ));
    l.count = 8;
    EXPECT_EQ(query(sw, SAI_OBJECT_TYPE_BUFFER_POOL, &l), SAI_STATUS_SUCCESS);
    EXPECT_EQ(l.count, 3u);
    EXPECT_EQ(query(sw, SAI_OBJECT_TYPE_PORT, &l), SAI_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(query(ports()[0], SAI_OBJECT_TYPE_QUEUE, &l), SAI_STATUS_INVALID_OBJECT_ID);
}

TEST(VasicVendor, UnsupportedCountersLeaveTheCapabilityListAndFailTheirReads) {
    Vasic v;
    g_profile = {{"VASIC_CLOCK", "manual"},
                 {"VASIC_SCENARIO_TEXT", "switch ports=1 queues=1\n"},
                 {"VASIC_UNSUPPORTED_STATS", "SAI_QUEUE_STAT_DROPPED_BYTES,SAI_BUFFER_POOL_STAT_WATERMARK_BYTES"}};
    ASSERT_EQ(v.initialize(0, &kServices), SAI_STATUS_SUCCESS);
    ASSERT_TRUE(v.tables());
    sai_attribute_t a{};
    a.id = SAI_SWITCH_ATTR_INIT_SWITCH;
    a.value.booldata = true;
    sai_object_id_t sw;
    ASSERT_EQ(v.sw->create_switch(&sw, 1, &a), SAI_STATUS_SUCCESS) << v.last_error();
    auto query = reinterpret_cast<QueryStatsCapability>(dlsym(v.lib, "sai_query_stats_capability"));
    std::vector<sai_stat_capability_t> caps(16);
    sai_stat_capability_list_t l{16, caps.data()};
    ASSERT_EQ(query(sw, SAI_OBJECT_TYPE_QUEUE, &l), SAI_STATUS_SUCCESS);
    EXPECT_EQ(l.count, 7u);
    for (uint32_t i = 0; i < l.count; i++)
        EXPECT_NE(caps[i].stat_enum, static_cast<sai_stat_id_t>(SAI_QUEUE_STAT_DROPPED_BYTES));
    v.uninitialize();
    // a misspelt counter name is refused, naming it
    g_profile["VASIC_UNSUPPORTED_STATS"] = "SAI_QUEUE_STAT_DROPS";
    ASSERT_EQ(v.initialize(0, &kServices), SAI_STATUS_SUCCESS);
    ASSERT_TRUE(v.tables());
    EXPECT_EQ(v.sw->create_switch(&sw, 1, &a), SAI_STATUS_INVALID_PARAMETER);
    EXPECT_STREQ(v.last_error(), "profile: VASIC_UNSUPPORTED_STATS: unknown counter 'SAI_QUEUE_STAT_DROPS'");
    v.uninitialize();
}

TEST(Exports, OnlyThePublicSymbols) {
    void *v = dlopen(ALPHAD_TEST_VASIC, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(v, nullptr);
    for (const char *s : {"sai_api_initialize", "sai_api_query", "sai_api_uninitialize", "sai_log_set",
                          "sai_object_type_query", "sai_switch_id_query", "sai_query_stats_capability",
                          "vasic_advance", "vasic_now_ns",
                          "vasic_last_error", "vasic_totals", "vasic_inject_fault", "vasic_profile_count"})
        EXPECT_NE(dlsym(v, s), nullptr) << s;
    for (const char *s : {"vm_create", "vm_run_until", "vm_offer", "vscn_parse_text", "vscn_defaults"})
        EXPECT_EQ(dlsym(v, s), nullptr) << s;
    dlclose(v);
    void *shim = dlopen(ALPHAD_TEST_SHIM, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(shim, nullptr);
    for (const char *s : {"alphad_sai_abi_version", "alphad_strerror", "alphad_sai_open", "alphad_sai_close",
                          "alphad_sai_last_error", "alphad_sai_counts", "alphad_sai_queues", "alphad_sai_read_stats",
                          "alphad_sai_set_log2_alpha", "alphad_sai_set_log2_alpha_bulk", "alphad_sai_get_log2_alpha",
                          "alphad_sai_restore", "alphad_sai_advance", "alphad_sai_stats_supported"})
        EXPECT_NE(dlsym(shim, s), nullptr) << s;
    for (const char *s : {"discover", "sai_status_name", "svc_get_value", "sai_api_query", "probe_stats",
                          "sai_fail", "set_error"})
        EXPECT_EQ(dlsym(shim, s), nullptr) << s;
    dlclose(shim);
}

}  // namespace
