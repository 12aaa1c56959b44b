/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * SharedBufferQueueDisc: scheduling and marking on a stand-alone queue disc,
 * and DT's steady state (ABM Eq. 6) in a real ns-3 network: k egress ports
 * of one switch, each overloaded 2:1 by constant-rate UDP.
 */

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/dt-buffer-scheme.h"
#include "ns3/flow-tag.h"
#include "ns3/internet-module.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/shared-buffer-helper.h"
#include "ns3/shared-buffer-queue-disc.h"
#include "ns3/test.h"
#include "ns3/traffic-control-module.h"

#include <vector>

using namespace ns3;

namespace
{

Ptr<QueueDiscItem>
MakeItem(uint8_t cls, uint32_t payload, bool ect = false)
{
    Ptr<Packet> p = Create<Packet>(payload);
    FlowTag tag(7, cls, false);
    p->AddPacketTag(tag);
    Ipv4Header h;
    h.SetPayloadSize(payload);
    h.SetProtocol(17);
    if (ect)
    {
        h.SetEcn(Ipv4Header::ECN_ECT0);
    }
    return Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
}

Ptr<SharedBufferQueueDisc>
MakeDisc(Ptr<SharedBuffer>& buffer, bool sp, uint32_t ecn)
{
    buffer = CreateObject<SharedBuffer>();
    buffer->SetScheme(CreateObject<DtBufferScheme>());
    buffer->SetAttribute("PoolBytes", UintegerValue(1000000));
    buffer->SetAttribute("QueuesPerPort", UintegerValue(3));
    buffer->SetAttribute("Alphas", StringValue("1"));
    uint32_t port = buffer->AddPort(DataRate("10Gbps"));
    Ptr<SharedBufferQueueDisc> qd = CreateObject<SharedBufferQueueDisc>();
    qd->SetAttribute("Buffer", PointerValue(buffer));
    qd->SetAttribute("Port", UintegerValue(port));
    qd->SetAttribute("StrictPriority", BooleanValue(sp));
    qd->SetAttribute("EcnThreshold", UintegerValue(ecn));
    qd->Initialize();
    return qd;
}

uint8_t
ClassOf(Ptr<QueueDiscItem> item)
{
    FlowTag tag;
    item->GetPacket()->PeekPacketTag(tag);
    return tag.GetClass();
}

} // namespace

/// Round robin alternates among non-empty queues; strict priority serves queue 0 first.
class SchedulingTestCase : public TestCase
{
  public:
    SchedulingTestCase()
        : TestCase("round robin and strict priority")
    {
    }

  private:
    void DoRun() override
    {
        for (bool sp : {false, true})
        {
            Ptr<SharedBuffer> b;
            Ptr<SharedBufferQueueDisc> qd = MakeDisc(b, sp, 0);
            for (int i = 0; i < 3; ++i)
            {
                qd->Enqueue(MakeItem(2, 100));
            }
            qd->Enqueue(MakeItem(0, 100));
            qd->Enqueue(MakeItem(0, 100));
            NS_TEST_ASSERT_MSG_EQ(b->GetQueue(0, 2).packets, 3u, "class 2 holds 3 packets");
            NS_TEST_ASSERT_MSG_EQ(b->GetOccupancy(), 5u * 120, "pool holds 5 packets with IP headers");
            std::vector<uint8_t> order;
            while (Ptr<QueueDiscItem> item = qd->Dequeue())
            {
                order.push_back(ClassOf(item));
            }
            std::vector<uint8_t> expect = sp ? std::vector<uint8_t>{0, 0, 2, 2, 2}
                                             : std::vector<uint8_t>{0, 2, 0, 2, 2};
            NS_TEST_ASSERT_MSG_EQ((order == expect), true, (sp ? "strict priority" : "round robin") << " order");
            NS_TEST_ASSERT_MSG_EQ(b->GetOccupancy(), 0u, "pool empty after dequeues");
            NS_TEST_ASSERT_MSG_EQ(b->GetQueue(0, 2).txPackets, 3u, "tx counted per queue");
            qd->Dispose();
            b->Dispose();
        }
    }
};

/// DCTCP step marking: CE once the queue holds EcnThreshold packets.
class EcnTestCase : public TestCase
{
  public:
    EcnTestCase()
        : TestCase("ECN step marking at K packets")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<SharedBuffer> b;
        Ptr<SharedBufferQueueDisc> qd = MakeDisc(b, false, 3);
        for (int i = 0; i < 5; ++i)
        {
            qd->Enqueue(MakeItem(1, 100, true));
        }
        int marked = 0;
        while (Ptr<QueueDiscItem> item = qd->Dequeue())
        {
            Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
            marked += ip->GetHeader().GetEcn() == Ipv4Header::ECN_CE;
        }
        NS_TEST_ASSERT_MSG_EQ(marked, 2, "packets 4 and 5 found 3 packets queued");
        NS_TEST_ASSERT_MSG_EQ(qd->GetStats().GetNMarkedPackets(SharedBufferQueueDisc::ECN_MARK), 2u,
                              "mark reason counted");
        qd->Dispose();
        b->Dispose();
    }
};

