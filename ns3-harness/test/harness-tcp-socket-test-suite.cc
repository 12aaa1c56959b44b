/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "ns3/harness-tcp-socket.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/tcp-tx-buffer.h"
#include "ns3/test.h"

using namespace ns3;

namespace
{

/// Sets and reads the socket's congestion state and duplicate-ACK count.
class Probe : public HarnessTcpSocket
{
  public:
    void Set(TcpSocketState::TcpCongState_t state, uint32_t dupAcks)
    {
        m_tcb->m_congState = state;
        m_dupAckCount = dupAcks;
    }

    TcpSocketState::TcpCongState_t State() const
    {
        return m_tcb->m_congState;
    }

    uint32_t DupAcks() const
    {
        return m_dupAckCount;
    }

    /// A SACK duplicate ACK: it acknowledges nothing new and updates the scoreboard.
    void DupAckArrives()
    {
        SequenceNumber32 head = m_txBuffer->HeadSequence();
        ProcessAck(head, true, 0, head, false);
    }
};

Ptr<Probe>
MakeProbe()
{
    Ptr<Node> node = CreateObject<Node>();
    InternetStackHelper().Install(node);
    return HarnessTcpSocket::Create<Probe>(node);
}

} // namespace

/// A count left over from CA_CWR is dropped in CA_OPEN: the first duplicate ACK moves to
/// CA_DISORDER with a count of one (TcpSocketBase asserts exactly that and aborts).
class StaleCountTestCase : public TestCase
{
  public:
    StaleCountTestCase() : TestCase("a stale duplicate-ACK count is reset in CA_OPEN")
    {
    }

    void DoRun() override
    {
        Ptr<Probe> s = MakeProbe();
        s->Set(TcpSocketState::CA_OPEN, 4);
        s->DupAckArrives();
        NS_TEST_EXPECT_MSG_EQ(s->State(), TcpSocketState::CA_DISORDER, "OPEN -> DISORDER");
        NS_TEST_EXPECT_MSG_EQ(s->DupAcks(), 1u, "the first duplicate ACK counts one");
        Simulator::Destroy();
    }
};

/// Outside CA_OPEN the socket counts as TcpSocketBase does: in CA_CWR the count grows.
class OtherStatesTestCase : public TestCase
{
  public:
    OtherStatesTestCase() : TestCase("other states count duplicate ACKs as ns-3 does")
    {
    }

    void DoRun() override
    {
        Ptr<Probe> s = MakeProbe();
        s->Set(TcpSocketState::CA_CWR, 2);
        s->DupAckArrives();
        NS_TEST_EXPECT_MSG_EQ(s->State(), TcpSocketState::CA_CWR, "stays in CWR");
        NS_TEST_EXPECT_MSG_EQ(s->DupAcks(), 3u, "counted on");
        Simulator::Destroy();
    }
};

/// The harness's TCP socket.
class HarnessTcpSocketTestSuite : public TestSuite
{
  public:
    HarnessTcpSocketTestSuite() : TestSuite("alphad-tcp-socket", Type::UNIT)
    {
        AddTestCase(new StaleCountTestCase, TestCase::Duration::QUICK);
        AddTestCase(new OtherStatesTestCase, TestCase::Duration::QUICK);
    }
};

static HarnessTcpSocketTestSuite g_harnessTcpSocketTestSuite; //!< static instance
