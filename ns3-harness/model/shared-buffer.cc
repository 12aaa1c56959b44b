/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "shared-buffer.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/integer.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SharedBuffer");
NS_OBJECT_ENSURE_REGISTERED(SharedBuffer);

std::vector<double>
ParseDoubleList(const std::string& text, const std::string& what)
{
    std::vector<double> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        char* end = nullptr;
        double v = std::strtod(item.c_str(), &end);
        NS_ABORT_MSG_IF(item.empty() || end == item.c_str() || *end != '\0' || !std::isfinite(v),
                        what << ": '" << item << "' is not a number (in '" << text << "')");
        out.push_back(v);
    }
    NS_ABORT_MSG_IF(out.empty(), what << ": empty list");
    return out;
}

TypeId
SharedBuffer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SharedBuffer")
            .SetParent<Object>()
            .SetGroupName("Alphad")
            .AddConstructor<SharedBuffer>()
            .AddAttribute("PoolBytes",
                          "B, the shared pool of the switch in bytes",
                          UintegerValue(960000),
                          MakeUintegerAccessor(&SharedBuffer::m_poolBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("QueuesPerPort",
                          "Egress queues (priorities) per port",
                          UintegerValue(8),
                          MakeUintegerAccessor(&SharedBuffer::m_queuesPerPort),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("Scheme",
                          "Admission scheme: dt, cs, abm, abm-core, fb, protean, external",
                          StringValue("dt"),
                          MakeStringAccessor(&SharedBuffer::m_schemeName),
                          MakeStringChecker())
            .AddAttribute("Alphas",
                          "alpha_p of each priority, comma-separated (one value: all)",
                          StringValue("0.5"),
                          MakeStringAccessor(&SharedBuffer::m_alphas),
                          MakeStringChecker())
            .AddAttribute("AlphaUnsched",
                          "ABM alpha of first-RTT (unscheduled) packets (ABM §3.3, §4.1: 64)",
                          DoubleValue(64.0),
                          MakeDoubleAccessor(&SharedBuffer::m_alphaUnsched),
                          MakeDoubleChecker<double>(0.0, 1e6))
            .AddAttribute("UpdateInterval",
                          "ABM refresh period of n_p and gamma (ABM §4.1: one RTT)",
                          TimeValue(MicroSeconds(80)),
                          MakeTimeAccessor(&SharedBuffer::m_updateInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("CongestedFraction",
                          "ABM: a queue is congested when its length >= this fraction of T",
                          DoubleValue(0.9),
                          MakeDoubleAccessor(&SharedBuffer::m_congestedFraction),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("Groups",
                          "FB priority group of each priority, comma-separated (empty: own)",
                          StringValue(""),
                          MakeStringAccessor(&SharedBuffer::m_groups),
                          MakeStringChecker())
            .AddAttribute("ProteanShortPriority",
                          "Protean: priority of short flows (complete sharing), -1: none",
                          IntegerValue(-1),
                          MakeIntegerAccessor(&SharedBuffer::m_proteanShort),
                          MakeIntegerChecker<int32_t>(-1, 63))
            .AddAttribute("ProteanLongPriority",
                          "Protean: priority of long flows (DT with its alpha), -1: none",
                          IntegerValue(-1),
                          MakeIntegerAccessor(&SharedBuffer::m_proteanLong),
                          MakeIntegerChecker<int32_t>(-1, 63))
            .AddAttribute("ProteanBeta",
                          "Protean: EWMA weight of the newest gradient sample (§III-A: 1/4)",
                          DoubleValue(0.25),
                          MakeDoubleAccessor(&SharedBuffer::m_proteanBeta),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("ProteanBuildup",
                          "Protean: buildup threshold in line rates (§IV-A: 2)",
                          DoubleValue(2.0),
                          MakeDoubleAccessor(&SharedBuffer::m_proteanBuildup),
                          MakeDoubleChecker<double>(0.0, 1e3))
            .AddTraceSource("Admission",
                            "Every admission decision with the state the scheme saw",
                            MakeTraceSourceAccessor(&SharedBuffer::m_admissionTrace),
                            "ns3::SharedBuffer::AdmissionCallback");
    return tid;
}

SharedBuffer::SharedBuffer()
    : m_scheme(DT),
      m_configured(false),
      m_occupancy(0),
      m_poolWatermark(0)
{
    NS_LOG_FUNCTION(this);
}

SharedBuffer::~SharedBuffer()
{
    NS_LOG_FUNCTION(this);
}

void
SharedBuffer::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_updateEvent.Cancel();
    Object::DoDispose();
}

void
SharedBuffer::DoInitialize()
{
    NS_LOG_FUNCTION(this);
    Configure();
    Object::DoInitialize();
}

void
SharedBuffer::Configure()
{
    if (m_configured)
    {
        return;
    }
    static const std::pair<const char*, Scheme> names[] = {{"dt", DT},
                                                           {"cs", CS},
                                                           {"abm", ABM},
                                                           {"abm-core", ABM_CORE},
                                                           {"fb", FB},
                                                           {"protean", PROTEAN},
                                                           {"external", EXTERNAL}};
    bool found = false;
    for (const auto& [name, scheme] : names)
    {
        if (m_schemeName == name)
        {
            m_scheme = scheme;
            found = true;
        }
    }
    NS_ABORT_MSG_IF(!found,
                    "SharedBuffer::Scheme: unknown scheme '"
                        << m_schemeName << "' (dt, cs, abm, abm-core, fb, protean, external)");

    std::vector<double> a = ParseDoubleList(m_alphas, "SharedBuffer::Alphas");
    NS_ABORT_MSG_IF(a.size() != 1 && a.size() != m_queuesPerPort,
                    "SharedBuffer::Alphas: " << a.size() << " values for " << m_queuesPerPort
                                             << " priorities");
    m_alphaP.assign(m_queuesPerPort, a[0]);
    for (uint32_t p = 0; p < a.size(); ++p)
    {
        NS_ABORT_MSG_IF(!(a[p] > 0), "SharedBuffer::Alphas: alpha of priority " << p << " must be > 0");
        m_alphaP[p] = a[p];
    }

    m_group.resize(m_queuesPerPort);
    for (uint32_t p = 0; p < m_queuesPerPort; ++p)
    {
        m_group[p] = p;
    }
    if (!m_groups.empty())
    {
        std::vector<double> g = ParseDoubleList(m_groups, "SharedBuffer::Groups");
        NS_ABORT_MSG_IF(g.size() != m_queuesPerPort,
                        "SharedBuffer::Groups: " << g.size() << " values for " << m_queuesPerPort
                                                 << " priorities");
        for (uint32_t p = 0; p < m_queuesPerPort; ++p)
        {
            NS_ABORT_MSG_IF(g[p] < 0 || g[p] >= m_queuesPerPort || g[p] != std::floor(g[p]),
                            "SharedBuffer::Groups: group of priority " << p << " must be an integer in [0, "
                                                                       << m_queuesPerPort << ")");
            m_group[p] = static_cast<uint32_t>(g[p]);
        }
    }
    m_groupActive.assign(m_queuesPerPort, 0);
    m_nP.assign(m_queuesPerPort, 1.0);
    m_configured = true;
}

uint32_t
SharedBuffer::AddPort(DataRate rate)
{
    NS_LOG_FUNCTION(this << rate);
    Configure();
    NS_ABORT_MSG_IF(rate.GetBitRate() == 0, "SharedBuffer::AddPort: port rate must be > 0");
    uint32_t port = m_portRate.size();
    m_portRate.push_back(rate);
    m_portActive.push_back(0);
    for (uint32_t q = 0; q < m_queuesPerPort; ++q)
    {
        QueueState s;
        s.alpha = m_alphaP[q];
        m_q.push_back(s);
    }
    if ((m_scheme == ABM || m_scheme == ABM_CORE) && !m_updateEvent.IsPending())
    {
        m_updateEvent = Simulator::Schedule(m_updateInterval, &SharedBuffer::AbmUpdate, this);
    }
    return port;
}

uint32_t
SharedBuffer::GetNPorts() const
{
    return m_portRate.size();
}

uint32_t
SharedBuffer::GetQueuesPerPort() const
{
    return m_queuesPerPort;
}

uint32_t
SharedBuffer::GetNQueues() const
{
    return m_q.size();
}

uint64_t
SharedBuffer::GetPoolBytes() const
{
    return m_poolBytes;
}

uint64_t
SharedBuffer::GetOccupancy() const
{
    return m_occupancy;
}

SharedBuffer::Scheme
SharedBuffer::GetScheme() const
{
    return m_scheme;
}

std::string
SharedBuffer::GetSchemeName() const
{
    return m_schemeName;
}

DataRate
SharedBuffer::GetPortRate(uint32_t port) const
{
    return m_portRate.at(port);
}

const SharedBuffer::QueueState&
SharedBuffer::GetQueue(uint32_t port, uint32_t queue) const
{
    return m_q.at(port * m_queuesPerPort + queue);
}

const std::vector<SharedBuffer::QueueState>&
SharedBuffer::GetQueues() const
{
    return m_q;
}

double
SharedBuffer::GetNp(uint32_t priority) const
{
    return m_nP.at(priority);
}

double
SharedBuffer::GetAlphaP(uint32_t priority) const
{
    return m_alphaP.at(priority);
}

double
SharedBuffer::BaseAlpha(uint32_t g, bool unsched) const
{
    uint32_t prio = g % m_queuesPerPort;
    switch (m_scheme)
    {
    case ABM:
        return unsched ? m_alphaUnsched : m_alphaP[prio];
    case ABM_CORE:
    case FB:
    case PROTEAN:
        return m_alphaP[prio];
    default:
        return m_q[g].alpha;
    }
}

double
SharedBuffer::ThresholdOf(uint32_t port, uint32_t queue, bool unsched, AdmissionRecord* rec) const
{
    uint32_t g = port * m_queuesPerPort + queue;
    const QueueState& s = m_q[g];
    // B - Q: unused buffer, evaluated per packet by every scheme (ABM Eq. 5, 9)
    double freeBytes = m_occupancy >= m_poolBytes ? 0.0 : double(m_poolBytes - m_occupancy);
    double alpha = BaseAlpha(g, unsched);
    double nP = 0.0;
    double gamma = 1.0;
    uint32_t active = m_portActive[port] + (s.len == 0 ? 1 : 0);
    double t = 0.0;
    switch (m_scheme)
    {
    case DT:
    case EXTERNAL:
        t = alpha * freeBytes; // T = alpha (B - Q)  (ABM Eq. 5)
        break;
    case CS:
        t = double(s.len) + freeBytes; // admit while the pool has room
        break;
    case ABM:
    case ABM_CORE:
        nP = m_nP[queue];
        gamma = s.gamma;
        t = alpha * gamma / nP * freeBytes; // T = alpha_p (1/n_p) (mu/b) (B - Q)  (ABM Eq. 9)
        break;
    case FB: {
        uint32_t grp = m_group[queue];
        nP = m_groupActive[grp] + (s.len == 0 ? 1 : 0);
        gamma = 1.0 / active;
        t = alpha * gamma / nP * freeBytes; // T = alpha_c (1/N_p) gamma (B - Q)  (FB Eq. 4)
        break;
    }
    case PROTEAN:
        if (int32_t(queue) == m_proteanShort)
        {
            t = double(s.len) + freeBytes; // Alg. 1 line 3: pkt.size < Rem
        }
        else if (int32_t(queue) == m_proteanLong)
        {
            t = alpha * freeBytes; // Alg. 1 line 5: Qlen < alpha_l Rem
        }
        else
        {
            t = s.proteanFactor * alpha * freeBytes; // Alg. 2 lines 10-13
        }
        break;
    }
    if (rec)
    {
        rec->nP = nP;
        rec->gamma = gamma;
        rec->alphaP = (m_scheme == DT || m_scheme == EXTERNAL) ? alpha : m_alphaP[queue];
        rec->portActive = active;
        rec->thresholdBytes = t;
    }
    return t;
}

double
SharedBuffer::GetThreshold(uint32_t port, uint32_t queue, bool unsched) const
{
    return ThresholdOf(port, queue, unsched, nullptr);
}

bool
SharedBuffer::Admit(uint32_t port, uint32_t queue, uint32_t bytes, bool unsched, const char** reason)
{
    NS_LOG_FUNCTION(this << port << queue << bytes << unsched);
    NS_ASSERT(port < m_portRate.size() && queue < m_queuesPerPort);
    uint32_t g = port * m_queuesPerPort + queue;
    QueueState& s = m_q[g];
    bool tracing = !m_admissionTrace.IsEmpty();
    AdmissionRecord rec{};
    double t = ThresholdOf(port, queue, unsched, tracing ? &rec : nullptr);
    bool admitted = true;
    if (m_occupancy + bytes > m_poolBytes)
    {
        admitted = false;
        *reason = POOL_DROP;
    }
    else if (double(s.len) + bytes > t)
    {
        admitted = false;
        *reason = THRESHOLD_DROP;
    }
    if (tracing)
    {
        rec.port = port;
        rec.queue = queue;
        rec.bytes = bytes;
        rec.qlenBytes = s.len;
        rec.poolOccupancy = m_occupancy;
        rec.poolBytes = m_poolBytes;
        rec.unsched = unsched;
        rec.admitted = admitted;
        m_admissionTrace(rec);
    }
    if (!admitted)
    {
        s.dropBytes += bytes;
        s.dropPackets += 1;
        return false;
    }
    if (s.len == 0)
    {
        m_portActive[port] += 1;
        m_groupActive[m_group[queue]] += 1;
    }
    s.len += bytes;
    s.packets += 1;
    s.watermark = std::max(s.watermark, s.len);
    m_occupancy += bytes;
    m_poolWatermark = std::max(m_poolWatermark, m_occupancy);
    return true;
}

void
SharedBuffer::Dequeued(uint32_t port, uint32_t queue, uint32_t bytes)
{
    NS_LOG_FUNCTION(this << port << queue << bytes);
    uint32_t g = port * m_queuesPerPort + queue;
    QueueState& s = m_q[g];
    NS_ASSERT_MSG(s.len >= bytes && m_occupancy >= bytes, "dequeue of bytes never admitted");
    s.len -= bytes;
    s.packets -= 1;
    m_occupancy -= bytes;
    s.txBytes += bytes;
    s.txPackets += 1;
    s.deqInterval += bytes;
    if (s.len == 0)
    {
        m_portActive[port] -= 1;
        m_groupActive[m_group[queue]] -= 1;
    }
    if (m_scheme == PROTEAN && int32_t(queue) != m_proteanShort && int32_t(queue) != m_proteanLong)
    {
        ProteanDequeue(g, port);
    }
}

void
SharedBuffer::ProteanDequeue(uint32_t g, uint32_t port)
{
    // Protean Alg. 2, run on every dequeue of the queue. The gradient is
    // normalised by the port's line rate (bytes/s), so that BuildupThreshold
    // is "2 x Linerate" and the factor multiplying alpha_i Rem is unitless.
    QueueState& s = m_q[g];
    double now = Simulator::Now().GetSeconds();
    double dT = now - s.tPrev;
    if (dT <= 0)
    {
        return;
    }
    double lineBytesPerS = m_portRate[port].GetBitRate() / 8.0;
    double grad = (double(s.len) - s.qlenPrev) / dT / lineBytesPerS;   // Alg. 2 line 6
    grad = m_proteanBeta * grad + (1.0 - m_proteanBeta) * s.gradPrev; // line 8
    s.gradPrev = grad;
    s.qlenPrev = double(s.len);
    s.tPrev = now;
    s.proteanFactor = grad > m_proteanBuildup ? grad : 1.0; // lines 10-13
}

void
SharedBuffer::AbmUpdate()
{
    NS_LOG_FUNCTION(this);
    // n_p: congested queues of each priority switch-wide, q >= 0.9 T (ABM §3.1),
    // with T as the queue had it during the interval that ends now.
    std::vector<double> count(m_queuesPerPort, 0.0);
    for (uint32_t g = 0; g < m_q.size(); ++g)
    {
        uint32_t queue = g % m_queuesPerPort;
        const QueueState& s = m_q[g];
        if (s.len == 0)
        {
            continue;
        }
        double t = ThresholdOf(g / m_queuesPerPort, queue, false, nullptr);
        if (double(s.len) >= m_congestedFraction * t)
        {
            count[queue] += 1.0;
        }
    }
    for (uint32_t p = 0; p < m_queuesPerPort; ++p)
    {
        m_nP[p] = std::max(1.0, count[p]);
    }
    // gamma = mu / b measured over the interval; as in the ABM authors' code,
    // a rate below 1/queues-per-port (idle or starved) or above 1 counts as 1.
    double dt = m_updateInterval.GetSeconds();
    for (uint32_t g = 0; g < m_q.size(); ++g)
    {
        QueueState& s = m_q[g];
        double rate = double(s.deqInterval) * 8.0 / (dt * m_portRate[g / m_queuesPerPort].GetBitRate());
        s.gamma = (rate < 1.0 / m_queuesPerPort || rate > 1.0) ? 1.0 : rate;
        s.deqInterval = 0;
    }
    m_updateEvent = Simulator::Schedule(m_updateInterval, &SharedBuffer::AbmUpdate, this);
}

void
SharedBuffer::SetAlpha(uint32_t globalQueue, double alpha)
{
    NS_LOG_FUNCTION(this << globalQueue << alpha);
    NS_ABORT_MSG_IF(globalQueue >= m_q.size(), "SharedBuffer::SetAlpha: no queue " << globalQueue);
    NS_ABORT_MSG_IF(!(alpha > 0) || !std::isfinite(alpha),
                    "SharedBuffer::SetAlpha: alpha must be finite and > 0, got " << alpha);
    m_q[globalQueue].alpha = alpha;
}

double
SharedBuffer::GetAlpha(uint32_t globalQueue) const
{
    const QueueState& s = m_q.at(globalQueue);
    uint32_t prio = globalQueue % m_queuesPerPort;
    switch (m_scheme)
    {
    case ABM:
    case ABM_CORE:
        return m_alphaP[prio] * s.gamma / m_nP[prio]; // omega (ABM Eq. 13)
    case FB:
    case PROTEAN:
        return m_alphaP[prio];
    case CS:
        return std::numeric_limits<double>::infinity();
    default:
        return s.alpha;
    }
}

std::vector<uint64_t>
SharedBuffer::ReadWatermarks()
{
    std::vector<uint64_t> out(m_q.size());
    for (uint32_t g = 0; g < m_q.size(); ++g)
    {
        out[g] = m_q[g].watermark;
        m_q[g].watermark = m_q[g].len;
    }
    return out;
}

uint64_t
SharedBuffer::ReadPoolWatermark()
{
    uint64_t w = m_poolWatermark;
    m_poolWatermark = m_occupancy;
    return w;
}

} // namespace ns3
