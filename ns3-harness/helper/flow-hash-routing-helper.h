/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_FLOW_HASH_ROUTING_HELPER_H
#define ALPHAD_FLOW_HASH_ROUTING_HELPER_H

#include "ns3/ipv4-routing-helper.h"

namespace ns3
{

/**
 * @ingroup alphad
 * Installs FlowHashRouting (salted with the node id) through InternetStackHelper.
 */
class FlowHashRoutingHelper : public Ipv4RoutingHelper
{
  public:
    FlowHashRoutingHelper* Copy() const override;
    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override;
};

} // namespace ns3

#endif /* ALPHAD_FLOW_HASH_ROUTING_HELPER_H */
