/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "traffic-manager.h"

#include "harness-tcp-socket.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrafficManager");
NS_OBJECT_ENSURE_REGISTERED(TrafficManager);

TypeId
TrafficManager::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TrafficManager")
                            .SetParent<Object>()
                            .SetGroupName("Alphad")
                            .AddConstructor<TrafficManager>();
    return tid;
}

TrafficManager::TrafficManager()
    : m_rateBps(10000000000ULL),
      m_linkDelay(MicroSeconds(10)),
      m_mss(1400)
{
}

TrafficManager::~TrafficManager()
{
}

void
TrafficManager::DoDispose()
{
    for (auto& h : m_hosts)
    {
        h.listen = nullptr;
        h.node = nullptr;
    }
    m_txFlow.clear();
    m_rxFlow.clear();
    Object::DoDispose();
}

uint32_t
TrafficManager::AddHost(Ptr<Node> node, Ipv4Address addr, uint32_t leaf)
{
    m_hostByNode[node->GetId()] = m_hosts.size();
    m_hosts.push_back(Host{node, addr, leaf, nullptr});
    return m_hosts.size() - 1;
}

void
TrafficManager::SetIdeal(uint64_t rateBps, Time linkDelay, uint32_t mss)
{
    m_rateBps = rateBps;
    m_linkDelay = linkDelay;
    m_mss = mss;
}

void
TrafficManager::InstallSinks()
{
    for (auto& h : m_hosts)
    {
        h.listen = Socket::CreateSocket(h.node, TcpSocketFactory::GetTypeId());
        h.listen->Bind(InetSocketAddress(Ipv4Address::GetAny(), SINK_PORT));
        h.listen->Listen();
        h.listen->SetAcceptCallback(MakeCallback(&TrafficManager::Accept, this),
                                    MakeCallback(&TrafficManager::Accepted, this));
    }
}

uint32_t
TrafficManager::AddQuery(uint32_t dst, uint8_t cls, Time start)
{
    Query q;
    q.id = m_queries.size();
    q.dst = dst;
    q.cls = cls;
    q.start = start;
    m_queries.push_back(q);
    return q.id;
}

uint32_t
TrafficManager::AddFlow(uint32_t src, uint32_t dst, uint64_t size, uint8_t cls, Time start,
                        int32_t query, uint32_t initCwnd)
{
    NS_ABORT_MSG_IF(src >= m_hosts.size() || dst >= m_hosts.size() || src == dst,
                    "TrafficManager::AddFlow: bad hosts " << src << " -> " << dst);
    NS_ABORT_MSG_IF(size == 0, "TrafficManager::AddFlow: empty flow");
    Flow f;
    f.id = m_flows.size();
    f.src = src;
    f.dst = dst;
    f.size = size;
    f.cls = cls;
    f.query = query;
    f.initCwnd = std::max<uint32_t>(initCwnd, 1);
    f.start = start;
    // Alone in the network: the handshake (one RTT), then the bytes through
    // the links at line rate, plus the store-and-forward of one packet at
    // every further hop. Headers: 40 B TCP/IP + 12 B timestamps + 2 B PPP.
    uint32_t links = m_hosts[src].leaf == m_hosts[dst].leaf ? 2 : 4;
    double d = m_linkDelay.GetSeconds();
    double pkts = std::ceil(double(size) / m_mss);
    double wire = double(size) + pkts * 54.0;
    double ser = wire * 8.0 / m_rateBps;
    double hopSer = (links - 1) * (m_mss + 54.0) * 8.0 / m_rateBps;
    f.idealNs = 1e9 * (2 * links * d + links * d + ser + hopSer);
    if (query >= 0)
    {
        Query& q = m_queries.at(query);
        q.flows += 1;
        q.bytes += size;
    }
    m_flows.push_back(f);
    Simulator::Schedule(start - Simulator::Now(), &TrafficManager::StartFlow, this, f.id);
    return f.id;
}

