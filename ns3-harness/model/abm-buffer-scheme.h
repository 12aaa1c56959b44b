/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_ABM_BUFFER_SCHEME_H
#define ALPHAD_ABM_BUFFER_SCHEME_H

#include "buffer-scheme.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <vector>

namespace ns3
{

/**
 * @ingroup alphad
 * ABM (SIGCOMM'22): T = a gamma / n_p (B - Q) (ABM Eq. 9), a = AlphaUnsched
 * for first-RTT packets (§3.3) and alpha_p otherwise; n_p (congested queues
 * of the priority, switch-wide, §3.1) and gamma (the queue's normalised drain
 * rate) are refreshed every UpdateInterval.
 */
class AbmBufferScheme : public BufferScheme
{
  public:
    static TypeId GetTypeId();
    AbmBufferScheme();
    ~AbmBufferScheme() override;

    SchemeThreshold GetThreshold(const SchemeInput& in) const override;
    void NotifyPortAdded(uint32_t port) override;
    void NotifyDequeue(uint32_t port, uint32_t queue, uint32_t bytes) override;
    /// omega = alpha_p gamma / n_p (ABM Eq. 13).
    double GetAlpha(uint32_t globalQueue) const override;

    /// n_p in use for a priority.
    double GetNp(uint32_t priority) const;
    /// gamma in use for a queue.
    double GetGamma(uint32_t globalQueue) const;

  protected:
    void DoDispose() override;
    void DoAttach() override;
    /// Alpha of a packet of priority @p priority before the n_p and gamma factors.
    virtual double BaseAlpha(uint32_t priority, bool unsched) const;

  private:
    void Update();

    double m_alphaUnsched;      //!< alpha of first-RTT (unscheduled) packets
    Time m_updateInterval;      //!< n_p / gamma refresh
    double m_congestedFraction; //!< congested when q >= f T (§3.1)

    std::vector<double> m_nP;            //!< n_p per priority, in use
    std::vector<double> m_gamma;         //!< gamma per queue, in use
    std::vector<uint64_t> m_deqInterval; //!< bytes dequeued per queue since the last update
    EventId m_updateEvent;
};

/**
 * @ingroup alphad
 * ABM without its first-RTT term: the per-queue part of ABM, the part a
 * per-queue alpha on DT hardware can express.
 */
class AbmCoreBufferScheme : public AbmBufferScheme
{
  public:
    static TypeId GetTypeId();

  protected:
    double BaseAlpha(uint32_t priority, bool unsched) const override;
};

} // namespace ns3

#endif /* ALPHAD_ABM_BUFFER_SCHEME_H */
