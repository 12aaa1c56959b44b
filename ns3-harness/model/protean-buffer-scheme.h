/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_PROTEAN_BUFFER_SCHEME_H
#define ALPHAD_PROTEAN_BUFFER_SCHEME_H

#include "buffer-scheme.h"

#include <vector>

namespace ns3
{

/**
 * @ingroup alphad
 * Protean, Algorithms 1-2: the short-flow priority gets complete sharing, the
 * long-flow priority DT with its alpha, every other priority DT with alpha
 * multiplied by its queue's smoothed length gradient (in line rates) while
 * that gradient exceeds Buildup (see doc/harness.md for the normalisation).
 */
class ProteanBufferScheme : public BufferScheme
{
  public:
    static TypeId GetTypeId();
    ProteanBufferScheme();
    ~ProteanBufferScheme() override;

    SchemeThreshold GetThreshold(const SchemeInput& in) const override;
    void NotifyPortAdded(uint32_t port) override;
    void NotifyDequeue(uint32_t port, uint32_t queue, uint32_t bytes) override;
    /// alpha_p of the queue's priority.
    double GetAlpha(uint32_t globalQueue) const override;

    /// Gradient / line rate when above Buildup, else 1, of a queue.
    double GetFactor(uint32_t globalQueue) const;

  private:
    /// Alg. 2 state of one queue.
    struct Gradient
    {
        double qlenPrev{0};
        double tPrev{0};
        double gradPrev{0};
        double factor{1.0};
    };

    int32_t m_short;               //!< short-flow priority (-1: none)
    int32_t m_long;                //!< long-flow priority (-1: none)
    double m_beta;                 //!< EWMA weight on the new gradient
    double m_buildup;              //!< buildup threshold, in line rates
    std::vector<Gradient> m_state; //!< per queue
};

} // namespace ns3

#endif /* ALPHAD_PROTEAN_BUFFER_SCHEME_H */
