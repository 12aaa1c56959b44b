/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "harness-tcp-socket.h"

#include "ns3/object-factory.h"
#include "ns3/rtt-estimator.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-recovery-ops.h"
#include "ns3/type-id.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HarnessTcpSocket);

TypeId
HarnessTcpSocket::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HarnessTcpSocket")
                            .SetParent<TcpSocketBase>()
                            .SetGroupName("Alphad")
                            .AddConstructor<HarnessTcpSocket>();
    return tid;
}

Ptr<Socket>
HarnessTcpSocket::Create(Ptr<Node> node)
{
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    NS_ABORT_MSG_IF(!tcp, "node " << node->GetId() << " has no TCP");
    TypeIdValue cc;
    TypeIdValue recovery;
    TypeIdValue rtt;
    tcp->GetAttribute("SocketType", cc);
    tcp->GetAttribute("RecoveryType", recovery);
    tcp->GetAttribute("RttEstimatorType", rtt);
    ObjectFactory f;
    f.SetTypeId(rtt.Get());
    Ptr<RttEstimator> est = f.Create<RttEstimator>();
    Ptr<HarnessTcpSocket> s = CreateObject<HarnessTcpSocket>();
    f.SetTypeId(cc.Get());
    Ptr<TcpCongestionOps> algo = f.Create<TcpCongestionOps>();
    f.SetTypeId(recovery.Get());
    Ptr<TcpRecoveryOps> rec = f.Create<TcpRecoveryOps>();
    s->SetNode(node);
    s->SetTcp(tcp);
    s->SetRtt(est);
    s->SetCongestionControlAlgorithm(algo);
    s->SetRecoveryAlgorithm(rec);
    tcp->AddSocket(s);
    return s;
}

Ptr<TcpSocketBase>
HarnessTcpSocket::Fork()
{
    return CopyObject<HarnessTcpSocket>(this);
}

void
HarnessTcpSocket::ProcessAck(const SequenceNumber32& ackNumber,
                             bool scoreboardUpdated,
                             uint32_t currentDelivered,
                             const SequenceNumber32& oldHeadSequence,
                             bool receivedData)
{
    if (m_tcb->m_congState == TcpSocketState::CA_OPEN)
    {
        m_dupAckCount = 0; // stale from CA_CWR, see the class's documentation
    }
    TcpSocketBase::ProcessAck(ackNumber,
                              scoreboardUpdated,
                              currentDelivered,
                              oldHeadSequence,
                              receivedData);
}

} // namespace ns3
