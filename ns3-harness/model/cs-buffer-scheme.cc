/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "cs-buffer-scheme.h"

#include "shared-buffer.h"

#include <limits>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CsBufferScheme);

TypeId
CsBufferScheme::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CsBufferScheme")
                            .SetParent<BufferScheme>()
                            .SetGroupName("Alphad")
                            .AddConstructor<CsBufferScheme>();
    return tid;
}

SchemeThreshold
CsBufferScheme::GetThreshold(const SchemeInput& in) const
{
    double len = double(m_buffer->GetQueues()[in.globalQueue].len);
    return SchemeThreshold{len + in.freeBytes, m_buffer->GetAlphaP(in.queue)};
}

double
CsBufferScheme::GetAlpha(uint32_t globalQueue) const
{
    return std::numeric_limits<double>::infinity();
}

} // namespace ns3
