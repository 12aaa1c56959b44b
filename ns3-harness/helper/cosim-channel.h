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
 * Whether DT at the operator's alphas would have admitted a packet the switch dropped, on
 * the state at the drop: the queues whose alpha is above their operator's (@p alpha0) are
 * held at DT's bound, so their excess is free, with the free buffer F' that results
 * (F' = F + sum over raised j != g of max(0, len_j - alpha0_j F'), ABM Eq. 5); a queue lowered
 * below its operator's alpha counts at its own length. Admitted when
 * len_g + bytes <= alpha0_g F' and bytes <= F'.
 */
bool ShadowDtAdmits(const std::vector<uint64_t>& len, const std::vector<double>& alpha,
                    const std::vector<double>& alpha0, uint32_t g, uint32_t bytes,
                    uint64_t occupancy, uint64_t pool);

/**
 * @ingroup alphad
 * Lock-step co-simulation with an external controller (the alphad daemon's
 * `sim` backend) over a pair of byte streams (the program's stdin/stdout).
 * Every Interval of simulated time it writes one snapshot per switch — the
 * counters a real switch exposes: per-queue watermark since the last read
 * (read-and-clear), cumulative tx/drop bytes and packets, the alpha in
 * effect, and the pool's occupancy and watermark — and blocks until the
 * controller answers with the alphas to apply. With ShadowDt it also counts,
 * per queue, the drops DT at the operator's alphas would have admitted
 * (ShadowDtAdmits), a counter no switch exports. The record format is
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
    static void Dropped(CosimChannel* self, uint32_t sw, const AdmissionRecord& rec);

    Time m_interval;
    Time m_applyDelay;
    bool m_shadowDt;
    FILE* m_in;
    FILE* m_out;
    uint64_t m_seq;
    double m_waitSeconds;
    std::vector<std::string> m_names;
    std::vector<Ptr<SharedBuffer>> m_buffers;
    std::string m_line;
    std::vector<std::vector<uint64_t>> m_shadowBytes;   //!< per switch, per queue, cumulative
    std::vector<std::vector<uint64_t>> m_shadowPackets; //!< per switch, per queue, cumulative
};

} // namespace ns3

#endif /* ALPHAD_COSIM_CHANNEL_H */
