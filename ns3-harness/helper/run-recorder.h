/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_RUN_RECORDER_H
#define ALPHAD_RUN_RECORDER_H

#include "leaf-spine-helper.h"

#include "ns3/nstime.h"
#include "ns3/shared-buffer.h"
#include "ns3/traffic-manager.h"

#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup alphad
 * The traces and outputs of one run, in one directory:
 * - buffer.csv: leaf pool occupancy, sampled (SampleBuffers);
 * - queues.csv: every queue of one switch, sampled (SampleQueues);
 * - packets.csv: the admissions of one switch (TracePackets), in the format
 *   of the P4 reference's per-packet trace;
 * - flows.csv, queries.csv and summary.json at the end (Write).
 */
class RunRecorder
{
  public:
    /// What packets.csv states about the run in its '#' header.
    struct PacketTraceHeader
    {
        std::string scheme;       //!< short name
        std::string alphas;       //!< as given
        double alphaUnsched;      //!< ABM first-RTT alpha
        int64_t updateIntervalNs; //!< ABM refresh period
        uint32_t queuesPerPort;   //!< queues per port
        uint64_t portRateBps;     //!< link rate
        uint32_t seed;            //!< run number
        std::string groups;       //!< FB groups, as given
    };

    /// What summary.json reports besides the parameters and the switches.
    struct RunFacts
    {
        int64_t baseRttNs;       //!< base RTT
        uint64_t bdpBytes;       //!< one BDP at the link rate
        uint64_t leafPoolBytes;  //!< a leaf's buffer
        double genEndS;          //!< end of the generation time
        double simS;             //!< simulated time at the end
        double runWallS;         //!< wall time of Simulator::Run
        uint64_t events;         //!< events executed
        uint32_t wsFlows;        //!< web-search flows
        uint32_t queries;        //!< incast queries
        bool cosim;              //!< whether a controller set the alphas
        uint64_t cosimExchanges; //!< co-simulation intervals
        double cosimWaitS;       //!< wall time spent waiting for the controller
    };

    /**
     * @param out output directory (must exist)
     * @param wallStart when the program started (for total_wall_seconds)
     */
    RunRecorder(const std::string& out, std::chrono::steady_clock::time_point wallStart);

    /// Sample the pool occupancy of @p leaves every @p period from @p start (buffer.csv).
    void SampleBuffers(const std::vector<LeafSpineSwitch*>& leaves, Time start, Time period);
    /// Sample length, threshold and alpha of every queue of @p sw every @p period from @p start.
    void SampleQueues(const LeafSpineSwitch& sw, Time start, Time period);
    /// Write the first @p count admission decisions of @p sw from @p from on (packets.csv).
    void TracePackets(const LeafSpineSwitch& sw, const PacketTraceHeader& header, uint32_t count,
                      Time from);
    /// Count the bytes sent on the leaves' uplinks between @p start and @p end.
    void MeasureUplinks(const std::vector<LeafSpineSwitch*>& leaves, Time start, Time end);

    /**
     * Write flows.csv, queries.csv, buffer.csv and summary.json; close the traces.
     * @param traffic the run's flows and queries
     * @param paramsJson the "params" object of summary.json
     * @param facts the run's figures
     * @param switches every switch, in the order summary.json lists them
     * @param uplinkBps capacity of a leaf's uplinks (for the utilisation)
     * @param startS start of the generation time
     */
    void Write(Ptr<TrafficManager> traffic, const std::string& paramsJson, const RunFacts& facts,
               const std::vector<LeafSpineSwitch*>& switches, double uplinkBps, double startS);

  private:
    /// One buffer.csv row.
    struct Sample
    {
        int64_t t;
        uint32_t sw;
        uint64_t occ;
    };

    void SampleBuffersNow();
    void SampleQueuesNow();
    void OnAdmission(const AdmissionRecord& r);
    uint64_t UplinkBytes(uint32_t l) const;

    std::string m_out;
    std::chrono::steady_clock::time_point m_wallStart;

    std::vector<LeafSpineSwitch*> m_leaves;
    Time m_bufferPeriod;
    std::vector<Sample> m_occ;

    Ptr<SharedBuffer> m_queueBuffer;
    Time m_queuePeriod;
    std::ofstream m_queuesCsv;

    std::string m_traceSwitch;
    uint32_t m_traceLeft;
    int64_t m_traceFromNs;
    std::ofstream m_packetsCsv;

    std::vector<LeafSpineSwitch*> m_uplinkLeaves;
    std::vector<uint64_t> m_upStart;
    std::vector<uint64_t> m_upEnd;
};

} // namespace ns3

#endif /* ALPHAD_RUN_RECORDER_H */
