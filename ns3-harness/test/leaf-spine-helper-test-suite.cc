/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * LeafSpineHelper: the fabric it builds, and flows across it.
 */

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/shared-buffer-helper.h"
#include "ns3/test.h"
#include "ns3/traffic-manager.h"

using namespace ns3;

/// Switch names, ports, uplinks and pools of a 3-leaf, 2-spine, 4-server fabric.
class LeafSpineShapeTestCase : public TestCase
{
  public:
    LeafSpineShapeTestCase() : TestCase("leaf-spine: switches, ports, uplinks and pools")
    {
    }

  private:
    void DoRun() override
    {
        LeafSpineHelper fabric(3, 2, 4);
        fabric.SetLink(DataRate("1Gbps"), MicroSeconds(10));
        fabric.Create();
        SharedBufferHelper sbh;
        sbh.SetBufferAttribute("QueuesPerPort", UintegerValue(2));
        fabric.InstallSwitches(sbh, 1000.0);
        std::vector<LeafSpineSwitch*> all = fabric.GetSwitches();
        NS_TEST_ASSERT_MSG_EQ(all.size(), 5u, "3 leaves + 2 spines");
        const char* names[] = {"leaf0", "leaf1", "leaf2", "spine0", "spine1"};
        for (uint32_t i = 0; i < all.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(all[i]->name, names[i], "leaves first, then spines");
            NS_TEST_EXPECT_MSG_EQ(fabric.FindSwitch(names[i]), all[i], "found by name");
            NS_TEST_EXPECT_MSG_EQ(all[i]->discs.GetN(), all[i]->ports.GetN(),
                                  "one queue disc per port");
            NS_TEST_EXPECT_MSG_EQ(all[i]->buffer->GetNPorts(), all[i]->ports.GetN(),
                                  "every port in the pool");
        }
        NS_TEST_EXPECT_MSG_EQ(fabric.FindSwitch("leaf3"), nullptr, "no such leaf");
        LeafSpineSwitch& leaf = fabric.GetLeaf(1);
        NS_TEST_EXPECT_MSG_EQ(leaf.ports.GetN(), 6u, "4 servers + 2 spines");
        NS_TEST_EXPECT_MSG_EQ((leaf.uplinks == std::vector<uint32_t>{4, 5}), true,
                              "uplinks after the servers");
        NS_TEST_EXPECT_MSG_EQ(leaf.buffer->GetPoolBytes(), 6000u, "1000 B x 6 ports x 1 Gb/s");
        NS_TEST_EXPECT_MSG_EQ(all[3]->ports.GetN(), 3u, "a spine has one port per leaf");
        NS_TEST_EXPECT_MSG_EQ(all[3]->buffer->GetPoolBytes(), 3000u, "1000 B x 3 ports x 1 Gb/s");
        NS_TEST_EXPECT_MSG_EQ(leaf.buffer->GetQueuesPerPort(), 2u, "buffer attributes applied");
        Simulator::Destroy();
        Ipv4AddressGenerator::Reset();
    }
};

/// Flows within a leaf and across the spines complete; only the second crosses a spine.
class LeafSpineFlowsTestCase : public TestCase
{
  public:
    LeafSpineFlowsTestCase()
        : TestCase("leaf-spine: flows delivered within a leaf and across the spines")
    {
    }

  private:
    void DoRun() override
    {
        LeafSpineHelper fabric(2, 2, 2);
        fabric.SetLink(DataRate("1Gbps"), MicroSeconds(10));
        fabric.Create();
        SharedBufferHelper sbh;
        sbh.SetBufferAttribute("QueuesPerPort", UintegerValue(1));
        fabric.InstallSwitches(sbh, 100000.0);
        Ptr<TrafficManager> traffic = CreateObject<TrafficManager>();
        traffic->SetIdeal(1000000000, MicroSeconds(10), 536);
        fabric.InstallTraffic(traffic, 10000);
        const uint64_t size = 20000;
        traffic->AddFlow(0, 1, size, 0, MilliSeconds(1), -1, 10); // leaf0 server0 -> server1
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();
        uint64_t spineTx = 0;
        for (LeafSpineSwitch* sw : fabric.GetSwitches())
        {
            for (const auto& q : sw->buffer->GetQueues())
            {
                spineTx += sw->name.rfind("spine", 0) == 0 ? q.txBytes : 0;
            }
        }
        NS_TEST_EXPECT_MSG_EQ(spineTx, 0u, "a flow within a leaf stays off the spines");
        traffic->AddFlow(0, 3, size, 0, MilliSeconds(25), -1, 10); // leaf0 -> leaf1 server1
        Simulator::Stop(MilliSeconds(30));
        Simulator::Run();
        for (LeafSpineSwitch* sw : fabric.GetSwitches())
        {
            for (const auto& q : sw->buffer->GetQueues())
            {
                spineTx += sw->name.rfind("spine", 0) == 0 ? q.txBytes : 0;
            }
        }
        for (const auto& f : traffic->GetFlows())
        {
            NS_TEST_EXPECT_MSG_EQ(f.rx, size, "flow " << f.id << " delivered");
            NS_TEST_EXPECT_MSG_GT(f.endNs, 0, "flow " << f.id << " finished");
        }
        NS_TEST_EXPECT_MSG_GT(spineTx, size, "the inter-leaf flow crossed a spine");
        Simulator::Destroy();
        Ipv4AddressGenerator::Reset();
    }
};

/// The fabric LeafSpineHelper builds.
class LeafSpineHelperTestSuite : public TestSuite
{
  public:
    LeafSpineHelperTestSuite() : TestSuite("alphad-leaf-spine", Type::UNIT)
    {
        AddTestCase(new LeafSpineShapeTestCase, TestCase::Duration::QUICK);
        AddTestCase(new LeafSpineFlowsTestCase, TestCase::Duration::QUICK);
    }
};

static LeafSpineHelperTestSuite g_leafSpineHelperTestSuite; //!< static instance
