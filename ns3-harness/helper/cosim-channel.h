/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_COSIM_CHANNEL_H
#define ALPHAD_COSIM_CHANNEL_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/shared-buffer.h"

#include <cstdio>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup alphad
 * Lock-step co-simulation with an external controller (the alphad daemon's
 * `sim` backend) over a pair of byte streams (the program's stdin/stdout).
 * Every Interval of simulated time it writes one snapshot per switch — the
 * counters a real switch exposes: per-queue watermark since the last read
 * (read-and-clear), cumulative tx/drop bytes and packets, the alpha in
 * effect, and the pool's occupancy and watermark — and blocks until the
 * controller answers with the alphas to apply. The record format is
 * documented in doc/cosim.md.
 */
class CosimChannel : public Object
{
  public:
    static TypeId GetTypeId();
    CosimChannel();
    ~CosimChannel() override;

    /// Protocol version written in the HELLO line.
    static constexpr int VERSION = 1;

    /// Add a switch (its SharedBuffer must have all its ports).
    void AddSwitch(const std::string& name, Ptr<SharedBuffer> buffer);
    /**
     * Write the preamble and schedule the first snapshot.
     * @param in stream the controller's answers are read from
     * @param out stream the snapshots are written to
     */
    void Start(FILE* in, FILE* out);
    /// Tell the controller the run is over (call after Simulator::Run).
    void Finish();

    /// Number of intervals exchanged so far.
    uint64_t GetExchanges() const;
    /// Wall-clock seconds spent waiting for the controller.
    double GetWaitSeconds() const;

  protected:
    void DoDispose() override;

  private:
    void Tick();
    void WriteSnapshot(uint32_t sw);
    void ReadAnswers();
    void Apply(uint32_t sw, std::vector<std::pair<uint32_t, double>> alphas);

    Time m_interval;
    Time m_applyDelay;
    FILE* m_in;
    FILE* m_out;
    uint64_t m_seq;
    double m_waitSeconds;
    std::vector<std::string> m_names;
    std::vector<Ptr<SharedBuffer>> m_buffers;
    std::string m_line;
};

} // namespace ns3

#endif /* ALPHAD_COSIM_CHANNEL_H */
