/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "harness-tcp-socket.h"

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