void
TrafficManager::StartFlow(uint32_t id)
{
    Flow& f = m_flows[id];
    const Host& src = m_hosts[f.src];
    const Host& dst = m_hosts[f.dst];
    Ptr<Socket> s = HarnessTcpSocket::Create(src.node);
    s->SetAttribute("InitialCwnd", UintegerValue(f.initCwnd));
    s->Bind();
    Address local;
    s->GetSockName(local);
    uint16_t sport = InetSocketAddress::ConvertFrom(local).GetPort();
    m_byKey[Key{src.addr.Get(), dst.addr.Get(), sport, SINK_PORT}] = id;
    m_byKey[Key{dst.addr.Get(), src.addr.Get(), SINK_PORT, sport}] = id;
    m_txFlow[PeekPointer(s)] = id;
    s->TraceConnectWithoutContext("CongState",
                                  MakeBoundCallback(&TrafficManager::CongStateChanged, this, id));
    s->SetConnectCallback(MakeCallback(&TrafficManager::Connected, this),
                          MakeCallback(&TrafficManager::ConnectFailed, this));
    s->SetSendCallback(MakeCallback(&TrafficManager::SendMore, this));
    s->Connect(InetSocketAddress(dst.addr, SINK_PORT));
}

void
TrafficManager::CongStateChanged(TrafficManager* tm, uint32_t id,
                                 TcpSocketState::TcpCongState_t from,
                                 TcpSocketState::TcpCongState_t to)
{
    if (to == TcpSocketState::CA_LOSS && from != TcpSocketState::CA_LOSS)
    {
        tm->m_flows[id].rto += 1;
    }
}

void
TrafficManager::Connected(Ptr<Socket> s)
{
    SendMore(s, s->GetTxAvailable());
}

void
TrafficManager::ConnectFailed(Ptr<Socket> s)
{
    auto it = m_txFlow.find(PeekPointer(s));
    if (it != m_txFlow.end())
    {
        NS_LOG_WARN("flow " << it->second << " could not connect");
        m_txFlow.erase(it);
    }
}

void
TrafficManager::SendMore(Ptr<Socket> s, uint32_t available)
{
    auto it = m_txFlow.find(PeekPointer(s));
    if (it == m_txFlow.end())
    {
        return;
    }
    Flow& f = m_flows[it->second];
    while (f.sent < f.size)
    {
        uint64_t chunk = std::min<uint64_t>({f.size - f.sent, s->GetTxAvailable(), 1u << 20});
        if (chunk == 0)
        {
            break;
        }
        int r = s->Send(Create<Packet>(uint32_t(chunk)));
        if (r <= 0)
        {
            break;
        }
        f.sent += uint64_t(r);
    }
    if (f.sent >= f.size && !f.closed)
    {
        f.closed = true;
        s->Close();
        m_txFlow.erase(it);
    }
}

bool
TrafficManager::Accept(Ptr<Socket> s, const Address& from)
{
    return true;
}

void
TrafficManager::Accepted(Ptr<Socket> s, const Address& from)
{
    InetSocketAddress peer = InetSocketAddress::ConvertFrom(from);
    const Host& me = m_hosts[m_hostByNode.at(s->GetNode()->GetId())];
    auto it = m_byKey.find(Key{peer.GetIpv4().Get(), me.addr.Get(), peer.GetPort(), SINK_PORT});
    if (it == m_byKey.end())
    {
        NS_LOG_WARN("connection from an unknown flow " << peer.GetIpv4() << ":" << peer.GetPort());
        return;
    }
    m_rxFlow[PeekPointer(s)] = it->second;
    s->SetRecvCallback(MakeCallback(&TrafficManager::Read, this));
    s->SetCloseCallbacks(MakeCallback(&TrafficManager::PeerClosed, this),
                         MakeCallback(&TrafficManager::PeerClosed, this));
}

void
TrafficManager::Read(Ptr<Socket> s)
{
    auto it = m_rxFlow.find(PeekPointer(s));
    Ptr<Packet> p;
    uint64_t got = 0;
    // One segment at a time: Recv() without a limit merges every in-order
    // segment into one packet, which copies quadratically after a hole fills.
    while ((p = s->Recv(m_mss, 0)) && p->GetSize() > 0)
    {
        got += p->GetSize();
    }
    if (it == m_rxFlow.end())
    {
        return;
    }
    Flow& f = m_flows[it->second];
    f.rx += got;
    if (f.rx >= f.size && f.endNs < 0)
    {
        Complete(f);
    }
}

