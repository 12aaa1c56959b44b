/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_TRAFFIC_MANAGER_H
#define ALPHAD_TRAFFIC_MANAGER_H

#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/socket.h"
#include "ns3/tcp-socket-state.h"

#include <cstdint>
#include <ostream>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ns3
{

/**
 * @ingroup alphad
 * TCP flows and incast queries of an experiment: opens one connection per
 * flow at its start time, counts the bytes the receiver gets, records the
 * flow completion time, drops (from the switches' drop traces) and
 * retransmission timeouts, and answers the hosts' markers which flow and
 * class a packet belongs to.
 */
class TrafficManager : public Object
{
  public:
    /// One TCP flow (a web-search flow, or one response of an incast query).
    struct Flow
    {
        uint32_t id;
        uint32_t src;        //!< host index
        uint32_t dst;        //!< host index
        uint64_t size;       //!< bytes
        uint8_t cls;         //!< traffic class = egress queue index
        int32_t query;       //!< incast query, -1 for background
        uint32_t initCwnd;   //!< segments
        Time start;
        double idealNs;      //!< FCT of the flow alone in the network
        int64_t endNs{-1};   //!< receiver got the last byte; -1: unfinished
        uint64_t sent{0};    //!< bytes handed to the socket
        uint64_t rx{0};      //!< bytes received
        uint32_t dropPackets{0};
        uint64_t dropBytes{0};
        uint32_t rto{0};     //!< retransmission timeouts (entries into CA_LOSS)
        bool closed{false};
    };

    /// One incast query: responses of several servers to one requester.
    struct Query
    {
        uint32_t id;
        uint32_t dst;
        uint8_t cls;
        Time start;
        uint32_t flows{0};
        uint32_t done{0};
        uint64_t bytes{0};
        uint32_t dropPackets{0};
        int64_t endNs{-1};
    };

    static TypeId GetTypeId();
    TrafficManager();
    ~TrafficManager() override;

    /// TCP port every host listens on.
    static constexpr uint16_t SINK_PORT = 9000;

    /// Register a host; returns its index.
    uint32_t AddHost(Ptr<Node> node, Ipv4Address addr, uint32_t leaf);
    /// Open the listening sockets (call once, after all hosts).
    void InstallSinks();
    /// Parameters of the ideal FCT: host line rate, one-way delay per link.
    void SetIdeal(uint64_t rateBps, Time linkDelay, uint32_t mss);

    /// Add a query (its flows are added with AddFlow and its id).
    uint32_t AddQuery(uint32_t dst, uint8_t cls, Time start);
    /// Add a flow started at @p start.
    uint32_t AddFlow(uint32_t src, uint32_t dst, uint64_t size, uint8_t cls, Time start,
                     int32_t query, uint32_t initCwnd);

    /**
     * Which flow a packet belongs to (either direction).
     * @return false for packets of no registered flow
     */
    bool Lookup(Ipv4Address src, uint16_t sport, Ipv4Address dst, uint16_t dport,
                uint32_t* flowId, uint8_t* cls) const;

    /// A switch dropped a packet of @p flowId.
    void NotifyDrop(uint32_t flowId, uint32_t bytes);

    const std::vector<Flow>& GetFlows() const;
    const std::vector<Query>& GetQueries() const;
    uint32_t GetNHosts() const;
    uint32_t GetHostLeaf(uint32_t host) const;
    Ipv4Address GetHostAddress(uint32_t host) const;

    void WriteFlows(std::ostream& os) const;
    void WriteQueries(std::ostream& os) const;

  protected:
    void DoDispose() override;

  private:
    struct Key
    {
        uint32_t a, b;
        uint16_t pa, pb;
        bool operator==(const Key& o) const
        {
            return a == o.a && b == o.b && pa == o.pa && pb == o.pb;
        }
    };

    struct KeyHash
    {
        size_t operator()(const Key& k) const
        {
            uint64_t x = (uint64_t(k.a) << 32) ^ k.b ^ (uint64_t(k.pa) << 16) ^ (uint64_t(k.pb) << 48);
            x ^= x >> 33;
            x *= 0xff51afd7ed558ccdULL;
            x ^= x >> 33;
            return size_t(x);
        }
    };

    struct Host
    {
        Ptr<Node> node;
        Ipv4Address addr;
        uint32_t leaf;
        Ptr<Socket> listen;
    };

    void StartFlow(uint32_t id);
    void Connected(Ptr<Socket> s);
    void ConnectFailed(Ptr<Socket> s);
    void SendMore(Ptr<Socket> s, uint32_t available);
    bool Accept(Ptr<Socket> s, const Address& from);
    void Accepted(Ptr<Socket> s, const Address& from);
    void Read(Ptr<Socket> s);
    void PeerClosed(Ptr<Socket> s);
    void Complete(Flow& f);
    static void CongStateChanged(TrafficManager* tm, uint32_t id,
                                 TcpSocketState::TcpCongState_t from,
                                 TcpSocketState::TcpCongState_t to);

    std::vector<Host> m_hosts;
    std::unordered_map<uint32_t, uint32_t> m_hostByNode;
    std::vector<Flow> m_flows;
    std::vector<Query> m_queries;
    std::unordered_map<Key, uint32_t, KeyHash> m_byKey;
    std::unordered_map<const Socket*, uint32_t> m_txFlow;
    std::unordered_map<const Socket*, uint32_t> m_rxFlow;
    // Receiving sockets inside their Close(): a Close() that resets the connection reports
    // an error close, which must not close them again.
    std::unordered_set<const Socket*> m_closing;
    uint64_t m_rateBps;
    Time m_linkDelay;
    uint32_t m_mss;
};

} // namespace ns3

#endif /* ALPHAD_TRAFFIC_MANAGER_H */
