/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_HOST_MARKER_QUEUE_DISC_H
#define ALPHAD_HOST_MARKER_QUEUE_DISC_H

#include "traffic-manager.h"

#include "ns3/queue-disc.h"

namespace ns3
{

/**
 * @ingroup alphad
 * A host's NIC queue (FIFO) that tags every outgoing packet of a registered
 * flow with a FlowTag: the flow, its class, and the "unscheduled" mark for
 * the connection set-up and the first UnschedBytes bytes of the flow (one
 * bandwidth-delay product: the bytes a flow sends in its first RTT, ABM §3.3).
 */
class HostMarkerQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    HostMarkerQueueDisc();
    ~HostMarkerQueueDisc() override;

  protected:
    void DoDispose() override;

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    Ptr<TrafficManager> m_traffic;
    uint32_t m_unschedBytes;
};

} // namespace ns3

#endif /* ALPHAD_HOST_MARKER_QUEUE_DISC_H */
