/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "shared-buffer.h"

#include "dt-buffer-scheme.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
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
            .AddAttribute("PoolBytes", "B, the shared pool of the switch in bytes",
                          UintegerValue(960000), MakeUintegerAccessor(&SharedBuffer::m_poolBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("QueuesPerPort", "Egress queues (priorities) per port", UintegerValue(8),
                          MakeUintegerAccessor(&SharedBuffer::m_queuesPerPort),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("Alphas", "alpha_p of each priority, comma-separated (one value: all)",
                          StringValue("0.5"), MakeStringAccessor(&SharedBuffer::m_alphas),
                          MakeStringChecker())
            .AddAttribute("Scheme", "The admission scheme (a BufferScheme; none: DtBufferScheme)",
                          PointerValue(),
                          MakePointerAccessor(&SharedBuffer::SetScheme, &SharedBuffer::GetScheme),
                          MakePointerChecker<BufferScheme>())
            .AddTraceSource("Admission", "Every admission decision with the state the scheme saw",
                            MakeTraceSourceAccessor(&SharedBuffer::m_admissionTrace),
                            "ns3::SharedBuffer::AdmissionCallback");
    return tid;
}

SharedBuffer::SharedBuffer() : m_configured(false), m_occupancy(0), m_poolWatermark(0)
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
    if (m_scheme)
    {
        m_scheme->Dispose();
        m_scheme = nullptr;
    }
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
SharedBuffer::SetScheme(Ptr<BufferScheme> scheme)
{
    NS_LOG_FUNCTION(this << scheme);
    NS_ABORT_MSG_IF(m_configured, "SharedBuffer::SetScheme: the buffer already has ports");
    m_scheme = scheme;
}

Ptr<BufferScheme>
SharedBuffer::GetScheme() const
{
    return m_scheme;
}

void
SharedBuffer::Configure()
{
    if (m_configured)
    {
        return;
    }
    std::vector<double> a = ParseDoubleList(m_alphas, "SharedBuffer::Alphas");
    NS_ABORT_MSG_IF(a.size() != 1 && a.size() != m_queuesPerPort,
                    "SharedBuffer::Alphas: " << a.size() << " values for " << m_queuesPerPort
                                             << " priorities");
    m_alphaP.assign(m_queuesPerPort, a[0]);
    for (uint32_t p = 0; p < a.size(); ++p)
    {
        NS_ABORT_MSG_IF(!(a[p] > 0),
                        "SharedBuffer::Alphas: alpha of priority " << p << " must be > 0");
        m_alphaP[p] = a[p];
    }
    if (!m_scheme)
    {
        m_scheme = CreateObject<DtBufferScheme>();
    }
    m_configured = true;
    m_scheme->Attach(this);
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
    m_scheme->NotifyPortAdded(port);
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
SharedBuffer::GetAlphaP(uint32_t priority) const
{
    return m_alphaP.at(priority);
}

double
SharedBuffer::ThresholdOf(uint32_t port, uint32_t queue, bool unsched, AdmissionRecord* rec) const
{
    uint32_t g = port * m_queuesPerPort + queue;
    // B - Q: unused buffer, evaluated per packet by every scheme (ABM Eq. 5, 9)
    double freeBytes = m_occupancy >= m_poolBytes ? 0.0 : double(m_poolBytes - m_occupancy);
    uint32_t active = m_portActive[port] + (m_q[g].len == 0 ? 1 : 0);
    SchemeThreshold t =
        m_scheme->GetThreshold(SchemeInput{port, queue, g, unsched, freeBytes, active});
    if (rec)
    {
        rec->nP = t.nP;
        rec->gamma = t.gamma;
        rec->alphaP = t.alphaP;
        rec->portActive = active;
        rec->thresholdBytes = t.bytes;
    }
    return t.bytes;
}

double
SharedBuffer::GetThreshold(uint32_t port, uint32_t queue, bool unsched) const
{
    return ThresholdOf(port, queue, unsched, nullptr);
}

bool
SharedBuffer::Admit(uint32_t port, uint32_t queue, uint32_t bytes, bool unsched,
                    const char** reason)
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
    }
    s.len += bytes;
    s.packets += 1;
    s.watermark = std::max(s.watermark, s.len);
    m_occupancy += bytes;
    m_poolWatermark = std::max(m_poolWatermark, m_occupancy);
    m_scheme->NotifyEnqueue(port, queue, bytes);
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
    if (s.len == 0)
    {
        m_portActive[port] -= 1;
    }
    m_scheme->NotifyDequeue(port, queue, bytes);
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
    NS_ABORT_MSG_IF(globalQueue >= m_q.size(), "SharedBuffer::GetAlpha: no queue " << globalQueue);
    return m_scheme->GetAlpha(globalQueue);
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
