/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_LEAF_SPINE_HELPER_H
#define ALPHAD_LEAF_SPINE_HELPER_H

#include "shared-buffer-helper.h"

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/queue-disc-container.h"
#include "ns3/shared-buffer.h"
#include "ns3/traffic-manager.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup alphad
 * One switch of the fabric: its node, ports and shared buffer.
 */
struct LeafSpineSwitch
{
    std::string name;              //!< leaf0.., spine0..
    Ptr<Node> node;                //!< the switch
    Ptr<SharedBuffer> buffer;      //!< its pool (after InstallSwitches)
    QueueDiscContainer discs;      //!< one SharedBufferQueueDisc per port, in port order
    NetDeviceContainer ports;      //!< devices, in port order
    std::vector<uint32_t> uplinks; //!< port indices towards spines (leaves only)
};

/**
 * @ingroup alphad
 * A two-tier leaf-spine fabric (ABM §4.1, scaled): every leaf has its
 * servers and one link to every spine; every link has the same rate and
 * delay. Switches route by flow hash over the spines (FlowHashRouting);
 * servers send everything to their leaf. Addresses: server h of leaf l is
 * 10.l.h.2, the link of leaf l to spine s is 10.(100+l).s.0/30.
 *
 * @code
 *   LeafSpineHelper fabric(2, 2, 8);
 *   fabric.SetLink(DataRate("10Gbps"), MicroSeconds(10));
 *   fabric.Create();
 *   fabric.InstallSwitches(sharedBufferHelper, 9.6 * 1024);
 *   fabric.InstallTraffic(trafficManager, bdpBytes);
 * @endcode
 */
class LeafSpineHelper
{
  public:
    LeafSpineHelper(uint32_t leaves, uint32_t spines, uint32_t servers);

    /// Rate and propagation delay of every link (before Create()).
    void SetLink(DataRate rate, Time delay);

    /// Nodes, internet stacks, links, addresses and routes.
    void Create();

    /**
     * One shared-memory switch per leaf and spine.
     * @param sbh makes each switch's SharedBuffer and queue discs
     * @param bytesPerPortPerGbps buffer of a switch: this x ports x link rate in Gb/s
     */
    void InstallSwitches(const SharedBufferHelper& sbh, double bytesPerPortPerGbps);

    /**
     * Servers as TrafficManager hosts: a HostMarkerQueueDisc on every server
     * NIC, sinks on every server, and every switch drop reported to @p traffic.
     * @param traffic the flows
     * @param unschedBytes first-RTT bytes a flow's packets are marked for
     */
    void InstallTraffic(Ptr<TrafficManager> traffic, uint64_t unschedBytes);

    uint32_t GetNLeaves() const;
    uint32_t GetNSpines() const;
    uint32_t GetNServers() const;
    LeafSpineSwitch& GetLeaf(uint32_t l);
    /// Every switch, leaves first, then spines.
    std::vector<LeafSpineSwitch*> GetSwitches();
    /// The switch named @p name (leaf0.., spine0..), or nullptr.
    LeafSpineSwitch* FindSwitch(const std::string& name);

  private:
    void Route();

    uint32_t m_leaves;
    uint32_t m_spines;
    uint32_t m_servers;
    DataRate m_rate;
    Time m_delay;

    NodeContainer m_spineNodes;
    NodeContainer m_leafNodes;
    NodeContainer m_hostNodes;
    NetDeviceContainer m_hostDevs;
    std::vector<LeafSpineSwitch> m_leafSw;
    std::vector<LeafSpineSwitch> m_spineSw;
    std::vector<std::vector<Ipv4Address>> m_hostAddr;      //!< [leaf][server]
    std::vector<std::vector<uint32_t>> m_leafHostIf;       //!< [leaf][server]
    std::vector<std::vector<uint32_t>> m_leafSpineIf;      //!< [leaf][spine]
    std::vector<std::vector<uint32_t>> m_spineLeafIf;      //!< [spine][leaf]
    std::vector<std::vector<Ipv4Address>> m_leafSideAddr;  //!< [leaf][spine]
    std::vector<std::vector<Ipv4Address>> m_spineSideAddr; //!< [leaf][spine]
};

} // namespace ns3

#endif /* ALPHAD_LEAF_SPINE_HELPER_H */
