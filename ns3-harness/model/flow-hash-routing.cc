/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "flow-hash-routing.h"

#include "ns3/log.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/packet.h"
#include "ns3/uinteger.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowHashRouting");
NS_OBJECT_ENSURE_REGISTERED(FlowHashRouting);

TypeId
FlowHashRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowHashRouting")
                            .SetParent<Ipv4RoutingProtocol>()
                            .SetGroupName("Alphad")
                            .AddConstructor<FlowHashRouting>()
                            .AddAttribute("Seed",
                                          "Salt of the flow hash (differs per switch)",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&FlowHashRouting::m_seed),
                                          MakeUintegerChecker<uint32_t>());
    return tid;
}

FlowHashRouting::FlowHashRouting()
    : m_seed(0)
{
    NS_LOG_FUNCTION(this);
}

FlowHashRouting::~FlowHashRouting()
{
    NS_LOG_FUNCTION(this);
}

void
FlowHashRouting::DoDispose()
{
    m_routes.clear();
    m_ipv4 = nullptr;
    Ipv4RoutingProtocol::DoDispose();
}

void
FlowHashRouting::AddHostRoute(Ipv4Address dst, uint32_t iface, Ipv4Address nextHop)
{
    NS_LOG_FUNCTION(this << dst << iface << nextHop);
    NS_ASSERT_MSG(m_ipv4, "FlowHashRouting: SetIpv4 before adding routes");
    Ptr<Ipv4Route> r = Create<Ipv4Route>();
    r->SetDestination(dst);
    r->SetGateway(nextHop);
    r->SetSource(m_ipv4->GetAddress(iface, 0).GetLocal());
    r->SetOutputDevice(m_ipv4->GetNetDevice(iface));
    m_routes[dst.Get()].push_back(r);
}

static inline uint32_t
Mix(uint32_t h, uint32_t v)
{
    // FNV-1a over the 4 bytes of v
    for (int i = 0; i < 4; ++i)
    {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 16777619u;
    }
    return h;
}

Ptr<Ipv4Route>
FlowHashRouting::Select(Ptr<const Packet> p, const Ipv4Header& header) const
{
    auto it = m_routes.find(header.GetDestination().Get());
    if (it == m_routes.end())
    {
        return nullptr;
    }
    const auto& hops = it->second;
    if (hops.size() == 1)
    {
        return hops[0];
    }
    uint32_t ports = 0;
    uint8_t proto = header.GetProtocol();
    if (p && (proto == 6 || proto == 17) && p->GetSize() >= 4)
    {
        uint8_t buf[4];
        p->CopyData(buf, 4);
        ports = (uint32_t(buf[0]) << 24) | (uint32_t(buf[1]) << 16) | (uint32_t(buf[2]) << 8) | buf[3];
    }
    // The hash is symmetric in neither direction on purpose: each direction
    // of a connection is a flow of its own, as in switch ECMP.
    uint32_t h = 2166136261u ^ m_seed;
    h = Mix(h, header.GetSource().Get());
    h = Mix(h, header.GetDestination().Get());
    h = Mix(h, ports);
    h = Mix(h, proto);
    return hops[h % hops.size()];
}

Ptr<Ipv4Route>
FlowHashRouting::RouteOutput(Ptr<Packet> p,
                             const Ipv4Header& header,
                             Ptr<NetDevice> oif,
                             Socket::SocketErrno& sockerr)
{
    Ptr<Ipv4Route> r = Select(p, header);
    sockerr = r ? Socket::ERROR_NOTERROR : Socket::ERROR_NOROUTETOHOST;
    return r;
}

bool
FlowHashRouting::RouteInput(Ptr<const Packet> p,
                            const Ipv4Header& header,
                            Ptr<const NetDevice> idev,
                            const UnicastForwardCallback& ucb,
                            const MulticastForwardCallback& mcb,
                            const LocalDeliverCallback& lcb,
                            const ErrorCallback& ecb)
{
    NS_LOG_FUNCTION(this << p << header);
    uint32_t iif = m_ipv4->GetInterfaceForDevice(idev);
    if (m_ipv4->IsDestinationAddress(header.GetDestination(), iif))
    {
        if (!lcb.IsNull())
        {
            lcb(p, header, iif);
            return true;
        }
        return false;
    }
    Ptr<Ipv4Route> r = Select(p, header);
    if (!r)
    {
        NS_LOG_LOGIC("no route to " << header.GetDestination());
        return false;
    }
    ucb(r, p, header);
    return true;
}

void
FlowHashRouting::NotifyInterfaceUp(uint32_t interface)
{
}

void
FlowHashRouting::NotifyInterfaceDown(uint32_t interface)
{
}

void
FlowHashRouting::NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
}

void
FlowHashRouting::NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
}

void
FlowHashRouting::SetIpv4(Ptr<Ipv4> ipv4)
{
    m_ipv4 = ipv4;
}

void
FlowHashRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit unit) const
{
    std::ostream& os = *stream->GetStream();
    os << "FlowHashRouting: " << m_routes.size() << " host routes\n";
    for (const auto& [dst, hops] : m_routes)
    {
        os << "  " << Ipv4Address(dst) << " via";
        for (const auto& r : hops)
        {
            os << " " << r->GetGateway();
        }
        os << "\n";
    }
}

} // namespace ns3
