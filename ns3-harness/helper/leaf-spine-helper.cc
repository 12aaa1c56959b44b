/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "leaf-spine-helper.h"

#include "flow-hash-routing-helper.h"

#include "ns3/abort.h"
#include "ns3/flow-hash-routing.h"
#include "ns3/flow-tag.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/log.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/pointer.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LeafSpineHelper");

LeafSpineHelper::LeafSpineHelper(uint32_t leaves, uint32_t spines, uint32_t servers)
    : m_leaves(leaves)
    , m_spines(spines)
    , m_servers(servers)
    , m_rate("10Gbps")
    , m_delay(MicroSeconds(10))
{
    NS_ABORT_MSG_IF(leaves < 2 || spines < 1 || servers < 1,
                    "LeafSpineHelper: needs 2 leaves, a spine, a server");
}

void
LeafSpineHelper::SetLink(DataRate rate, Time delay)
{
    NS_LOG_FUNCTION(this << rate << delay);
    m_rate = rate;
    m_delay = delay;
}

void
LeafSpineHelper::Create()
{
    NS_LOG_FUNCTION(this);
    m_spineNodes.Create(m_spines);
    m_leafNodes.Create(m_leaves);
    m_hostNodes.Create(m_leaves * m_servers);

    InternetStackHelper switchStack;
    FlowHashRoutingHelper flowHash;
    switchStack.SetRoutingHelper(flowHash);
    switchStack.Install(m_spineNodes);
    switchStack.Install(m_leafNodes);
    InternetStackHelper hostStack;
    Ipv4StaticRoutingHelper staticRouting;
    hostStack.SetRoutingHelper(staticRouting);
    hostStack.Install(m_hostNodes);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(m_rate));
    p2p.SetChannelAttribute("Delay", TimeValue(m_delay));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));

    m_leafSw.assign(m_leaves, LeafSpineSwitch{});
    m_spineSw.assign(m_spines, LeafSpineSwitch{});
    m_hostAddr.assign(m_leaves, std::vector<Ipv4Address>(m_servers));
    m_leafHostIf.assign(m_leaves, std::vector<uint32_t>(m_servers));
    m_leafSpineIf.assign(m_leaves, std::vector<uint32_t>(m_spines));
    m_spineLeafIf.assign(m_spines, std::vector<uint32_t>(m_leaves));
    m_leafSideAddr.assign(m_leaves, std::vector<Ipv4Address>(m_spines));
    m_spineSideAddr.assign(m_leaves, std::vector<Ipv4Address>(m_spines));
    Ipv4AddressHelper addr;
    for (uint32_t l = 0; l < m_leaves; ++l)
    {
        m_leafSw[l].name = "leaf" + std::to_string(l);
        m_leafSw[l].node = m_leafNodes.Get(l);
        for (uint32_t h = 0; h < m_servers; ++h)
        {
            Ptr<Node> host = m_hostNodes.Get(l * m_servers + h);
            NetDeviceContainer d = p2p.Install(m_leafNodes.Get(l), host);
            std::ostringstream base;
            base << "10." << l << "." << h << ".0";
            addr.SetBase(base.str().c_str(), "255.255.255.252");
            Ipv4InterfaceContainer ifc = addr.Assign(d);
            m_leafSw[l].ports.Add(d.Get(0));
            m_hostDevs.Add(d.Get(1));
            m_hostAddr[l][h] = ifc.GetAddress(1);
            m_leafHostIf[l][h] = ifc.Get(0).second;
            Ptr<Ipv4StaticRouting> hr = staticRouting.GetStaticRouting(host->GetObject<Ipv4>());
            hr->SetDefaultRoute(ifc.GetAddress(0), ifc.Get(1).second);
        }
    }
    for (uint32_t s = 0; s < m_spines; ++s)
    {
        m_spineSw[s].name = "spine" + std::to_string(s);
        m_spineSw[s].node = m_spineNodes.Get(s);
        for (uint32_t l = 0; l < m_leaves; ++l)
        {
            NetDeviceContainer d = p2p.Install(m_leafNodes.Get(l), m_spineNodes.Get(s));
            std::ostringstream base;
            base << "10." << (100 + l) << "." << s << ".0";
            addr.SetBase(base.str().c_str(), "255.255.255.252");
            Ipv4InterfaceContainer ifc = addr.Assign(d);
            m_leafSw[l].uplinks.push_back(m_leafSw[l].ports.GetN());
            m_leafSw[l].ports.Add(d.Get(0));
            m_spineSw[s].ports.Add(d.Get(1));
            m_leafSpineIf[l][s] = ifc.Get(0).second;
            m_spineLeafIf[s][l] = ifc.Get(1).second;
            m_leafSideAddr[l][s] = ifc.GetAddress(0);
            m_spineSideAddr[l][s] = ifc.GetAddress(1);
        }
    }
    Route();
}

