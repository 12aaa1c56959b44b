/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "fb-buffer-scheme.h"

#include "shared-buffer.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/string.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FbBufferScheme");
NS_OBJECT_ENSURE_REGISTERED(FbBufferScheme);

TypeId
FbBufferScheme::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FbBufferScheme")
            .SetParent<BufferScheme>()
            .SetGroupName("Alphad")
            .AddConstructor<FbBufferScheme>()
            .AddAttribute("Groups", "Priority group of each priority, comma-separated (empty: own)",
                          StringValue(""), MakeStringAccessor(&FbBufferScheme::m_groups),
                          MakeStringChecker());
    return tid;
}

FbBufferScheme::FbBufferScheme()
{
    NS_LOG_FUNCTION(this);
}

FbBufferScheme::~FbBufferScheme()
{
    NS_LOG_FUNCTION(this);
}

void
FbBufferScheme::DoAttach()
{
    const uint32_t qpp = m_buffer->GetQueuesPerPort();
    m_group.resize(qpp);
    for (uint32_t p = 0; p < qpp; ++p)
    {
        m_group[p] = p;
    }
    if (!m_groups.empty())
    {
        std::vector<double> g = ParseDoubleList(m_groups, "FbBufferScheme::Groups");
        NS_ABORT_MSG_IF(g.size() != qpp, "FbBufferScheme::Groups: " << g.size() << " values for "
                                                                    << qpp << " priorities");
        for (uint32_t p = 0; p < qpp; ++p)
        {
            NS_ABORT_MSG_IF(g[p] < 0 || g[p] >= qpp || g[p] != std::floor(g[p]),
                            "FbBufferScheme::Groups: group of priority "
                                << p << " must be an integer in [0, " << qpp << ")");
            m_group[p] = static_cast<uint32_t>(g[p]);
        }
    }
    m_groupActive.assign(qpp, 0);
}

SchemeThreshold
FbBufferScheme::GetThreshold(const SchemeInput& in) const
{
    double alpha = m_buffer->GetAlphaP(in.queue);
    bool empty = m_buffer->GetQueues()[in.globalQueue].len == 0;
    double nP = m_groupActive[m_group[in.queue]] + (empty ? 1 : 0);
    double gamma = 1.0 / in.portActive;
    // T = alpha_c (1/N_p) gamma (B - Q)  (FB Eq. 4)
    return SchemeThreshold{alpha * gamma / nP * in.freeBytes, alpha, nP, gamma};
}

void
FbBufferScheme::NotifyEnqueue(uint32_t port, uint32_t queue, uint32_t bytes)
{
    if (m_buffer->GetQueue(port, queue).len == bytes) // was empty
    {
        m_groupActive[m_group[queue]] += 1;
    }
}

void
FbBufferScheme::NotifyDequeue(uint32_t port, uint32_t queue, uint32_t bytes)
{
    if (m_buffer->GetQueue(port, queue).len == 0)
    {
        m_groupActive[m_group[queue]] -= 1;
    }
}

double
FbBufferScheme::GetAlpha(uint32_t globalQueue) const
{
    return m_buffer->GetAlphaP(globalQueue % m_buffer->GetQueuesPerPort());
}

} // namespace ns3
