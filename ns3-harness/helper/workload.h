/*
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef ALPHAD_WORKLOAD_H
#define ALPHAD_WORKLOAD_H

#include "ns3/random-variable-stream.h"
#include "ns3/traffic-manager.h"

#include <cstdint>
#include <stdexcept>
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

/**
 * @ingroup alphad
 * A bad option value, with the name of the option (or field, e.g.
 * "phases[1].ws_classes") and what is wrong with it.
 */
class OptionError : public std::invalid_argument
{
  public:
    OptionError(const std::string& option, const std::string& msg);
    /// The option or field at fault.
    const std::string& GetOption() const;

  private:
    std::string m_option;
};

/**
 * Parse a list of classes, "0-7" or "1,2" (or joined with another separator).
 * @param text the list
 * @param option name for errors
 * @param queues classes are 0..queues-1
 * @param sep separator of the items
 * @return the classes, in the order given
 * @throws OptionError naming @p option
 */
std::vector<uint32_t> ParseClasses(const std::string& text, const std::string& option,
                                   uint32_t queues, char sep = ',');

/**
 * @ingroup alphad
 * One phase of the workload (the whole generation time is one phase unless
 * phases are given).
 */
struct Phase
{
    double duration;                     //!< seconds
    double load;                         //!< web-search load on the leaf uplinks
    std::vector<uint32_t> wsClasses;     //!< classes of web-search flows
    double qps;                          //!< incast queries per second per server
    double requestFrac;                  //!< query size as a fraction of the leaf buffer
    std::vector<uint32_t> incastClasses; //!< classes of incast queries
};

/**
 * Parse "dur_ms,load,ws_classes,qps,request_frac,incast_classes;..." (classes joined with '+').
 * @throws OptionError naming the phase and field ("phases[1].ws_classes")
 */
std::vector<Phase> ParsePhases(const std::string& text, uint32_t queues);

/**
 * @ingroup alphad
 * Draws the flows of a leaf-spine fabric into a TrafficManager (ABM §4.1):
 * web-search flows, Poisson arrivals from leaf l to leaf l+1 at
 * lambda = load x uplink capacity / mean flow size; incast queries, Poisson
 * per requesting server, each answered by fanin servers of another leaf.
 * The phases are cycled over the generation time.
 */
class WorkloadGenerator
{
  public:
    /// The fabric and the per-run settings the flows are drawn for.
    struct Config
    {
        uint32_t leaves;                  //!< leaf switches
        uint32_t servers;                 //!< servers per leaf
        double uplinkBps;                 //!< capacity of a leaf's uplinks, bit/s
        uint64_t leafPoolBytes;           //!< a leaf's buffer (queries are fractions of it)
        uint64_t bdpBytes;                //!< short/long boundary of the size classes
        uint32_t mss;                     //!< segment size (a response fits its initial window)
        uint32_t wsInitCwnd;              //!< initial window of web-search flows, segments
        uint32_t fanin;                   //!< responders per query (0: all servers of a leaf)
        std::vector<uint32_t> wsHosts;    //!< servers web-search flows go to (empty: any)
        std::vector<uint32_t> queryHosts; //!< servers that issue queries
        int32_t shortClass;               //!< class of flows below one BDP (-1: by phase)
        int32_t longClass;                //!< class of the other web-search flows
    };

    /// Creates the generator's random variables (their streams follow creation order).
    WorkloadGenerator(const Config& config, const FlowSizeCdf& sizes);

    /**
     * Add the flows and queries of [start, start + gen) to @p traffic.
     * @param plan the phases, cycled
     * @param startS time the first flow may start, s
     * @param genS generation time, s
     * @param traffic where the flows go
     * @return the end of the generation time, s
     */
    double Generate(const std::vector<Phase>& plan, double startS, double genS,
                    Ptr<TrafficManager> traffic);

    /// Web-search flows added.
    uint32_t GetWebSearchFlows() const;
    /// Queries added.
    uint32_t GetQueries() const;

  private:
    void WebSearch(const Phase& ph, double t0, double t1, Ptr<TrafficManager> traffic);
    void Incast(const Phase& ph, double t0, double t1, Ptr<TrafficManager> traffic);
    uint32_t Pick(const std::vector<uint32_t>& v);

    Config m_config;
    const FlowSizeCdf& m_sizes;
    Ptr<UniformRandomVariable> m_u;
    Ptr<ExponentialRandomVariable> m_expo;
    uint32_t m_wsFlows;
    uint32_t m_queries;
};

} // namespace ns3

#endif /* ALPHAD_WORKLOAD_H */
