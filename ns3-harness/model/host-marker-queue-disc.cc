/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "host-marker-queue-disc.h"

#include "flow-tag.h"

#include "ns3/drop-tail-queue.h"
#include "ns3/object-factory.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostMarkerQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(HostMarkerQueueDisc);

TypeId
HostMarkerQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HostMarkerQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("Alphad")
            .AddConstructor<HostMarkerQueueDisc>()
            .AddAttribute("MaxSize",
                          "Size of the NIC queue",
                          QueueSizeValue(QueueSize("100000p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("Traffic",
                          "The TrafficManager that knows the flows",
                          PointerValue(),
                          MakePointerAccessor(&HostMarkerQueueDisc::m_traffic),
                          MakePointerChecker<TrafficManager>())
            .AddAttribute("UnschedBytes",
                          "Bytes at the start of a flow marked unscheduled (one BDP)",
                          UintegerValue(100000),
                          MakeUintegerAccessor(&HostMarkerQueueDisc::m_unschedBytes),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

HostMarkerQueueDisc::HostMarkerQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE),
      m_unschedBytes(100000)
{
}

HostMarkerQueueDisc::~HostMarkerQueueDisc()
{
}

void
HostMarkerQueueDisc::DoDispose()
{
    m_traffic = nullptr;
    QueueDisc::DoDispose();
}

bool
HostMarkerQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
    Ptr<Packet> p = item->GetPacket();
    if (ip && m_traffic && ip->GetHeader().GetProtocol() == 6 && p->GetSize() >= 20)
    {
        uint8_t b[14];
        p->CopyData(b, 14);
        uint16_t sport = (uint16_t(b[0]) << 8) | b[1];
        uint16_t dport = (uint16_t(b[2]) << 8) | b[3];
        uint32_t seq = (uint32_t(b[4]) << 24) | (uint32_t(b[5]) << 16) | (uint32_t(b[6]) << 8) | b[7];
        uint32_t hdrLen = uint32_t(b[12] >> 4) * 4;
        bool syn = (b[13] & 0x02) != 0;
        uint32_t payload = p->GetSize() > hdrLen ? p->GetSize() - hdrLen : 0;
        uint32_t flowId = 0;
        uint8_t cls = 0;
        if (m_traffic->Lookup(ip->GetHeader().GetSource(), sport, ip->GetHeader().GetDestination(),
                              dport, &flowId, &cls))
        {
            // ns-3 TCP starts at sequence 0 (SYN); data byte k has sequence k + 1.
            bool unsched = syn || (payload > 0 && seq >= 1 && seq - 1 < m_unschedBytes);
            FlowTag tag(flowId, cls, unsched);
            p->ReplacePacketTag(tag);
        }
    }
    return GetInternalQueue(0)->Enqueue(item);
}

Ptr<QueueDiscItem>
HostMarkerQueueDisc::DoDequeue()
{
    return GetInternalQueue(0)->Dequeue();
}

bool
HostMarkerQueueDisc::CheckConfig()
{
    if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0)
    {
        NS_LOG_ERROR("HostMarkerQueueDisc has no classes and no packet filters");
        return false;
    }
    if (GetNInternalQueues() == 0)
    {
        AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
            "MaxSize",
            QueueSizeValue(GetMaxSize())));
    }
    return GetNInternalQueues() == 1;
}

void
HostMarkerQueueDisc::InitializeParams()
{
}

} // namespace ns3
