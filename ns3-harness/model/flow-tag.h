/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_FLOW_TAG_H
#define ALPHAD_FLOW_TAG_H

#include "ns3/tag.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup alphad
 * Packet tag set by the sending host's marker: the flow, its traffic class
 * (the egress queue index at every switch) and whether the packet carries
 * bytes of the flow's first RTT ("unscheduled", ABM §3.3: "unscheduled
 * packets arrive with a tag attached by the end-hosts").
 */
class FlowTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    FlowTag();
    FlowTag(uint32_t flowId, uint8_t cls, bool unsched);

    uint32_t GetFlowId() const;
    uint8_t GetClass() const;
    bool IsUnsched() const;

  private:
    uint32_t m_flowId;
    uint8_t m_class;
    uint8_t m_unsched;
};

} // namespace ns3

#endif /* ALPHAD_FLOW_TAG_H */