/**
 * One switch, k receivers, 2k senders of constant 10 Gb/s UDP: every egress
 * queue is congested, and under DT each settles at alpha B / (1 + k alpha).
 */
class DtNetworkSteadyStateTestCase : public TestCase
{
  public:
    DtNetworkSteadyStateTestCase(uint32_t k, double alpha)
        : TestCase("DT steady state in a network, k=" + std::to_string(k)),
          m_k(k),
          m_alpha(alpha)
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t pool = 600000;
        NodeContainer sw;
        sw.Create(1);
        NodeContainer senders;
        senders.Create(2 * m_k);
        NodeContainer receivers;
        receivers.Create(m_k);
        InternetStackHelper stack;
        stack.Install(sw);
        stack.Install(senders);
        stack.Install(receivers);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        p2p.SetChannelAttribute("Delay", StringValue("1us"));
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));
        Ipv4AddressHelper addr;
        addr.SetBase("10.0.0.0", "255.255.255.252");
        NetDeviceContainer egress;
        std::vector<Ipv4Address> rx;
        for (uint32_t r = 0; r < m_k; ++r)
        {
            NetDeviceContainer d = p2p.Install(sw.Get(0), receivers.Get(r));
            rx.push_back(addr.Assign(d).GetAddress(1));
            addr.NewNetwork();
            egress.Add(d.Get(0));
        }
        for (uint32_t s = 0; s < 2 * m_k; ++s)
        {
            NetDeviceContainer d = p2p.Install(senders.Get(s), sw.Get(0));
            addr.Assign(d);
            addr.NewNetwork();
        }
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
        SharedBufferHelper sbh;
        sbh.SetScheme("ns3::DtBufferScheme");
        sbh.SetBufferAttribute("QueuesPerPort", UintegerValue(1));
        sbh.SetBufferAttribute("Alphas", StringValue(std::to_string(m_alpha)));
        Ptr<SharedBuffer> buffer = sbh.Install(egress, pool);
        PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
        sink.Install(receivers);
        for (uint32_t s = 0; s < 2 * m_k; ++s)
        {
            OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(rx[s / 2], 9));
            onoff.SetConstantRate(DataRate("9.9Gbps"), 1000);
            ApplicationContainer a = onoff.Install(senders.Get(s));
            a.Start(MicroSeconds(10 + s));
            a.Stop(MilliSeconds(4));
        }
        uint64_t peakTotal = 0;
        std::vector<uint64_t> len(m_k);
        Simulator::Schedule(MilliSeconds(3), [&]() {
            for (uint32_t r = 0; r < m_k; ++r)
            {
                len[r] = buffer->GetQueue(r, 0).len;
            }
            peakTotal = buffer->GetOccupancy();
        });
        Simulator::Stop(MilliSeconds(3) + NanoSeconds(1));
        Simulator::Run();
        double expect = m_alpha * pool / (1 + m_k * m_alpha); // ABM Eq. 6
        for (uint32_t r = 0; r < m_k; ++r)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(double(len[r]), expect, 2 * 1028.0,
                                      "egress queue " << r << " not at alpha B / (1 + k alpha)");
            NS_TEST_EXPECT_MSG_GT(buffer->GetQueue(r, 0).dropPackets, 0u, "the overload is dropped");
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(double(peakTotal), m_k * expect, 2.0 * m_k * 1028, "occupancy");
        Simulator::Destroy();
    }

    uint32_t m_k;
    double m_alpha;
};

/// SharedBufferQueueDisc in isolation and inside a network.
class SharedBufferQueueDiscTestSuite : public TestSuite
{
  public:
    SharedBufferQueueDiscTestSuite()
        : TestSuite("alphad-shared-buffer-queue-disc", Type::SYSTEM)
    {
        AddTestCase(new SchedulingTestCase, TestCase::Duration::QUICK);
        AddTestCase(new EcnTestCase, TestCase::Duration::QUICK);
        AddTestCase(new DtNetworkSteadyStateTestCase(1, 1.0), TestCase::Duration::QUICK);
        AddTestCase(new DtNetworkSteadyStateTestCase(3, 0.5), TestCase::Duration::QUICK);
    }
};

static SharedBufferQueueDiscTestSuite g_sharedBufferQueueDiscTestSuite; //!< static instance
