/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "cosim-channel.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CosimChannel");
NS_OBJECT_ENSURE_REGISTERED(CosimChannel);

TypeId
CosimChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CosimChannel")
            .SetParent<Object>()
            .SetGroupName("Alphad")
            .AddConstructor<CosimChannel>()
            .AddAttribute("Interval",
                          "Simulated time between two snapshots",
                          TimeValue(MicroSeconds(80)),
                          MakeTimeAccessor(&CosimChannel::m_interval),
                          MakeTimeChecker(NanoSeconds(100)))
            .AddAttribute("ApplyDelay",
                          "Simulated time between a snapshot and the alphas taking effect",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&CosimChannel::m_applyDelay),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("ShadowDt",
                          "Count per queue the drops DT at the operator's alphas would have "
                          "admitted (rows sdb and sdp)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&CosimChannel::m_shadowDt),
                          MakeBooleanChecker());
    return tid;
}

CosimChannel::CosimChannel()
    : m_shadowDt(false),
      m_in(nullptr),
      m_out(nullptr),
      m_seq(0),
      m_waitSeconds(0)
{
}

CosimChannel::~CosimChannel()
{
}

void
CosimChannel::DoDispose()
{
    m_buffers.clear();
    Object::DoDispose();
}

void
CosimChannel::AddSwitch(const std::string& name, Ptr<SharedBuffer> buffer)
{
    NS_ABORT_MSG_IF(name.empty() || name.find_first_of(" \t\n") != std::string::npos,
                    "CosimChannel: switch name '" << name << "' must be one word");
    m_names.push_back(name);
    m_buffers.push_back(buffer);
}

void
CosimChannel::Start(FILE* in, FILE* out)
{
    m_in = in;
    m_out = out;
    fprintf(m_out, "HELLO alphad-ns3-cosim %d\n", VERSION);
    for (uint32_t s = 0; s < m_names.size(); ++s)
    {
        Ptr<SharedBuffer> b = m_buffers[s];
        fprintf(m_out, "SWITCH %s %u %u %" PRIu64, m_names[s].c_str(), b->GetNPorts(),
                b->GetQueuesPerPort(), b->GetPoolBytes());
        for (uint32_t p = 0; p < b->GetNPorts(); ++p)
        {
            fprintf(m_out, " %" PRIu64, b->GetPortRate(p).GetBitRate());
        }
        fprintf(m_out, "\n");
    }
    fprintf(m_out, "READY %zu %" PRId64 "%s\n", m_names.size(), m_interval.GetNanoSeconds(),
            m_shadowDt ? " sdb sdp" : "");
    fflush(m_out);
    if (m_shadowDt)
    {
        for (uint32_t s = 0; s < m_buffers.size(); ++s)
        {
            m_shadowBytes.emplace_back(m_buffers[s]->GetNQueues(), 0);
            m_shadowPackets.emplace_back(m_buffers[s]->GetNQueues(), 0);
            m_buffers[s]->TraceConnectWithoutContext(
                "Admission",
                MakeBoundCallback(&CosimChannel::Dropped, this, s));
        }
    }
    Simulator::Schedule(m_interval, &CosimChannel::Tick, this);
}

void
CosimChannel::Finish()
{
    if (m_out)
    {
        fprintf(m_out, "BYE %" PRId64 "\n", Simulator::Now().GetNanoSeconds());
        fflush(m_out);
    }
}

uint64_t
CosimChannel::GetExchanges() const
{
    return m_seq;
}

double
CosimChannel::GetWaitSeconds() const
{
    return m_waitSeconds;
}

template <typename T, typename F>
static void
WriteRow(FILE* out, const char* name, const std::vector<T>& v, F get)
{
    fputs(name, out);
    for (const auto& x : v)
    {
        get(out, x);
    }
    fputc('\n', out);
}

void
CosimChannel::WriteSnapshot(uint32_t sw)
{
    Ptr<SharedBuffer> b = m_buffers[sw];
    std::vector<uint64_t> wm = b->ReadWatermarks();
    uint64_t poolWm = b->ReadPoolWatermark();
    const auto& qs = b->GetQueues();
    fprintf(m_out, "SNAP %" PRIu64 " %" PRId64 " %s %" PRIu64 " %" PRIu64 "\n", m_seq,
            Simulator::Now().GetNanoSeconds(), m_names[sw].c_str(), b->GetOccupancy(), poolWm);
    auto u64 = [](FILE* o, uint64_t x) { fprintf(o, " %" PRIu64, x); };
    WriteRow(m_out, "wm", wm, u64);
    using Q = SharedBuffer::QueueState;
    WriteRow(m_out, "len", qs, [](FILE* o, const Q& q) { fprintf(o, " %" PRIu64, q.len); });
    WriteRow(m_out, "txb", qs, [](FILE* o, const Q& q) { fprintf(o, " %" PRIu64, q.txBytes); });
    WriteRow(m_out, "txp", qs, [](FILE* o, const Q& q) { fprintf(o, " %" PRIu64, q.txPackets); });
    WriteRow(m_out, "drb", qs, [](FILE* o, const Q& q) { fprintf(o, " %" PRIu64, q.dropBytes); });
    WriteRow(m_out, "drp", qs, [](FILE* o, const Q& q) { fprintf(o, " %" PRIu64, q.dropPackets); });
    fputs("alpha", m_out);
    for (uint32_t g = 0; g < qs.size(); ++g)
    {
        fprintf(m_out, " %.17g", b->GetAlpha(g));
    }
    fputc('\n', m_out);
    if (m_shadowDt)
    {
        WriteRow(m_out, "sdb", m_shadowBytes[sw], u64);
        WriteRow(m_out, "sdp", m_shadowPackets[sw], u64);
    }
}

