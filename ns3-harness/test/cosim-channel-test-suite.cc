/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * The co-simulation record exchange, over in-memory streams.
 */

#include "ns3/cosim-channel.h"
#include "ns3/boolean.h"
#include "ns3/dt-buffer-scheme.h"
#include "ns3/shared-buffer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

/// A switch of two ports with two queues each, pool 100000 bytes, alpha 1.
static Ptr<SharedBuffer>
TwoByTwo(const char* rate1)
{
    Ptr<SharedBuffer> b = CreateObject<SharedBuffer>();
    b->SetScheme(CreateObject<ExternalBufferScheme>());
    b->SetAttribute("PoolBytes", UintegerValue(100000));
    b->SetAttribute("QueuesPerPort", UintegerValue(2));
    b->SetAttribute("Alphas", StringValue("1"));
    b->AddPort(DataRate("10Gbps"));
    b->AddPort(DataRate(rate1));
    return b;
}

/// The records a memory stream received, one per line (frees the buffer).
static std::vector<std::string>
Lines(char* buf, size_t len)
{
    std::istringstream ss(std::string(buf, len));
    free(buf);
    std::vector<std::string> lines;
    for (std::string l; std::getline(ss, l);)
    {
        lines.push_back(l);
    }
    return lines;
}

/// Snapshots carry read-and-clear watermarks and counters; answers set alphas.
class CosimExchangeTestCase : public TestCase
{
  public:
    CosimExchangeTestCase()
        : TestCase("snapshot records and alpha answers")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<SharedBuffer> b = TwoByTwo("25Gbps");

        // The controller's answers, written ahead: interval 1 sets queue 3, interval 2 nothing.
        std::string answers = "ALPHA 1 sw0 2 3 0.125 0 2\nDONE 1\nDONE 2\n";
        FILE* in = fmemopen(answers.data(), answers.size(), "r");
        char* outBuf = nullptr;
        size_t outLen = 0;
        FILE* out = open_memstream(&outBuf, &outLen);

        Ptr<CosimChannel> chan = CreateObject<CosimChannel>();
        chan->SetAttribute("Interval", TimeValue(MicroSeconds(10)));
        chan->AddSwitch("sw0", b);
        chan->Start(in, out);
        Simulator::Schedule(MicroSeconds(2), [b]() {
            const char* r = nullptr;
            for (int i = 0; i < 4; ++i)
            {
                b->Admit(1, 1, 1000, false, &r); // port 1 queue 1 = queue 3
            }
            b->Dequeued(1, 1, 1000);
        });
        Simulator::Stop(MicroSeconds(25));
        Simulator::Run();
        chan->Finish();
        fclose(out);
        fclose(in);

        std::vector<std::string> lines = Lines(outBuf, outLen);
        NS_TEST_ASSERT_MSG_EQ(lines.size(), 3u + 2 * 9 + 1, "records: " << lines.size());
        NS_TEST_EXPECT_MSG_EQ(lines[0], "HELLO alphad-ns3-cosim 1", "hello");
        NS_TEST_EXPECT_MSG_EQ(lines[1], "SWITCH sw0 2 2 100000 10000000000 25000000000", "topology");
        NS_TEST_EXPECT_MSG_EQ(lines[2], "READY 1 10000", "ready");
        NS_TEST_EXPECT_MSG_EQ(lines[3], "SNAP 1 10000 sw0 3000 4000", "first snapshot header");
        NS_TEST_EXPECT_MSG_EQ(lines[4], "wm 0 0 0 4000", "watermark peak");
        NS_TEST_EXPECT_MSG_EQ(lines[5], "len 0 0 0 3000", "lengths");
        NS_TEST_EXPECT_MSG_EQ(lines[6], "txb 0 0 0 1000", "tx bytes");
        NS_TEST_EXPECT_MSG_EQ(lines[7], "txp 0 0 0 1", "tx packets");
        NS_TEST_EXPECT_MSG_EQ(lines[10], "alpha 1 1 1 1", "alphas before the answer");
        NS_TEST_EXPECT_MSG_EQ(lines[11], "TICK 1", "tick");
        NS_TEST_EXPECT_MSG_EQ(lines[12], "SNAP 2 20000 sw0 3000 3000", "pool watermark restarts");
        NS_TEST_EXPECT_MSG_EQ(lines[13], "wm 0 0 0 3000", "watermark cleared by the read");
        NS_TEST_EXPECT_MSG_EQ(lines[19], "alpha 2 1 1 0.125", "answer applied");
        NS_TEST_EXPECT_MSG_EQ(lines[21], "BYE 25000", "bye");
        NS_TEST_EXPECT_MSG_EQ(chan->GetExchanges(), 2u, "two intervals");
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(1, 1, false), 0.125 * 97000, 1e-9, "threshold uses it");
        Simulator::Destroy();
        chan->Dispose();
        b->Dispose();
    }
};

