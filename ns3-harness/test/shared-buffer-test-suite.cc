/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * Admission arithmetic of every scheme of SharedBuffer, driven directly
 * through its API (no network).
 */

#include "ns3/abm-buffer-scheme.h"
#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/integer.h"
#include "ns3/object-factory.h"
#include "ns3/protean-buffer-scheme.h"
#include "ns3/shared-buffer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <vector>

using namespace ns3;

namespace
{

/// A buffer whose scheme is given by its short name (as on the program's command line).
Ptr<SharedBuffer>
MakeBuffer(const std::string& scheme, uint64_t pool, uint32_t ports, uint32_t queues,
           const std::string& alphas, const std::string& groups = "")
{
    TypeId tid;
    NS_ABORT_MSG_UNLESS(BufferScheme::LookupByShortName(scheme, &tid), "no scheme " << scheme);
    ObjectFactory f(tid.GetName());
    if (scheme == "fb")
    {
        f.Set("Groups", StringValue(groups));
    }
    Ptr<SharedBuffer> b = CreateObject<SharedBuffer>();
    b->SetScheme(f.Create<BufferScheme>());
    b->SetAttribute("PoolBytes", UintegerValue(pool));
    b->SetAttribute("QueuesPerPort", UintegerValue(queues));
    b->SetAttribute("Alphas", StringValue(alphas));
    for (uint32_t p = 0; p < ports; ++p)
    {
        b->AddPort(DataRate("10Gbps"));
    }
    return b;
}

/// Fill a queue with packets of @p size until the scheme refuses one.
uint32_t
Fill(Ptr<SharedBuffer> b, uint32_t port, uint32_t queue, uint32_t size, bool unsched = false)
{
    const char* reason = nullptr;
    uint32_t n = 0;
    while (b->Admit(port, queue, size, unsched, &reason))
    {
        ++n;
    }
    return n;
}

} // namespace

/**
 * DT steady state (ABM Eq. 6): with k queues of the same alpha congested
 * (arrivals faster than service), each settles at T = alpha B / (1 + k alpha).
 */
class DtSteadyStateTestCase : public TestCase
{
  public:
    DtSteadyStateTestCase(uint32_t k, double alpha)
        : TestCase("DT steady state, k=" + std::to_string(k) + " alpha=" + std::to_string(alpha))
        , m_k(k)
        , m_alpha(alpha)
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t pool = 1000000;
        const uint32_t pkt = 100;
        Ptr<SharedBuffer> b = MakeBuffer("dt", pool, m_k, 1, std::to_string(m_alpha));
        // Each round every queue sends one packet and is offered packets until
        // the threshold refuses: overloaded queues that share the pool.
        for (int round = 0; round < 20000; ++round)
        {
            for (uint32_t p = 0; p < m_k; ++p)
            {
                if (b->GetQueue(p, 0).len >= pkt)
                {
                    b->Dequeued(p, 0, pkt);
                }
            }
            for (uint32_t p = 0; p < m_k; ++p)
            {
                Fill(b, p, 0, pkt);
            }
        }
        double expect = m_alpha * pool / (1 + m_k * m_alpha); // ABM Eq. 6
        // Packets are discrete: one admission lowers the other thresholds by
        // alpha * pkt, so the queues settle within (1 + k alpha) packets of it.
        double tol = (1 + m_k * m_alpha) * pkt;
        for (uint32_t p = 0; p < m_k; ++p)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(double(b->GetQueue(p, 0).len), expect, tol,
                                      "queue " << p << " is not at alpha B / (1 + k alpha)");
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(double(b->GetOccupancy()), m_k * expect, 2.0 * m_k * pkt,
                                  "pool occupancy");
        b->Dispose();
    }

    uint32_t m_k;
    double m_alpha;
};

/// Complete sharing admits until the pool is full, regardless of the queue.
class CompleteSharingTestCase : public TestCase
{
  public:
    CompleteSharingTestCase() : TestCase("CS fills the pool, then drops with the pool reason")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<SharedBuffer> b = MakeBuffer("cs", 10000, 2, 2, "0.5");
        NS_TEST_ASSERT_MSG_EQ(Fill(b, 0, 1, 1000), 10u, "one queue takes the whole pool");
        const char* reason = nullptr;
        NS_TEST_ASSERT_MSG_EQ(b->Admit(1, 0, 1, false, &reason), false, "pool full");
        NS_TEST_ASSERT_MSG_EQ(std::string(reason), std::string(SharedBuffer::POOL_DROP),
                              "drop reason");
        NS_TEST_ASSERT_MSG_EQ(b->GetQueue(1, 0).dropPackets, 1u, "drop counted on the queue");
        b->Dispose();
    }
};

