/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_DT_BUFFER_SCHEME_H
#define ALPHAD_DT_BUFFER_SCHEME_H

#include "buffer-scheme.h"

namespace ns3
{

/**
 * @ingroup alphad
 * Dynamic Threshold: T = alpha_q (B - Q) (ABM Eq. 5), alpha_q the queue's
 * alpha (its priority's alpha_p unless SharedBuffer::SetAlpha changed it).
 */
class DtBufferScheme : public BufferScheme
{
  public:
    static TypeId GetTypeId();
    SchemeThreshold GetThreshold(const SchemeInput& in) const override;
};

/**
 * @ingroup alphad
 * DT hardware whose per-queue alphas are set from outside (the co-simulated
 * alphad daemon, through SharedBuffer::SetAlpha): the same threshold as DT.
 */
class ExternalBufferScheme : public DtBufferScheme
{
  public:
    static TypeId GetTypeId();
};

} // namespace ns3

#endif /* ALPHAD_DT_BUFFER_SCHEME_H */
