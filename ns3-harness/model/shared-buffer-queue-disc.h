/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_SHARED_BUFFER_QUEUE_DISC_H
#define ALPHAD_SHARED_BUFFER_QUEUE_DISC_H

#include "shared-buffer.h"

#include "ns3/queue-disc.h"
#include "ns3/traced-callback.h"

namespace ns3
{

/**
 * @ingroup alphad
 * The egress of one switch port: QueuesPerPort FIFO queues served round
 * robin (or strict priority, queue 0 first), every packet admitted by the
 * switch's SharedBuffer. The queue of a packet is the class in its FlowTag
 * (queue 0 when untagged). Optional DCTCP step marking: CE when the queue
 * holds at least EcnThreshold packets on arrival (RED with K = min = max).
 */
class SharedBufferQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    SharedBufferQueueDisc();
    ~SharedBufferQueueDisc() override;

    /// Mark reason for the ECN step marking.
    static constexpr const char* ECN_MARK = "Queue at or above the ECN threshold";

    /// Signature of the "QueueState" trace source: queue, length (bytes), threshold (bytes).
    typedef void (*QueueStateCallback)(uint32_t queue, uint64_t lenBytes, double thresholdBytes);

    Ptr<SharedBuffer> GetBuffer() const;
    uint32_t GetPort() const;

  protected:
    void DoDispose() override;

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;
    uint32_t Classify(Ptr<const QueueDiscItem> item, bool* unsched) const;

    Ptr<SharedBuffer> m_buffer; //!< the switch's pool
    uint32_t m_port;            //!< this port's index in the pool
    bool m_strictPriority;      //!< SP instead of RR
    uint32_t m_ecnThreshold;    //!< packets; 0 disables marking
    uint32_t m_next;            //!< RR pointer
    TracedCallback<uint32_t, uint64_t, double> m_queueStateTrace;
};

} // namespace ns3

#endif /* ALPHAD_SHARED_BUFFER_QUEUE_DISC_H */
