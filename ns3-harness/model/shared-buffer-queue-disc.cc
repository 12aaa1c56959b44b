/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "shared-buffer-queue-disc.h"

#include "flow-tag.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/object-factory.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SharedBufferQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(SharedBufferQueueDisc);

TypeId
SharedBufferQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SharedBufferQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("Alphad")
            .AddConstructor<SharedBufferQueueDisc>()
            .AddAttribute("Buffer",
                          "The switch's SharedBuffer",
                          PointerValue(),
                          MakePointerAccessor(&SharedBufferQueueDisc::m_buffer),
                          MakePointerChecker<SharedBuffer>())
            .AddAttribute("Port",
                          "Index of this port in the SharedBuffer (from SharedBuffer::AddPort)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SharedBufferQueueDisc::m_port),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("StrictPriority",
                          "Serve queue 0 first, then 1, ... instead of round robin",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SharedBufferQueueDisc::m_strictPriority),
                          MakeBooleanChecker())
            .AddAttribute("EcnThreshold",
                          "Mark CE when the queue holds at least this many packets (0: off)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SharedBufferQueueDisc::m_ecnThreshold),
                          MakeUintegerChecker<uint32_t>(0, 1000000))
            .AddTraceSource("QueueState",
                            "Length and threshold of a queue after each enqueue, dequeue or drop",
                            MakeTraceSourceAccessor(&SharedBufferQueueDisc::m_queueStateTrace),
                            "ns3::SharedBufferQueueDisc::QueueStateCallback");
    return tid;
}

SharedBufferQueueDisc::SharedBufferQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::NO_LIMITS),
      m_port(0),
      m_strictPriority(false),
      m_ecnThreshold(0),
      m_next(0)
{
    NS_LOG_FUNCTION(this);
}

SharedBufferQueueDisc::~SharedBufferQueueDisc()
{
    NS_LOG_FUNCTION(this);
}

void
SharedBufferQueueDisc::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_buffer = nullptr;
    QueueDisc::DoDispose();
}

Ptr<SharedBuffer>
SharedBufferQueueDisc::GetBuffer() const
{
    return m_buffer;
}

uint32_t
SharedBufferQueueDisc::GetPort() const
{
    return m_port;
}

uint32_t
SharedBufferQueueDisc::Classify(Ptr<const QueueDiscItem> item, bool* unsched) const
{
    FlowTag tag;
    if (item->GetPacket()->PeekPacketTag(tag))
    {
        *unsched = tag.IsUnsched();
        return tag.GetClass() % GetNInternalQueues();
    }
    *unsched = false;
    return 0;
}

bool
SharedBufferQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    bool unsched = false;
    uint32_t q = Classify(item, &unsched);
    const char* reason = nullptr;
    uint32_t size = item->GetSize();
    if (!m_buffer->Admit(m_port, q, size, unsched, &reason))
    {
        DropBeforeEnqueue(item, reason);
        if (!m_queueStateTrace.IsEmpty())
        {
            m_queueStateTrace(q, m_buffer->GetQueue(m_port, q).len,
                              m_buffer->GetThreshold(m_port, q, false));
        }
        return false;
    }
    if (m_ecnThreshold > 0 && GetInternalQueue(q)->GetNPackets() >= m_ecnThreshold)
    {
        Mark(item, ECN_MARK);
    }
    bool ok = GetInternalQueue(q)->Enqueue(item);
    NS_ASSERT_MSG(ok, "internal queue refused a packet the pool admitted");
    (void)ok;
    if (!m_queueStateTrace.IsEmpty())
    {
        m_queueStateTrace(q, m_buffer->GetQueue(m_port, q).len, m_buffer->GetThreshold(m_port, q, false));
    }
    return true;
}

Ptr<QueueDiscItem>
SharedBufferQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    uint32_t n = GetNInternalQueues();
    for (uint32_t k = 0; k < n; ++k)
    {
        uint32_t q = m_strictPriority ? k : (m_next + k) % n;
        Ptr<QueueDiscItem> item = GetInternalQueue(q)->Dequeue();
        if (item)
        {
            if (!m_strictPriority)
            {
                m_next = (q + 1) % n;
            }
            m_buffer->Dequeued(m_port, q, item->GetSize());
            if (!m_queueStateTrace.IsEmpty())
            {
                m_queueStateTrace(q, m_buffer->GetQueue(m_port, q).len,
                                  m_buffer->GetThreshold(m_port, q, false));
            }
            return item;
        }
    }
    return nullptr;
}

bool
SharedBufferQueueDisc::CheckConfig()
{
    NS_LOG_FUNCTION(this);
    if (!m_buffer)
    {
        NS_LOG_ERROR("SharedBufferQueueDisc needs its Buffer attribute set");
        return false;
    }
    if (m_port >= m_buffer->GetNPorts())
    {
        NS_LOG_ERROR("SharedBufferQueueDisc: Port " << m_port << " is not registered in the buffer");
        return false;
    }
    if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0)
    {
        NS_LOG_ERROR("SharedBufferQueueDisc has no classes and no packet filters");
        return false;
    }
    if (GetNInternalQueues() == 0)
    {
        for (uint32_t q = 0; q < m_buffer->GetQueuesPerPort(); ++q)
        {
            // The pool bounds every queue; the internal queues only hold packets.
            AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                "MaxSize",
                QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 1u << 30))));
        }
    }
    if (GetNInternalQueues() != m_buffer->GetQueuesPerPort())
    {
        NS_LOG_ERROR("SharedBufferQueueDisc needs " << m_buffer->GetQueuesPerPort()
                                                    << " internal queues");
        return false;
    }
    return true;
}

void
SharedBufferQueueDisc::InitializeParams()
{
    NS_LOG_FUNCTION(this);
}

} // namespace ns3
