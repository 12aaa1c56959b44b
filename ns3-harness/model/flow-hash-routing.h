/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_FLOW_HASH_ROUTING_H
#define ALPHAD_FLOW_HASH_ROUTING_H

#include "ns3/ipv4-address.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * @ingroup alphad
 * Host routes with per-flow ECMP for the switches of a leaf-spine fabric:
 * each destination host has one or more next hops, and a flow (5-tuple hash
 * of addresses and TCP/UDP ports) always takes the same one, so TCP sees no
 * reordering. (ns-3's global routing offers only per-packet random ECMP.)
 */
class FlowHashRouting : public Ipv4RoutingProtocol
{
  public:
    static TypeId GetTypeId();
    FlowHashRouting();
    ~FlowHashRouting() override;

    /**
     * Add a next hop towards a host.
     * @param dst destination host address
     * @param iface output interface index
     * @param nextHop address of the neighbour on that interface
     */
    void AddHostRoute(Ipv4Address dst, uint32_t iface, Ipv4Address nextHop);

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    const UnicastForwardCallback& ucb,
                    const MulticastForwardCallback& mcb,
                    const LocalDeliverCallback& lcb,
                    const ErrorCallback& ecb) override;
    void NotifyInterfaceUp(uint32_t interface) override;
    void NotifyInterfaceDown(uint32_t interface) override;
    void NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void SetIpv4(Ptr<Ipv4> ipv4) override;
    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit unit) const override;

  protected:
    void DoDispose() override;

  private:
    Ptr<Ipv4Route> Select(Ptr<const Packet> p, const Ipv4Header& header) const;

    Ptr<Ipv4> m_ipv4;
    uint32_t m_seed;
    std::unordered_map<uint32_t, std::vector<Ptr<Ipv4Route>>> m_routes; //!< dst -> next hops
};

} // namespace ns3

#endif /* ALPHAD_FLOW_HASH_ROUTING_H */
