/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_WORKLOAD_H
#define ALPHAD_WORKLOAD_H

#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @ingroup alphad
 * A flow-size distribution given as a piecewise-linear CDF, one
 * "size_bytes cumulative" point a line ('#' comments; the cumulative column
 * may be in percent or probability: it is normalised by its last value).
 */
class FlowSizeCdf
{
  public:
    /**
     * Read a CDF file.
     * @param path file name
     * @param[out] error why the file is unusable (with the line number)
     * @return true on success
     */
    bool Load(const std::string& path, std::string* error);
    /// Draw one size (>= 1 byte) by inverse transform of u ~ U[0, 1).
    uint64_t Sample(Ptr<UniformRandomVariable> u) const;
    /// Mean flow size of the piecewise-linear distribution.
    double Mean() const;

  private:
    std::vector<std::pair<double, double>> m_points; //!< (size, cumulative probability)
};

} // namespace ns3

#endif /* ALPHAD_WORKLOAD_H */
