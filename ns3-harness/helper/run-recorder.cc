/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "run-recorder.h"

#include "ns3/callback.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RunRecorder");

RunRecorder::RunRecorder(const std::string& out, std::chrono::steady_clock::time_point wallStart)
    : m_out(out), m_wallStart(wallStart), m_traceLeft(0), m_traceFromNs(0)
{
}

void
RunRecorder::SampleBuffers(const std::vector<LeafSpineSwitch*>& leaves, Time start, Time period)
{
    NS_LOG_FUNCTION(this << start << period);
    m_leaves = leaves;
    m_bufferPeriod = period;
    Simulator::Schedule(start, &RunRecorder::SampleBuffersNow, this);
}

void
RunRecorder::SampleBuffersNow()
{
    for (uint32_t l = 0; l < m_leaves.size(); ++l)
    {
        m_occ.push_back(
            Sample{Simulator::Now().GetNanoSeconds(), l, m_leaves[l]->buffer->GetOccupancy()});
    }
    Simulator::Schedule(m_bufferPeriod, &RunRecorder::SampleBuffersNow, this);
}

void
RunRecorder::SampleQueues(const LeafSpineSwitch& sw, Time start, Time period)
{
    NS_LOG_FUNCTION(this << sw.name << start << period);
    m_queueBuffer = sw.buffer;
    m_queuePeriod = period;
    m_queuesCsv.open(m_out + "/queues.csv");
    m_queuesCsv << "t_ns,port,queue,len_bytes,threshold_bytes,alpha\n";
    Simulator::Schedule(start, &RunRecorder::SampleQueuesNow, this);
}

void
RunRecorder::SampleQueuesNow()
{
    Ptr<SharedBuffer> b = m_queueBuffer;
    for (uint32_t p = 0; p < b->GetNPorts(); ++p)
    {
        for (uint32_t q = 0; q < b->GetQueuesPerPort(); ++q)
        {
            m_queuesCsv << Simulator::Now().GetNanoSeconds() << "," << p << "," << q << ","
                        << b->GetQueue(p, q).len << "," << b->GetThreshold(p, q, false) << ","
                        << b->GetAlpha(p * b->GetQueuesPerPort() + q) << "\n";
        }
    }
    Simulator::Schedule(m_queuePeriod, &RunRecorder::SampleQueuesNow, this);
}

void
RunRecorder::TracePackets(const LeafSpineSwitch& sw, const PacketTraceHeader& h, uint32_t count,
                          Time from)
{
    NS_LOG_FUNCTION(this << sw.name << count << from);
    m_packetsCsv.open(m_out + "/packets.csv");
    m_packetsCsv << std::setprecision(17);
    m_packetsCsv << "# scheme=" << h.scheme << "\n# switch=" << sw.name << "\n# alphas=" << h.alphas
                 << "\n# alpha_unsched=" << h.alphaUnsched
                 << "\n# update_interval_ns=" << h.updateIntervalNs
                 << "\n# queues_per_port=" << h.queuesPerPort
                 << "\n# pool_bytes=" << sw.buffer->GetPoolBytes()
                 << "\n# ports=" << sw.ports.GetN() << "\n# port_rate_bps=" << h.portRateBps
                 << "\n# seed=" << h.seed << "\n# groups=" << h.groups
                 << "\n# admit_rule=fit\n# source=ns3-harness\n";
    m_packetsCsv
        << "t_ns,switch,port,queue,priority,bytes,qlen_bytes,pool_occupancy_bytes,pool_bytes,n_p,"
           "port_active_queues,gamma,alpha_p,unsched,admitted,threshold_bytes\n";
    m_traceSwitch = sw.name;
    m_traceLeft = count;
    m_traceFromNs = from.GetNanoSeconds();
    sw.buffer->TraceConnectWithoutContext("Admission",
                                          MakeCallback(&RunRecorder::OnAdmission, this));
}

void
RunRecorder::OnAdmission(const AdmissionRecord& r)
{
    int64_t now = Simulator::Now().GetNanoSeconds();
    if (m_traceLeft == 0 || now < m_traceFromNs)
    {
        return;
    }
    --m_traceLeft;
    m_packetsCsv << now << "," << m_traceSwitch << "," << r.port << "," << r.queue << "," << r.queue
                 << "," << r.bytes << "," << r.qlenBytes << "," << r.poolOccupancy << ","
                 << r.poolBytes << "," << r.nP << "," << r.portActive << "," << r.gamma << ","
                 << r.alphaP << "," << (r.unsched ? 1 : 0) << "," << (r.admitted ? 1 : 0) << ","
                 << r.thresholdBytes << "\n";
}

