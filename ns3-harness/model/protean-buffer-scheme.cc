/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "protean-buffer-scheme.h"

#include "shared-buffer.h"

#include "ns3/double.h"
#include "ns3/integer.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ProteanBufferScheme");
NS_OBJECT_ENSURE_REGISTERED(ProteanBufferScheme);

TypeId
ProteanBufferScheme::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ProteanBufferScheme")
            .SetParent<BufferScheme>()
            .SetGroupName("Alphad")
            .AddConstructor<ProteanBufferScheme>()
            .AddAttribute("ShortPriority", "Priority of short flows (complete sharing), -1: none",
                          IntegerValue(-1), MakeIntegerAccessor(&ProteanBufferScheme::m_short),
                          MakeIntegerChecker<int32_t>(-1, 63))
            .AddAttribute("LongPriority", "Priority of long flows (DT with its alpha), -1: none",
                          IntegerValue(-1), MakeIntegerAccessor(&ProteanBufferScheme::m_long),
                          MakeIntegerChecker<int32_t>(-1, 63))
            .AddAttribute("Beta", "EWMA weight of the newest gradient sample (§III-A: 1/4)",
                          DoubleValue(0.25), MakeDoubleAccessor(&ProteanBufferScheme::m_beta),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Buildup", "Buildup threshold in line rates (§IV-A: 2)", DoubleValue(2.0),
                          MakeDoubleAccessor(&ProteanBufferScheme::m_buildup),
                          MakeDoubleChecker<double>(0.0, 1e3));
    return tid;
}

ProteanBufferScheme::ProteanBufferScheme()
{
    NS_LOG_FUNCTION(this);
}

ProteanBufferScheme::~ProteanBufferScheme()
{
    NS_LOG_FUNCTION(this);
}

SchemeThreshold
ProteanBufferScheme::GetThreshold(const SchemeInput& in) const
{
    double alpha = m_buffer->GetAlphaP(in.queue);
    double t;
    if (int32_t(in.queue) == m_short)
    {
        t = double(m_buffer->GetQueues()[in.globalQueue].len) +
            in.freeBytes; // Alg. 1 line 3: pkt.size < Rem
    }
    else if (int32_t(in.queue) == m_long)
    {
        t = alpha * in.freeBytes; // Alg. 1 line 5: Qlen < alpha_l Rem
    }
    else
    {
        t = m_state[in.globalQueue].factor * alpha * in.freeBytes; // Alg. 2 lines 10-13
    }
    return SchemeThreshold{t, alpha};
}

void
ProteanBufferScheme::NotifyPortAdded(uint32_t port)
{
    m_state.resize(m_state.size() + m_buffer->GetQueuesPerPort());
}

void
ProteanBufferScheme::NotifyDequeue(uint32_t port, uint32_t queue, uint32_t bytes)
{
    if (int32_t(queue) == m_short || int32_t(queue) == m_long)
    {
        return;
    }
    // Alg. 2, run on every dequeue of the queue. The gradient is normalised by
    // the port's line rate (bytes/s), so that Buildup is "2 x Linerate" and the
    // factor multiplying alpha_i Rem is unitless.
    Gradient& s = m_state[port * m_buffer->GetQueuesPerPort() + queue];
    double len = double(m_buffer->GetQueue(port, queue).len);
    double now = Simulator::Now().GetSeconds();
    double dT = now - s.tPrev;
    if (dT <= 0)
    {
        return;
    }
    double lineBytesPerS = m_buffer->GetPortRate(port).GetBitRate() / 8.0;
    double grad = (len - s.qlenPrev) / dT / lineBytesPerS; // Alg. 2 line 6
    grad = m_beta * grad + (1.0 - m_beta) * s.gradPrev;    // line 8
    s.gradPrev = grad;
    s.qlenPrev = len;
    s.tPrev = now;
    s.factor = grad > m_buildup ? grad : 1.0; // lines 10-13
}

double
ProteanBufferScheme::GetAlpha(uint32_t globalQueue) const
{
    return m_buffer->GetAlphaP(globalQueue % m_buffer->GetQueuesPerPort());
}

double
ProteanBufferScheme::GetFactor(uint32_t globalQueue) const
{
    return m_state.at(globalQueue).factor;
}

} // namespace ns3
