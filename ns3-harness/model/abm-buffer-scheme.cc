/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "abm-buffer-scheme.h"

#include "shared-buffer.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AbmBufferScheme");
NS_OBJECT_ENSURE_REGISTERED(AbmBufferScheme);
NS_OBJECT_ENSURE_REGISTERED(AbmCoreBufferScheme);

TypeId
AbmBufferScheme::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AbmBufferScheme")
            .SetParent<BufferScheme>()
            .SetGroupName("Alphad")
            .AddConstructor<AbmBufferScheme>()
            .AddAttribute("AlphaUnsched",
                          "Alpha of first-RTT (unscheduled) packets (ABM §3.3, §4.1: 64)",
                          DoubleValue(64.0), MakeDoubleAccessor(&AbmBufferScheme::m_alphaUnsched),
                          MakeDoubleChecker<double>(0.0, 1e6))
            .AddAttribute("UpdateInterval", "Refresh period of n_p and gamma (ABM §4.1: one RTT)",
                          TimeValue(MicroSeconds(80)),
                          MakeTimeAccessor(&AbmBufferScheme::m_updateInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute(
                "CongestedFraction", "A queue is congested when its length >= this fraction of T",
                DoubleValue(0.9), MakeDoubleAccessor(&AbmBufferScheme::m_congestedFraction),
                MakeDoubleChecker<double>(0.01, 1.0));
    return tid;
}

AbmBufferScheme::AbmBufferScheme()
{
    NS_LOG_FUNCTION(this);
}

AbmBufferScheme::~AbmBufferScheme()
{
    NS_LOG_FUNCTION(this);
}

void
AbmBufferScheme::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_updateEvent.Cancel();
    BufferScheme::DoDispose();
}

void
AbmBufferScheme::DoAttach()
{
    m_nP.assign(m_buffer->GetQueuesPerPort(), 1.0);
}

double
AbmBufferScheme::BaseAlpha(uint32_t priority, bool unsched) const
{
    return unsched ? m_alphaUnsched : m_buffer->GetAlphaP(priority);
}

SchemeThreshold
AbmBufferScheme::GetThreshold(const SchemeInput& in) const
{
    double alpha = BaseAlpha(in.queue, in.unsched);
    double nP = m_nP[in.queue];
    double gamma = m_gamma[in.globalQueue];
    // T = alpha_p (1/n_p) (mu/b) (B - Q)  (ABM Eq. 9)
    return SchemeThreshold{alpha * gamma / nP * in.freeBytes, m_buffer->GetAlphaP(in.queue), nP,
                           gamma};
}

void
AbmBufferScheme::NotifyPortAdded(uint32_t port)
{
    NS_LOG_FUNCTION(this << port);
    m_gamma.resize(m_gamma.size() + m_buffer->GetQueuesPerPort(), 1.0);
    m_deqInterval.resize(m_gamma.size(), 0);
    if (!m_updateEvent.IsPending())
    {
        m_updateEvent = Simulator::Schedule(m_updateInterval, &AbmBufferScheme::Update, this);
    }
}

void
AbmBufferScheme::NotifyDequeue(uint32_t port, uint32_t queue, uint32_t bytes)
{
    m_deqInterval[port * m_buffer->GetQueuesPerPort() + queue] += bytes;
}

void
AbmBufferScheme::Update()
{
    NS_LOG_FUNCTION(this);
    const uint32_t qpp = m_buffer->GetQueuesPerPort();
    const auto& queues = m_buffer->GetQueues();
    // n_p: congested queues of each priority switch-wide, q >= 0.9 T (ABM §3.1),
    // with T as the queue had it during the interval that ends now.
    std::vector<double> count(qpp, 0.0);
    for (uint32_t g = 0; g < queues.size(); ++g)
    {
        uint32_t queue = g % qpp;
        uint64_t len = queues[g].len;
        if (len == 0)
        {
            continue;
        }
        double t = m_buffer->GetThreshold(g / qpp, queue, false);
        if (double(len) >= m_congestedFraction * t)
        {
            count[queue] += 1.0;
        }
    }
    for (uint32_t p = 0; p < qpp; ++p)
    {
        m_nP[p] = std::max(1.0, count[p]);
    }
    // gamma = mu / b measured over the interval; as in the ABM authors' code,
    // a rate below 1/queues-per-port (idle or starved) or above 1 counts as 1.
    double dt = m_updateInterval.GetSeconds();
    for (uint32_t g = 0; g < queues.size(); ++g)
    {
        double rate =
            double(m_deqInterval[g]) * 8.0 / (dt * m_buffer->GetPortRate(g / qpp).GetBitRate());
        m_gamma[g] = (rate < 1.0 / qpp || rate > 1.0) ? 1.0 : rate;
        m_deqInterval[g] = 0;
    }
    m_updateEvent = Simulator::Schedule(m_updateInterval, &AbmBufferScheme::Update, this);
}

double
AbmBufferScheme::GetAlpha(uint32_t globalQueue) const
{
    uint32_t prio = globalQueue % m_buffer->GetQueuesPerPort();
    return m_buffer->GetAlphaP(prio) * m_gamma.at(globalQueue) / m_nP[prio]; // omega (ABM Eq. 13)
}

double
AbmBufferScheme::GetNp(uint32_t priority) const
{
    return m_nP.at(priority);
}

double
AbmBufferScheme::GetGamma(uint32_t globalQueue) const
{
    return m_gamma.at(globalQueue);
}

TypeId
AbmCoreBufferScheme::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AbmCoreBufferScheme")
                            .SetParent<AbmBufferScheme>()
                            .SetGroupName("Alphad")
                            .AddConstructor<AbmCoreBufferScheme>();
    return tid;
}

double
AbmCoreBufferScheme::BaseAlpha(uint32_t priority, bool unsched) const
{
    return m_buffer->GetAlphaP(priority);
}

} // namespace ns3
