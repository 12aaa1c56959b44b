/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_CS_BUFFER_SCHEME_H
#define ALPHAD_CS_BUFFER_SCHEME_H

#include "buffer-scheme.h"

namespace ns3
{

/**
 * @ingroup alphad
 * Complete sharing: T = q + (B - Q), a queue is admitted while the pool has room.
 */
class CsBufferScheme : public BufferScheme
{
  public:
    static TypeId GetTypeId();
    SchemeThreshold GetThreshold(const SchemeInput& in) const override;
    /// Infinity: no alpha limits a queue.
    double GetAlpha(uint32_t globalQueue) const override;
};

} // namespace ns3

#endif /* ALPHAD_CS_BUFFER_SCHEME_H */