/// DT's admission on the state at a drop, with the raised queues held at DT's bound.
class ShadowDtAdmitsTestCase : public TestCase
{
  public:
    ShadowDtAdmitsTestCase()
        : TestCase("a drop DT at the operator's alphas would have admitted")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<double> one{1, 1};
        // Nothing raised: queue 1 at 6000 is above alpha0 (B - Q) = 6000 - 1000; DT drops too.
        NS_TEST_EXPECT_MSG_EQ(ShadowDtAdmits({8000, 6000}, one, one, 1, 1000, 14000, 20000), false,
                              "no raise, no shadow admission");
        // Queue 0 raised to 8 holds 1000 above DT's bound at F' = 7000: DT admits.
        NS_TEST_EXPECT_MSG_EQ(ShadowDtAdmits({8000, 6000}, {8, 1}, one, 1, 1000, 14000, 20000), true,
                              "the raised queue's excess frees what the packet needs");
        // Queue 0 is raised but within DT's bound at the F' the packet needs: DT drops too.
        NS_TEST_EXPECT_MSG_EQ(ShadowDtAdmits({7000, 6500}, {8, 1}, one, 1, 1000, 13500, 20000),
                              false, "a raise that holds nothing above DT's bound");
        // Two raised queues: each frees its length above alpha0 F' at F' = need (3000).
        NS_TEST_EXPECT_MSG_EQ(
            ShadowDtAdmits({5000, 5000, 2000}, {4, 4, 1}, {1, 1, 1}, 2, 1000, 12000, 14000), true,
            "excess of every raised queue");
        // ... but not the excess of a queue at its operator's alpha (transient under DT).
        NS_TEST_EXPECT_MSG_EQ(
            ShadowDtAdmits({5000, 5000, 2000}, {1, 1, 1}, {1, 1, 1}, 2, 1000, 12000, 14000), false,
            "a queue over its bound at its operator's alpha frees nothing");
        // A queue lowered below its operator's alpha: DT admits at the same free buffer.
        NS_TEST_EXPECT_MSG_EQ(ShadowDtAdmits({0, 3000}, {1, 0.25}, one, 1, 1000, 3000, 20000), true,
                              "a lowered queue's own drop");
        // The pool itself must hold the packet.
        NS_TEST_EXPECT_MSG_EQ(ShadowDtAdmits({0, 0}, {1, 1}, {1, 16}, 1, 1000, 19500, 20000), false,
                              "bytes > F'");
    }
};

/// With ShadowDt the snapshots carry the drops DT would have admitted, per queue.
class CosimShadowTestCase : public TestCase
{
  public:
    CosimShadowTestCase()
        : TestCase("shadow drop rows")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<SharedBuffer> b = TwoByTwo("10Gbps");

        // Interval 1 raises queue 0 to 8; interval 2 writes nothing.
        std::string answers = "ALPHA 1 sw0 1 0 8\nDONE 1\nDONE 2\n";
        FILE* in = fmemopen(answers.data(), answers.size(), "r");
        char* outBuf = nullptr;
        size_t outLen = 0;
        FILE* out = open_memstream(&outBuf, &outLen);

        Ptr<CosimChannel> chan = CreateObject<CosimChannel>();
        chan->SetAttribute("Interval", TimeValue(MicroSeconds(10)));
        chan->SetAttribute("ShadowDt", BooleanValue(true));
        chan->AddSwitch("sw0", b);
        chan->Start(in, out);
        uint32_t admitted3 = 0;
        // Before the raise: queue 1 fills to DT's bound and drops; DT drops it too.
        Simulator::Schedule(MicroSeconds(2), [b]() {
            const char* r = nullptr;
            for (int i = 0; i < 60; ++i)
            {
                b->Admit(0, 1, 1000, false, &r);
            }
            for (int i = 0; i < 60; ++i)
            {
                b->Dequeued(0, 1, 1000);
                if (b->GetQueue(0, 1).len == 0)
                {
                    break;
                }
            }
        });
        // After it: queue 0 fills to 88000, then queue 3 meets the free buffer it left.
        Simulator::Schedule(MicroSeconds(12), [b, &admitted3]() {
            const char* r = nullptr;
            for (int i = 0; i < 88; ++i)
            {
                b->Admit(0, 0, 1000, false, &r);
            }
            for (int i = 0; i < 7; ++i)
            {
                admitted3 += b->Admit(1, 1, 1000, false, &r) ? 1 : 0;
            }
        });
        Simulator::Stop(MicroSeconds(25));
        Simulator::Run();
        chan->Finish();
        fclose(out);
        fclose(in);

        std::vector<std::string> lines = Lines(outBuf, outLen);
        NS_TEST_ASSERT_MSG_EQ(lines.size(), 3u + 2 * 11 + 1, "records: " << lines.size());
        NS_TEST_EXPECT_MSG_EQ(lines[2], "READY 1 10000 sdb sdp", "ready names the extra rows");
        NS_TEST_EXPECT_MSG_EQ(lines[9], "drp 0 10 0 0", "DT's own drops in interval 1");
        NS_TEST_EXPECT_MSG_EQ(lines[11], "sdb 0 0 0 0", "none that DT would have admitted");
        NS_TEST_EXPECT_MSG_EQ(lines[12], "sdp 0 0 0 0", "packets likewise");
        NS_TEST_EXPECT_MSG_EQ(admitted3, 6u, "queue 3 meets DT's bound beside the raised queue");
        NS_TEST_EXPECT_MSG_EQ(lines[20], "drp 0 10 0 1", "its drop is counted");
        NS_TEST_EXPECT_MSG_EQ(lines[21], "alpha 8 1 1 1", "the raise in effect");
        NS_TEST_EXPECT_MSG_EQ(lines[22], "sdb 0 0 0 1000", "and DT would have admitted it");
        NS_TEST_EXPECT_MSG_EQ(lines[23], "sdp 0 0 0 1", "one packet");
        Simulator::Destroy();
        chan->Dispose();
        b->Dispose();
    }
};

/// Co-simulation channel.
class CosimChannelTestSuite : public TestSuite
{
  public:
    CosimChannelTestSuite()
        : TestSuite("alphad-cosim-channel", Type::UNIT)
    {
        AddTestCase(new CosimExchangeTestCase, TestCase::Duration::QUICK);
        AddTestCase(new ShadowDtAdmitsTestCase, TestCase::Duration::QUICK);
        AddTestCase(new CosimShadowTestCase, TestCase::Duration::QUICK);
    }
};

static CosimChannelTestSuite g_cosimChannelTestSuite; //!< static instance
