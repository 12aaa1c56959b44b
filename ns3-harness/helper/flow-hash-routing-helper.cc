/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "flow-hash-routing-helper.h"

#include "ns3/flow-hash-routing.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

namespace ns3
{

FlowHashRoutingHelper*
FlowHashRoutingHelper::Copy() const
{
    return new FlowHashRoutingHelper(*this);
}

Ptr<Ipv4RoutingProtocol>
FlowHashRoutingHelper::Create(Ptr<Node> node) const
{
    Ptr<FlowHashRouting> r = CreateObject<FlowHashRouting>();
    r->SetAttribute("Seed", UintegerValue(node->GetId() * 2654435761u));
    return r;
}

} // namespace ns3
