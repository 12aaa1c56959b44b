/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef HARNESS_TCP_SOCKET_H
#define HARNESS_TCP_SOCKET_H

#include "ns3/abort.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/rtt-estimator.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-recovery-ops.h"
#include "ns3/tcp-socket-base.h"

namespace ns3
{

/**
 * @ingroup alphad
 * @brief TcpSocketBase with its duplicate-ACK count kept at zero in CA_OPEN.
 *
 * ns-3 counts SACK duplicate ACKs received in CA_CWR (ECN's window reduction, every
 * DCTCP mark) and does not reset the count when CA_CWR ends in CA_OPEN. The next
 * duplicate ACK then fails TcpSocketBase's own assertion that CA_OPEN moves to
 * CA_DISORDER on the first one ("From OPEN->DISORDER but with N dup ACKs"). A run whose
 * count is never stale is unchanged: the count is zero in CA_OPEN except in that case.
 */
class HarnessTcpSocket : public TcpSocketBase
{
  public:
    static TypeId GetTypeId();

    /// A socket (``T``: this class or a subclass) on ``node``, built as
    /// TcpL4Protocol::CreateSocket builds its own (the node's SocketType, RecoveryType and
    /// RttEstimatorType, created in the same order) and registered with it.
    template <class T = HarnessTcpSocket>
    static Ptr<T> Create(Ptr<Node> node);

  protected:
    Ptr<TcpSocketBase> Fork() override;
    void ProcessAck(const SequenceNumber32& ackNumber,
                    bool scoreboardUpdated,
                    uint32_t currentDelivered,
                    const SequenceNumber32& oldHeadSequence,
                    bool receivedData) override;
};

template <class T>
Ptr<T>
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
    Ptr<T> s = CreateObject<T>();
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

} // namespace ns3

#endif // HARNESS_TCP_SOCKET_H