bool
ShadowDtAdmits(const std::vector<uint64_t>& len, const std::vector<double>& alpha,
               const std::vector<double>& alpha0, uint32_t g, uint32_t bytes, uint64_t occupancy,
               uint64_t pool)
{
    const double freeBytes = occupancy >= pool ? 0.0 : double(pool - occupancy);
    // the least F' at which DT admits: len_g + bytes <= alpha0_g F' and bytes <= F'
    const double need = std::max((double(len[g]) + bytes) / alpha0[g], double(bytes));
    if (need <= freeBytes)
    {
        return true;
    }
    // F' = F + E(F') has its root at or above `need` iff F + E(need) >= need (E decreasing)
    double excess = 0;
    for (uint32_t j = 0; j < len.size(); ++j)
    {
        if (j != g && alpha[j] > alpha0[j])
        {
            excess += std::max(0.0, double(len[j]) - alpha0[j] * need);
        }
    }
    return freeBytes + excess >= need;
}

void
CosimChannel::Dropped(CosimChannel* self, uint32_t sw, const AdmissionRecord& rec)
{
    if (rec.admitted)
    {
        return;
    }
    Ptr<SharedBuffer> b = self->m_buffers[sw];
    const auto& qs = b->GetQueues();
    const uint32_t n = qs.size();
    std::vector<uint64_t> len(n);
    std::vector<double> alpha(n);
    std::vector<double> alpha0(n);
    for (uint32_t j = 0; j < n; ++j)
    {
        len[j] = qs[j].len;
        alpha[j] = b->GetAlpha(j);
        alpha0[j] = b->GetAlphaP(j % b->GetQueuesPerPort());
    }
    const uint32_t g = rec.port * b->GetQueuesPerPort() + rec.queue;
    if (ShadowDtAdmits(len, alpha, alpha0, g, rec.bytes, rec.poolOccupancy, rec.poolBytes))
    {
        self->m_shadowBytes[sw][g] += rec.bytes;
        self->m_shadowPackets[sw][g] += 1;
    }
}

static bool
ReadLine(FILE* in, std::string& line)
{
    line.clear();
    int c;
    while ((c = fgetc(in)) != EOF)
    {
        if (c == '\n')
        {
            return true;
        }
        line.push_back(char(c));
    }
    return !line.empty();
}

void
CosimChannel::Tick()
{
    m_seq += 1;
    for (uint32_t s = 0; s < m_buffers.size(); ++s)
    {
        WriteSnapshot(s);
    }
    fprintf(m_out, "TICK %" PRIu64 "\n", m_seq);
    fflush(m_out);
    auto t0 = std::chrono::steady_clock::now();
    ReadAnswers();
    m_waitSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Simulator::Schedule(m_interval, &CosimChannel::Tick, this);
}

void
CosimChannel::ReadAnswers()
{
    // ALPHA <seq> <switch> <m> (<queue> <alpha>){m} ... then DONE <seq>
    while (true)
    {
        if (!ReadLine(m_in, m_line))
        {
            NS_FATAL_ERROR("co-simulation: the controller closed its end while interval "
                           << m_seq << " was waiting for alphas");
        }
        std::istringstream ss(m_line);
        std::string kind;
        uint64_t seq = 0;
        ss >> kind >> seq;
        NS_ABORT_MSG_IF(ss.fail() || (kind != "ALPHA" && kind != "DONE"),
                        "co-simulation: expected 'ALPHA <seq> ...' or 'DONE <seq>', got '"
                            << m_line.substr(0, 80) << "'");
        NS_ABORT_MSG_IF(seq != m_seq,
                        "co-simulation: answer for interval " << seq << " while at " << m_seq);
        if (kind == "DONE")
        {
            return;
        }
        std::string name;
        uint32_t m = 0;
        ss >> name >> m;
        uint32_t sw = 0;
        while (sw < m_names.size() && m_names[sw] != name)
        {
            ++sw;
        }
        NS_ABORT_MSG_IF(ss.fail() || sw == m_names.size(),
                        "co-simulation: ALPHA line names unknown switch '" << name << "'");
        std::vector<std::pair<uint32_t, double>> alphas;
        alphas.reserve(m);
        for (uint32_t i = 0; i < m; ++i)
        {
            uint32_t q;
            double a;
            ss >> q >> a;
            NS_ABORT_MSG_IF(ss.fail(), "co-simulation: ALPHA line for '" << name << "' has fewer than "
                                                                         << m << " (queue, alpha) pairs");
            NS_ABORT_MSG_IF(q >= m_buffers[sw]->GetNQueues(),
                            "co-simulation: switch '" << name << "' has no queue " << q);
            NS_ABORT_MSG_IF(!(a > 0) || !std::isfinite(a),
                            "co-simulation: alpha of queue " << q << " of '" << name
                                                             << "' must be finite and > 0");
            alphas.emplace_back(q, a);
        }
        if (m_applyDelay.IsZero())
        {
            Apply(sw, std::move(alphas));
        }
        else
        {
            Simulator::Schedule(m_applyDelay, &CosimChannel::Apply, this, sw, alphas);
        }
    }
}

void
CosimChannel::Apply(uint32_t sw, std::vector<std::pair<uint32_t, double>> alphas)
{
    for (const auto& [q, a] : alphas)
    {
        m_buffers[sw]->SetAlpha(q, a);
    }
}

} // namespace ns3