uint64_t
RunRecorder::UplinkBytes(uint32_t l) const
{
    const LeafSpineSwitch& sw = *m_uplinkLeaves[l];
    uint64_t b = 0;
    for (uint32_t p : sw.uplinks)
    {
        for (uint32_t q = 0; q < sw.buffer->GetQueuesPerPort(); ++q)
        {
            b += sw.buffer->GetQueue(p, q).txBytes;
        }
    }
    return b;
}

void
RunRecorder::MeasureUplinks(const std::vector<LeafSpineSwitch*>& leaves, Time start, Time end)
{
    NS_LOG_FUNCTION(this << start << end);
    m_uplinkLeaves = leaves;
    m_upStart.assign(leaves.size(), 0);
    m_upEnd.assign(leaves.size(), 0);
    Simulator::Schedule(start, [this]() {
        for (uint32_t l = 0; l < m_uplinkLeaves.size(); ++l)
        {
            m_upStart[l] = UplinkBytes(l);
        }
    });
    Simulator::Schedule(end, [this]() {
        for (uint32_t l = 0; l < m_uplinkLeaves.size(); ++l)
        {
            m_upEnd[l] = UplinkBytes(l);
        }
    });
}

void
RunRecorder::Write(Ptr<TrafficManager> traffic, const std::string& paramsJson,
                   const RunFacts& facts, const std::vector<LeafSpineSwitch*>& switches,
                   double uplinkBps, double startS)
{
    NS_LOG_FUNCTION(this);
    {
        std::ofstream f(m_out + "/flows.csv");
        traffic->WriteFlows(f);
    }
    {
        std::ofstream f(m_out + "/queries.csv");
        traffic->WriteQueries(f);
    }
    {
        std::ofstream f(m_out + "/buffer.csv");
        f << "t_ns,switch,occupancy_bytes\n";
        for (const auto& s : m_occ)
        {
            f << s.t << "," << m_leaves[s.sw]->name << "," << s.occ << "\n";
        }
    }
    std::ofstream f(m_out + "/summary.json");
    f << std::setprecision(12);
    f << "{\n  \"program\": \"alphad-ns3-sim\",\n";
    f << "  \"params\": " << paramsJson << ",\n";
    f << "  \"base_rtt_ns\": " << facts.baseRttNs << ",\n";
    f << "  \"bdp_bytes\": " << facts.bdpBytes << ",\n";
    f << "  \"leaf_pool_bytes\": " << facts.leafPoolBytes << ",\n";
    f << "  \"gen_end_s\": " << facts.genEndS << ",\n";
    f << "  \"sim_seconds\": " << facts.simS << ",\n";
    f << "  \"run_wall_seconds\": " << facts.runWallS << ",\n";
    f << "  \"total_wall_seconds\": "
      << std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wallStart).count()
      << ",\n";
    f << "  \"events\": " << facts.events << ",\n";
    f << "  \"flows\": " << traffic->GetFlows().size() << ", \"ws_flows\": " << facts.wsFlows
      << ", \"queries\": " << facts.queries << ",\n";
    if (facts.cosim)
    {
        f << "  \"cosim_exchanges\": " << facts.cosimExchanges
          << ", \"cosim_wait_seconds\": " << facts.cosimWaitS << ",\n";
    }
    double window = facts.genEndS - startS;
    f << "  \"uplink_utilisation\": [";
    for (uint32_t l = 0; l < m_upStart.size(); ++l)
    {
        f << (l ? ", " : "") << double(m_upEnd[l] - m_upStart[l]) * 8.0 / (uplinkBps * window);
    }
    f << "],\n  \"switches\": [\n";
    for (size_t i = 0; i < switches.size(); ++i)
    {
        Ptr<SharedBuffer> b = switches[i]->buffer;
        uint64_t tx = 0;
        uint64_t db = 0;
        uint64_t dp = 0;
        for (const auto& q : b->GetQueues())
        {
            tx += q.txBytes;
            db += q.dropBytes;
            dp += q.dropPackets;
        }
        f << "    {\"name\": \"" << switches[i]->name << "\", \"ports\": " << b->GetNPorts()
          << ", \"pool_bytes\": " << b->GetPoolBytes() << ", \"tx_bytes\": " << tx
          << ", \"drop_bytes\": " << db << ", \"drop_packets\": " << dp << "}"
          << (i + 1 < switches.size() ? ",\n" : "\n");
    }
    f << "  ]\n}\n";
    if (m_packetsCsv.is_open())
    {
        m_packetsCsv.close();
    }
}

} // namespace ns3
