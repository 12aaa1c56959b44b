/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "dt-buffer-scheme.h"

#include "shared-buffer.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DtBufferScheme);
NS_OBJECT_ENSURE_REGISTERED(ExternalBufferScheme);

TypeId
DtBufferScheme::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DtBufferScheme")
                            .SetParent<BufferScheme>()
                            .SetGroupName("Alphad")
                            .AddConstructor<DtBufferScheme>();
    return tid;
}

SchemeThreshold
DtBufferScheme::GetThreshold(const SchemeInput& in) const
{
    double alpha = m_buffer->GetQueues()[in.globalQueue].alpha;
    return SchemeThreshold{alpha * in.freeBytes, alpha}; // T = alpha (B - Q)  (ABM Eq. 5)
}

TypeId
ExternalBufferScheme::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ExternalBufferScheme")
                            .SetParent<DtBufferScheme>()
                            .SetGroupName("Alphad")
                            .AddConstructor<ExternalBufferScheme>();
    return tid;
}

} // namespace ns3
