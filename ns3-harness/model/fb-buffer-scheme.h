/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_FB_BUFFER_SCHEME_H
#define ALPHAD_FB_BUFFER_SCHEME_H

#include "buffer-scheme.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup alphad
 * FB: T = alpha_c gamma / N_p (B - Q) (FB Eq. 4), N_p the non-empty queues
 * of the priority group switch-wide and gamma = 1 / active queues at the
 * port, both per packet (the arriving packet's queue counted).
 */
class FbBufferScheme : public BufferScheme
{
  public:
    static TypeId GetTypeId();
    FbBufferScheme();
    ~FbBufferScheme() override;

    SchemeThreshold GetThreshold(const SchemeInput& in) const override;
    void NotifyEnqueue(uint32_t port, uint32_t queue, uint32_t bytes) override;
    void NotifyDequeue(uint32_t port, uint32_t queue, uint32_t bytes) override;
    /// alpha_p of the queue's priority.
    double GetAlpha(uint32_t globalQueue) const override;

  protected:
    void DoAttach() override;

  private:
    std::string m_groups;                //!< priority group of each priority, comma-separated
    std::vector<uint32_t> m_group;       //!< per priority
    std::vector<uint32_t> m_groupActive; //!< non-empty queues per group
};

} // namespace ns3

#endif /* ALPHAD_FB_BUFFER_SCHEME_H */
