/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef HARNESS_TCP_SOCKET_H
#define HARNESS_TCP_SOCKET_H

#include "ns3/node.h"
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

    /// A socket on ``node`` built as TcpL4Protocol::CreateSocket builds its own (the
    /// node's SocketType, RecoveryType and RttEstimatorType), registered with it.
    static Ptr<Socket> Create(Ptr<Node> node);

  protected:
    Ptr<TcpSocketBase> Fork() override;
    void ProcessAck(const SequenceNumber32& ackNumber,
                    bool scoreboardUpdated,
                    uint32_t currentDelivered,
                    const SequenceNumber32& oldHeadSequence,
                    bool receivedData) override;
};

} // namespace ns3

#endif // HARNESS_TCP_SOCKET_H