/**
 * ABM: first-RTT packets use AlphaUnsched, the others alpha_p; n_p counts the
 * congested queues of a priority at the next update; gamma is the measured
 * drain rate, clamped to 1 below 1/queues-per-port (ABM Eq. 9, §3.1, §3.3).
 */
class AbmTestCase : public TestCase
{
  public:
    AbmTestCase() : TestCase("ABM thresholds, n_p and gamma refresh, first-RTT alpha")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t pool = 1000000;
        Ptr<SharedBuffer> b = MakeBuffer("abm", pool, 4, 2, "0.5");
        Ptr<AbmBufferScheme> abm = DynamicCast<AbmBufferScheme>(b->GetScheme());
        abm->SetAttribute("AlphaUnsched", DoubleValue(64));
        // before any update: n_p = 1, gamma = 1 -> T = alpha_p (B - Q)
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(0, 0, false), 0.5 * pool, 1e-6, "initial T");
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(0, 0, true), 64.0 * pool, 1e-3, "unsched T");
        // three ports with priority 0 queues at their thresholds: congested
        for (uint32_t p = 0; p < 3; ++p)
        {
            Fill(b, p, 0, 1000);
        }
        // port 3 priority 1 dequeues 60% of line rate (above the 1/2 floor) during the first
        // interval
        const Time interval = MicroSeconds(80);
        uint64_t bytes60 = uint64_t(0.6 * 10e9 / 8 * interval.GetSeconds());
        const char* reason = nullptr;
        for (uint64_t sent = 0; sent < bytes60; sent += 1000)
        {
            NS_TEST_ASSERT_MSG_EQ(b->Admit(3, 1, 1000, false, &reason), true, "port 3 admits");
            b->Dequeued(3, 1, 1000);
        }
        Simulator::Stop(interval + NanoSeconds(1));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ_TOL(abm->GetNp(0), 3.0, 1e-9, "three congested queues of priority 0");
        NS_TEST_EXPECT_MSG_EQ_TOL(abm->GetNp(1), 1.0, 1e-9, "n_p floored at 1");
        NS_TEST_EXPECT_MSG_EQ_TOL(abm->GetGamma(3 * 2 + 1),
                                  std::ceil(bytes60 / 1000.0) * 1000 * 8 /
                                      (10e9 * interval.GetSeconds()),
                                  1e-9, "gamma = measured drain rate");
        NS_TEST_EXPECT_MSG_EQ_TOL(abm->GetGamma(0), 1.0, 1e-12, "idle queue: gamma clamped to 1");
        double freeBytes = double(pool - b->GetOccupancy());
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(0, 0, false), 0.5 / 3.0 * freeBytes, 1e-6,
                                  "T = alpha_p / n_p (B - Q)");
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(0, 0, true), 64.0 / 3.0 * freeBytes, 1e-3,
                                  "first-RTT T = alpha_unsched / n_p (B - Q)");
        double g = abm->GetGamma(3 * 2 + 1);
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(3, 1, false), 0.5 * g * freeBytes, 1e-6,
                                  "T = alpha_p gamma (B - Q)");
        Simulator::Destroy();
        b->Dispose();
    }
};

/// abm-core never uses the first-RTT alpha.
class AbmCoreTestCase : public TestCase
{
  public:
    AbmCoreTestCase() : TestCase("abm-core ignores the first-RTT mark")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<SharedBuffer> core = MakeBuffer("abm-core", 100000, 1, 1, "0.5");
        NS_TEST_EXPECT_MSG_EQ_TOL(core->GetThreshold(0, 0, true), core->GetThreshold(0, 0, false),
                                  1e-9, "unsched == sched");
        Ptr<SharedBuffer> core2 = MakeBuffer("abm-core", 100000, 1, 1, "0.5");
        Ptr<SharedBuffer> full = MakeBuffer("abm", 100000, 1, 1, "0.5");
        uint32_t n = Fill(core, 0, 0, 1000, true);
        NS_TEST_EXPECT_MSG_EQ(n, Fill(core2, 0, 0, 1000, false),
                              "first-RTT packets get no extra room");
        NS_TEST_EXPECT_MSG_GT(Fill(full, 0, 0, 1000, true), n,
                              "while abm gives them alpha_unsched");
        Simulator::Destroy();
        core->Dispose();
        core2->Dispose();
        full->Dispose();
    }
};

