// Scenario parser: accepted forms, expansion of port/queue lists, derived
// values, and one error message per kind of mistake (file and line named).
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <string>

extern "C" {
#include "scenario.h"
}
#include "helpers.h"

namespace {

struct Parsed {
    vscn s{};
    int rc = -1;
    std::string err;
    explicit Parsed(const std::string &text, const char *name = "t.scn") {
        char buf[512] = "";
        rc = vscn_parse_text(text.c_str(), name, &s, buf, sizeof(buf));
        err = buf;
    }
    ~Parsed() { vscn_free(&s); }
};

TEST(Scenario, EmptyTextGivesDefaults) {
    Parsed p("# nothing but a comment\n\n   \n");
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.s.sw.ports, 16u);
    EXPECT_EQ(p.s.sw.queues, 8u);
    EXPECT_EQ(p.s.sw.speed_bps, 10000000000ull);
    EXPECT_EQ(p.s.sw.buffer_bytes, static_cast<uint64_t>(std::llround(9.6 * 1024 * 16 * 10)));
    EXPECT_EQ(p.s.sw.step_ns, 1000u);
    EXPECT_EQ(p.s.sw.pkt_bytes, 1500u);
    EXPECT_EQ(p.s.sw.dynamic_th, -1);
    EXPECT_EQ(p.s.sw.th_min, -8);
    EXPECT_EQ(p.s.sw.th_max, 7);
    EXPECT_EQ(p.s.sw.sched, VSCN_SCHED_RR);
    EXPECT_EQ(p.s.n_src, 0u);
}

TEST(Scenario, SwitchKeys) {
    Parsed p("switch ports=4 queues=2 speed_gbps=25 buffer_kb_per_port_per_gbps=2 scheduler=sp "
             "step_ns=100 pkt_bytes=9000 dynamic_th=2 th_min=-4 th_max=3 seed=99  # comment\n");
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.s.sw.ports, 4u);
    EXPECT_EQ(p.s.sw.queues, 2u);
    EXPECT_EQ(p.s.sw.speed_bps, 25000000000ull);
    EXPECT_EQ(p.s.sw.buffer_bytes, 2u * 1024 * 4 * 25);
    EXPECT_EQ(p.s.sw.sched, VSCN_SCHED_SP);
    EXPECT_EQ(p.s.sw.step_ns, 100u);
    EXPECT_EQ(p.s.sw.pkt_bytes, 9000u);
    EXPECT_EQ(p.s.sw.dynamic_th, 2);
    EXPECT_EQ(p.s.sw.th_min, -4);
    EXPECT_EQ(p.s.sw.th_max, 3);
    EXPECT_EQ(p.s.sw.seed, 99u);
}

TEST(Scenario, TrafficAfterOrBeforeSwitchAndListExpansion) {
    // the switch directive may come after the traffic that depends on it
    Parsed p("greedy port=0-3 queue=0,1 rate_gbps=2.5 start_ms=1 stop_ms=2.5\n"
             "switch ports=8 queues=4 buffer_bytes=1000000\n"
             "onoff port=all queue=3 rate_gbps=5 on_ms=2 off_ms=8\n"
             "incast port=7 queue=0 buffer_pct=30 fanin=32 sender_gbps=10 poisson_hz=100\n");
    ASSERT_EQ(p.rc, 0) << p.err;
    ASSERT_EQ(p.s.n_src, 4u * 2 + 8 + 1);
    const vscn_source &g = p.s.src[0];
    EXPECT_EQ(g.kind, VSCN_GREEDY);
    EXPECT_EQ(g.line, 1);
    EXPECT_EQ(g.rate_bps, 2500000000ull);
    EXPECT_EQ(g.start_ns, 1000000u);
    EXPECT_EQ(g.stop_ns, 2500000u);
    EXPECT_EQ(p.s.src[7].port, 3u);
    EXPECT_EQ(p.s.src[7].queue, 1u);
    const vscn_source &o = p.s.src[8];
    EXPECT_EQ(o.kind, VSCN_ONOFF);
    EXPECT_EQ(o.on_ns, 2000000u);
    EXPECT_EQ(o.off_ns, 8000000u);
    EXPECT_EQ(o.stop_ns, VSCN_NO_STOP);
    const vscn_source &i = p.s.src[16];
    EXPECT_EQ(i.kind, VSCN_INCAST);
    EXPECT_EQ(i.fanin, 32u);
    // 30% of 1 MB, rounded down to a multiple of fanin
    EXPECT_EQ(i.burst_bytes, (300000u / 32) * 32);
    EXPECT_DOUBLE_EQ(i.poisson_hz, 100.0);
    EXPECT_EQ(i.period_ns, 0u);
}

TEST(Scenario, ExampleFilesParse) {
    for (const char *f : {"dt_two_ports.scn", "incast.scn", "example.scn"}) {
        vscn s{};
        char err[512] = "";
        EXPECT_EQ(vscn_parse_file(alphad_test::data(f).c_str(), &s, err, sizeof(err)), 0) << f << ": " << err;
        vscn_free(&s);
    }
}

struct BadCase {
    const char *text;
    const char *message;  // expected after "scenario:t.scn:"
};

void PrintTo(const BadCase &c, std::ostream *os) { *os << '"' << c.text << '"'; }

// names such as Line2_UnknownDirectiveFlood: the line and the first words of the message
std::string bad_case_name(const ::testing::TestParamInfo<BadCase> &info) {
    std::string msg = info.param.message, name = "Line" + msg.substr(0, msg.find(':')) + "_";
    int words = 0;
    bool upper = true;
    for (size_t i = msg.find(':') + 1; i < msg.size() && words < 6; i++) {
        const unsigned char c = static_cast<unsigned char>(msg[i]);
        if (std::isalnum(c)) {
            name += upper ? static_cast<char>(std::toupper(c)) : static_cast<char>(c);
            upper = false;
        } else if (!upper) {
            upper = true;
            words++;
        }
    }
    return name;
}

class ScenarioErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(ScenarioErrors, NamesLineAndProblem) {
    Parsed p(GetParam().text);
    EXPECT_EQ(p.rc, -1);
    EXPECT_EQ(p.err, std::string("scenario:t.scn:") + GetParam().message);
    EXPECT_EQ(p.s.n_src, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    All, ScenarioErrors,
    ::testing::Values(
        BadCase{"switch ports=4\nflood port=0\n", "2: unknown directive 'flood' (expected switch, greedy, incast or onoff)"},
        BadCase{"greedy port=0 queue=0 rate=10\n",
                "1: unknown key 'rate' for directive 'greedy' (allowed: port, queue, rate_gbps, start_ms, stop_ms)"},
        BadCase{"\n\ngreedy port=0 queue=0 rate_gbps=ten\n",
                "3: bad number 'ten' for key 'rate_gbps' (expected a decimal number)"},
        BadCase{"switch ports=4\ngreedy port=4 queue=0 rate_gbps=1\n",
                "2: port 4 out of range (the switch has 4 ports: 0-3)"},
        BadCase{"greedy port=0 queue=8 rate_gbps=1\n", "1: queue 8 out of range (the switch has 8 queues: 0-7)"},
        BadCase{"greedy queue=0 rate_gbps=1\n", "1: missing required key 'port' for directive 'greedy'"},
        BadCase{"greedy port=0 queue=0\n", "1: missing required key 'rate_gbps' for directive 'greedy'"},
        BadCase{"switch buffer_bytes=1000 buffer_kb_per_port_per_gbps=9.6 pkt_bytes=64\n",
                "1: conflicting keys 'buffer_bytes' and 'buffer_kb_per_port_per_gbps' (give one)"},
        BadCase{"incast port=0 queue=0 bytes=100000 buffer_pct=10 period_ms=1\n",
                "1: conflicting keys 'bytes' and 'buffer_pct' (give one)"},
        BadCase{"incast port=0 queue=0 bytes=100000 period_ms=1 poisson_hz=5\n",
                "1: conflicting keys 'period_ms' and 'poisson_hz' (give one)"},
        BadCase{"incast port=0 queue=0 bytes=100000\n",
                "1: missing required key 'period_ms' or 'poisson_hz' for directive 'incast'"},
        BadCase{"incast port=0 queue=0 bytes=10 fanin=32 period_ms=1\n",
                "1: burst of 10 bytes is smaller than fanin=32 (each sender needs 1 byte)"},
        BadCase{"switch ports=2\nswitch ports=3\n", "2: duplicate 'switch' directive (first on line 1)"},
        BadCase{"switch ports=0\n", "1: ports=0 out of range (1..4096)"},
        BadCase{"switch queues=65\n", "1: queues=65 out of range (1..64)"},
        BadCase{"switch scheduler=wfq\n", "1: bad value 'wfq' for key 'scheduler' (expected rr or sp)"},
        BadCase{"switch th_max=3 dynamic_th=5\n", "1: dynamic_th=5 outside th_min..th_max (-8..3)"},
        BadCase{"switch th_min=2 th_max=1\n", "1: th_min=2 is above th_max=1"},
        BadCase{"greedy port=0 queue=0 rate_gbps=1 start_ms=5 stop_ms=5\n", "1: stop_ms must be after start_ms"},
        BadCase{"greedy port=0 queue=0 rate_gbps=-1\n", "1: rate_gbps=-1 out of range (>0..100000)"},
        BadCase{"greedy port=0 queue=0 rate_gbps=1 rate_gbps=2\n", "1: duplicate key 'rate_gbps'"},
        BadCase{"greedy port=0 queue=0 rate_gbps\n", "1: bad token 'rate_gbps' (expected key=value)"},
        BadCase{"greedy port= queue=0 rate_gbps=1\n", "1: missing value for key 'port'"},
        BadCase{"greedy port=3-1 queue=0 rate_gbps=1\n", "1: bad port range 3-1 for key 'port' (end before start)"},
        BadCase{"greedy port=0,,1 queue=0 rate_gbps=1\n",
                "1: bad port list '0,,1' for key 'port' (expected e.g. 3, 0-7, 0,2,5 or all)"},
        BadCase{"onoff port=0 queue=0 rate_gbps=1 on_ms=2\n", "1: missing required key 'off_ms' for directive 'onoff'"},
        BadCase{"switch step_ns=1.5\n", "1: bad number '1.5' for key 'step_ns' (expected a non-negative integer)"},
        BadCase{"ports=4\n", "1: line starts with 'ports=4': expected a directive (switch, greedy, incast, onoff)"}),
    bad_case_name);

TEST(Scenario, MissingFileIsAnError) {
    vscn s{};
    char err[512] = "";
    EXPECT_EQ(vscn_parse_file("/nonexistent/x.scn", &s, err, sizeof(err)), -1);
    EXPECT_EQ(std::string(err), "scenario:/nonexistent/x.scn:0: cannot open: No such file or directory");
}

TEST(Scenario, FileErrorNamesTheFile) {
    vscn s{};
    char err[512] = "";
    std::string path = alphad_test::data("bad_unknown_key.scn");
    EXPECT_EQ(vscn_parse_file(path.c_str(), &s, err, sizeof(err)), -1);
    EXPECT_EQ(std::string(err).rfind("scenario:" + path + ":4: unknown key 'rate'", 0), 0u) << err;
}

}  // namespace