void
TrafficManager::PeerClosed(Ptr<Socket> s)
{
    // Close() with unread data resets the connection (RFC 2525), and the reset calls the
    // error-close callback, this function, from inside Close(): closing again would reset
    // again, without end.
    if (!m_closing.insert(PeekPointer(s)).second)
    {
        return;
    }
    m_rxFlow.erase(PeekPointer(s));
    s->Close();
    m_closing.erase(PeekPointer(s));
}

void
TrafficManager::Complete(Flow& f)
{
    f.endNs = Simulator::Now().GetNanoSeconds();
    if (f.query >= 0)
    {
        Query& q = m_queries[f.query];
        q.done += 1;
        if (q.done == q.flows)
        {
            q.endNs = f.endNs;
        }
    }
}

bool
TrafficManager::Lookup(Ipv4Address src, uint16_t sport, Ipv4Address dst, uint16_t dport,
                       uint32_t* flowId, uint8_t* cls) const
{
    auto it = m_byKey.find(Key{src.Get(), dst.Get(), sport, dport});
    if (it == m_byKey.end())
    {
        return false;
    }
    *flowId = it->second;
    *cls = m_flows[it->second].cls;
    return true;
}

void
TrafficManager::NotifyDrop(uint32_t flowId, uint32_t bytes)
{
    if (flowId >= m_flows.size())
    {
        return;
    }
    Flow& f = m_flows[flowId];
    f.dropPackets += 1;
    f.dropBytes += bytes;
    if (f.query >= 0)
    {
        m_queries[f.query].dropPackets += 1;
    }
}

const std::vector<TrafficManager::Flow>&
TrafficManager::GetFlows() const
{
    return m_flows;
}

const std::vector<TrafficManager::Query>&
TrafficManager::GetQueries() const
{
    return m_queries;
}

uint32_t
TrafficManager::GetNHosts() const
{
    return m_hosts.size();
}

uint32_t
TrafficManager::GetHostLeaf(uint32_t host) const
{
    return m_hosts.at(host).leaf;
}

Ipv4Address
TrafficManager::GetHostAddress(uint32_t host) const
{
    return m_hosts.at(host).addr;
}

void
TrafficManager::WriteFlows(std::ostream& os) const
{
    os << "id,kind,query,src,dst,cls,size,start_ns,end_ns,fct_ns,ideal_ns,slowdown,drop_pkts,"
          "drop_bytes,rto\n";
    for (const Flow& f : m_flows)
    {
        int64_t start = f.start.GetNanoSeconds();
        int64_t fct = f.endNs >= 0 ? f.endNs - start : -1;
        os << f.id << "," << (f.query >= 0 ? "incast" : "ws") << "," << f.query << "," << f.src
           << "," << f.dst << "," << unsigned(f.cls) << "," << f.size << "," << start << ","
           << f.endNs << "," << fct << "," << int64_t(f.idealNs) << ",";
        if (fct >= 0)
        {
            os << double(fct) / f.idealNs;
        }
        else
        {
            os << "nan";
        }
        os << "," << f.dropPackets << "," << f.dropBytes << "," << f.rto << "\n";
    }
}

void
TrafficManager::WriteQueries(std::ostream& os) const
{
    os << "id,dst,cls,start_ns,end_ns,qct_ns,flows,bytes,drop_pkts\n";
    for (const Query& q : m_queries)
    {
        int64_t start = q.start.GetNanoSeconds();
        os << q.id << "," << q.dst << "," << unsigned(q.cls) << "," << start << "," << q.endNs << ","
           << (q.endNs >= 0 ? q.endNs - start : -1) << "," << q.flows << "," << q.bytes << ","
           << q.dropPackets << "\n";
    }
}

} // namespace ns3