/// FB: N_p = non-empty queues of the group (switch-wide), gamma = 1 / active queues at the port.
class FbTestCase : public TestCase
{
  public:
    FbTestCase() : TestCase("FB per-packet N_p and round-robin gamma")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t pool = 1000000;
        Ptr<SharedBuffer> b = MakeBuffer("fb", pool, 3, 3, "0.5,0.5,4", "0,0,1");
        const char* reason = nullptr;
        // priorities 0 and 1 share group 0: one packet on (port 0, q0), (port 1, q1), (port 0, q1)
        b->Admit(0, 0, 100, false, &reason);
        b->Admit(1, 1, 100, false, &reason);
        b->Admit(0, 1, 100, false, &reason);
        double freeBytes = double(pool - 300);
        // queue (2, 0): empty, counts itself: N = 3 + 1 non-empty of group 0, port 2 active = 1
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(2, 0, false), 0.5 / 4.0 * 1.0 * freeBytes, 1e-6,
                                  "empty queue on an idle port");
        // queue (0, 0): non-empty; N = 3, port 0 has 2 active queues
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(0, 0, false), 0.5 / 3.0 / 2.0 * freeBytes, 1e-6,
                                  "non-empty queue on a port with two active queues");
        // queue (0, 2): group 1 alone, port 0 gets a third active queue
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(0, 2, false), 4.0 / 1.0 / 3.0 * freeBytes, 1e-6,
                                  "isolated group");
        b->Dequeued(0, 1, 100);
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(0, 0, false), 0.5 / 2.0 / 1.0 * (pool - 200.0),
                                  1e-6, "counts follow dequeues");
        b->Dispose();
    }
};

/// External: the alpha set from outside is DT's alpha for that queue only.
class ExternalTestCase : public TestCase
{
  public:
    ExternalTestCase() : TestCase("external alpha per queue")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<SharedBuffer> b = MakeBuffer("external", 100000, 2, 2, "1");
        b->SetAlpha(3, 0.25); // port 1, queue 1
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(1, 1, false), 25000.0, 1e-9, "alpha 0.25");
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(1, 0, false), 100000.0, 1e-9,
                                  "other queue keeps 1");
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetAlpha(3), 0.25, 1e-12, "telemetry shows the applied alpha");
        b->Dispose();
    }
};

/// Watermarks are peaks since the previous read, then restart from the current length.
class WatermarkTestCase : public TestCase
{
  public:
    WatermarkTestCase() : TestCase("watermarks are read-and-clear peaks")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<SharedBuffer> b = MakeBuffer("dt", 100000, 1, 2, "1");
        const char* reason = nullptr;
        for (int i = 0; i < 5; ++i)
        {
            b->Admit(0, 1, 1000, false, &reason);
        }
        for (int i = 0; i < 3; ++i)
        {
            b->Dequeued(0, 1, 1000);
        }
        std::vector<uint64_t> w = b->ReadWatermarks();
        NS_TEST_ASSERT_MSG_EQ(w[1], 5000u, "peak since start");
        NS_TEST_ASSERT_MSG_EQ(b->ReadPoolWatermark(), 5000u, "pool peak");
        w = b->ReadWatermarks();
        NS_TEST_ASSERT_MSG_EQ(w[1], 2000u, "after a read: the current length");
        NS_TEST_ASSERT_MSG_EQ(b->ReadPoolWatermark(), 2000u, "pool after a read");
        NS_TEST_ASSERT_MSG_EQ(b->GetQueue(0, 1).txBytes, 3000u, "tx counter");
        NS_TEST_ASSERT_MSG_EQ(b->GetQueue(0, 1).txPackets, 3u, "tx packets");
        b->Dispose();
    }
};

/**
 * Protean: a queue whose length grows faster than BuildupThreshold line rates
 * gets its threshold multiplied by the (normalised, smoothed) gradient.
 */
