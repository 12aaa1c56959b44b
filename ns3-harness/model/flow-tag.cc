/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "flow-tag.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FlowTag);

TypeId
FlowTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowTag")
                            .SetParent<Tag>()
                            .SetGroupName("Alphad")
                            .AddConstructor<FlowTag>();
    return tid;
}

TypeId
FlowTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

FlowTag::FlowTag()
    : m_flowId(0),
      m_class(0),
      m_unsched(0)
{
}

FlowTag::FlowTag(uint32_t flowId, uint8_t cls, bool unsched)
    : m_flowId(flowId),
      m_class(cls),
      m_unsched(unsched ? 1 : 0)
{
}

uint32_t
FlowTag::GetSerializedSize() const
{
    return 6;
}

void
FlowTag::Serialize(TagBuffer i) const
{
    i.WriteU32(m_flowId);
    i.WriteU8(m_class);
    i.WriteU8(m_unsched);
}

void
FlowTag::Deserialize(TagBuffer i)
{
    m_flowId = i.ReadU32();
    m_class = i.ReadU8();
    m_unsched = i.ReadU8();
}

void
FlowTag::Print(std::ostream& os) const
{
    os << "flow=" << m_flowId << " class=" << unsigned(m_class) << " unsched=" << unsigned(m_unsched);
}

uint32_t
FlowTag::GetFlowId() const
{
    return m_flowId;
}

uint8_t
FlowTag::GetClass() const
{
    return m_class;
}

bool
FlowTag::IsUnsched() const
{
    return m_unsched != 0;
}

} // namespace ns3