void
LeafSpineHelper::Route()
{
    NS_LOG_FUNCTION(this);
    // leaves: their servers directly, the others over every spine; spines: every server
    for (uint32_t l = 0; l < m_leaves; ++l)
    {
        Ptr<FlowHashRouting> lr = DynamicCast<FlowHashRouting>(
            m_leafNodes.Get(l)->GetObject<Ipv4>()->GetRoutingProtocol());
        for (uint32_t m = 0; m < m_leaves; ++m)
        {
            for (uint32_t h = 0; h < m_servers; ++h)
            {
                if (m == l)
                {
                    lr->AddHostRoute(m_hostAddr[m][h], m_leafHostIf[l][h], m_hostAddr[m][h]);
                    continue;
                }
                for (uint32_t s = 0; s < m_spines; ++s)
                {
                    lr->AddHostRoute(m_hostAddr[m][h], m_leafSpineIf[l][s], m_spineSideAddr[l][s]);
                }
            }
        }
    }
    for (uint32_t s = 0; s < m_spines; ++s)
    {
        Ptr<FlowHashRouting> sr = DynamicCast<FlowHashRouting>(
            m_spineNodes.Get(s)->GetObject<Ipv4>()->GetRoutingProtocol());
        for (uint32_t l = 0; l < m_leaves; ++l)
        {
            for (uint32_t h = 0; h < m_servers; ++h)
            {
                sr->AddHostRoute(m_hostAddr[l][h], m_spineLeafIf[s][l], m_leafSideAddr[l][s]);
            }
        }
    }
}

void
LeafSpineHelper::InstallSwitches(const SharedBufferHelper& sbh, double bytesPerPortPerGbps)
{
    NS_LOG_FUNCTION(this << bytesPerPortPerGbps);
    const double rateGbps = m_rate.GetBitRate() / 1e9;
    for (LeafSpineSwitch* sw : GetSwitches())
    {
        uint64_t pool = uint64_t(bytesPerPortPerGbps * sw->ports.GetN() * rateGbps);
        sw->buffer = sbh.Install(sw->ports, pool, &sw->discs);
    }
}

void
LeafSpineHelper::InstallTraffic(Ptr<TrafficManager> traffic, uint64_t unschedBytes)
{
    NS_LOG_FUNCTION(this << traffic << unschedBytes);
    TrafficControlHelper hostTc;
    hostTc.SetRootQueueDisc("ns3::HostMarkerQueueDisc", "Traffic", PointerValue(traffic),
                            "UnschedBytes", UintegerValue(unschedBytes));
    hostTc.Uninstall(m_hostDevs);
    hostTc.Install(m_hostDevs);
    for (uint32_t l = 0; l < m_leaves; ++l)
    {
        for (uint32_t h = 0; h < m_servers; ++h)
        {
            traffic->AddHost(m_hostNodes.Get(l * m_servers + h), m_hostAddr[l][h], l);
        }
    }
    traffic->InstallSinks();

    auto onDrop = [traffic](Ptr<const QueueDiscItem> item, const char*) {
        FlowTag tag;
        if (item->GetPacket()->PeekPacketTag(tag))
        {
            traffic->NotifyDrop(tag.GetFlowId(), item->GetSize());
        }
    };
    for (LeafSpineSwitch* sw : GetSwitches())
    {
        for (uint32_t i = 0; i < sw->discs.GetN(); ++i)
        {
            sw->discs.Get(i)->TraceConnectWithoutContext(
                "DropBeforeEnqueue", Callback<void, Ptr<const QueueDiscItem>, const char*>(onDrop));
        }
    }
}

uint32_t
LeafSpineHelper::GetNLeaves() const
{
    return m_leaves;
}

uint32_t
LeafSpineHelper::GetNSpines() const
{
    return m_spines;
}

uint32_t
LeafSpineHelper::GetNServers() const
{
    return m_servers;
}

LeafSpineSwitch&
LeafSpineHelper::GetLeaf(uint32_t l)
{
    return m_leafSw.at(l);
}

std::vector<LeafSpineSwitch*>
LeafSpineHelper::GetSwitches()
{
    std::vector<LeafSpineSwitch*> all;
    for (auto& sw : m_leafSw)
    {
        all.push_back(&sw);
    }
    for (auto& sw : m_spineSw)
    {
        all.push_back(&sw);
    }
    return all;
}

LeafSpineSwitch*
LeafSpineHelper::FindSwitch(const std::string& name)
{
    for (LeafSpineSwitch* sw : GetSwitches())
    {
        if (sw->name == name)
        {
            return sw;
        }
    }
    return nullptr;
}

} // namespace ns3