class ProteanTestCase : public TestCase
{
  public:
    ProteanTestCase() : TestCase("Protean gradient factor and class rules")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t pool = 10000000;
        Ptr<SharedBuffer> b = MakeBuffer("protean", pool, 1, 3, "1,0.5,1");
        Ptr<BufferScheme> protean = b->GetScheme();
        protean->SetAttribute("ShortPriority", IntegerValue(0));
        protean->SetAttribute("LongPriority", IntegerValue(1));
        const char* reason = nullptr;
        // short class: complete sharing; long class: DT with its alpha
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(0, 1, false), 0.5 * pool, 1e-6,
                                  "long: alpha_l Rem");
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(0, 0, false), double(pool), 1e-6, "short: Rem");
        // incast class: every 1 us, 10 packets of 1000 B arrive and one leaves:
        // the queue grows at 9000 B/us = 7.2 line rates of 10 Gb/s
        for (int i = 1; i <= 40; ++i)
        {
            Simulator::Schedule(MicroSeconds(i), [b]() {
                const char* r = nullptr;
                for (int k = 0; k < 10; ++k)
                {
                    b->Admit(0, 2, 1000, false, &r);
                }
                b->Dequeued(0, 2, 1000);
            });
        }
        Simulator::Run();
        double factor = DynamicCast<ProteanBufferScheme>(protean)->GetFactor(2);
        // the EWMA (beta = 1/4) of a constant 7.2 converges to 7.2
        NS_TEST_EXPECT_MSG_EQ_TOL(factor, 7.2, 0.05, "gradient factor");
        double freeBytes = double(pool - b->GetOccupancy());
        NS_TEST_EXPECT_MSG_EQ_TOL(b->GetThreshold(0, 2, false), factor * 1.0 * freeBytes, 1e-3,
                                  "T = Gradient alpha_i Rem");
        // the queue now drains: the gradient turns negative and the factor falls back to 1
        for (int i = 1; i <= 40; ++i)
        {
            Simulator::Schedule(MicroSeconds(i), [b]() { b->Dequeued(0, 2, 1000); });
        }
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ_TOL(DynamicCast<ProteanBufferScheme>(protean)->GetFactor(2), 1.0,
                                  1e-12, "back to DT");
        Simulator::Destroy();
        b->Dispose();
        (void)reason;
    }
};

/// Schemes are found by their short names, and only BufferSchemes are.
class SchemeLookupTestCase : public TestCase
{
  public:
    SchemeLookupTestCase() : TestCase("scheme TypeIds from short names")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<std::pair<std::string, std::string>> names = {
            {"dt", "ns3::DtBufferScheme"},
            {"cs", "ns3::CsBufferScheme"},
            {"abm", "ns3::AbmBufferScheme"},
            {"abm-core", "ns3::AbmCoreBufferScheme"},
            {"fb", "ns3::FbBufferScheme"},
            {"protean", "ns3::ProteanBufferScheme"},
            {"external", "ns3::ExternalBufferScheme"}};
        for (const auto& [name, type] : names)
        {
            TypeId tid;
            NS_TEST_ASSERT_MSG_EQ(BufferScheme::LookupByShortName(name, &tid), true, name);
            NS_TEST_EXPECT_MSG_EQ(tid.GetName(), type, name);
        }
        TypeId tid;
        for (const char* bad : {"", "red", "Dt", "buffer", "abm_core", "shared", "-"})
        {
            NS_TEST_EXPECT_MSG_EQ(BufferScheme::LookupByShortName(bad, &tid), false,
                                  "'" << bad << "'");
        }
        Ptr<SharedBuffer> b = CreateObject<SharedBuffer>();
        b->AddPort(DataRate("10Gbps"));
        NS_TEST_EXPECT_MSG_EQ(b->GetScheme()->GetInstanceTypeId().GetName(), "ns3::DtBufferScheme",
                              "DT without a scheme");
        b->Dispose();
    }
};

/// Admission schemes of the shared buffer.
class SharedBufferTestSuite : public TestSuite
{
  public:
    SharedBufferTestSuite() : TestSuite("alphad-shared-buffer", Type::UNIT)
    {
        AddTestCase(new DtSteadyStateTestCase(1, 1.0), TestCase::Duration::QUICK);
        AddTestCase(new DtSteadyStateTestCase(3, 0.5), TestCase::Duration::QUICK);
        AddTestCase(new DtSteadyStateTestCase(8, 2.0), TestCase::Duration::QUICK);
        AddTestCase(new CompleteSharingTestCase, TestCase::Duration::QUICK);
        AddTestCase(new AbmTestCase, TestCase::Duration::QUICK);
        AddTestCase(new AbmCoreTestCase, TestCase::Duration::QUICK);
        AddTestCase(new FbTestCase, TestCase::Duration::QUICK);
        AddTestCase(new ExternalTestCase, TestCase::Duration::QUICK);
        AddTestCase(new WatermarkTestCase, TestCase::Duration::QUICK);
        AddTestCase(new ProteanTestCase, TestCase::Duration::QUICK);
        AddTestCase(new SchemeLookupTestCase, TestCase::Duration::QUICK);
    }
};

static SharedBufferTestSuite g_sharedBufferTestSuite; //!< static instance
