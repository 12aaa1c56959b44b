/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * The co-simulation record exchange, over in-memory streams.
 */

#include "ns3/cosim-channel.h"
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
        Ptr<SharedBuffer> b = CreateObject<SharedBuffer>();
        b->SetScheme(CreateObject<ExternalBufferScheme>());
        b->SetAttribute("PoolBytes", UintegerValue(100000));
        b->SetAttribute("QueuesPerPort", UintegerValue(2));
        b->SetAttribute("Alphas", StringValue("1"));
        b->AddPort(DataRate("10Gbps"));
        b->AddPort(DataRate("25Gbps"));

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

        std::string text(outBuf, outLen);
        free(outBuf);
        std::istringstream ss(text);
        std::vector<std::string> lines;
        for (std::string l; std::getline(ss, l);)
        {
            lines.push_back(l);
        }
        NS_TEST_ASSERT_MSG_EQ(lines.size(), 3u + 2 * 9 + 1, "records: " << text);
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

/// Co-simulation channel.
class CosimChannelTestSuite : public TestSuite
{
  public:
    CosimChannelTestSuite()
        : TestSuite("alphad-cosim-channel", Type::UNIT)
    {
        AddTestCase(new CosimExchangeTestCase, TestCase::Duration::QUICK);
    }
};

static CosimChannelTestSuite g_cosimChannelTestSuite; //!< static instance
