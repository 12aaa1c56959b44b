/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "workload.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Workload");

bool
FlowSizeCdf::Load(const std::string& path, std::string* error)
{
    std::ifstream f(path);
    if (!f)
    {
        *error = path + ": cannot open";
        return false;
    }
    m_points.clear();
    std::string line;
    int n = 0;
    while (std::getline(f, line))
    {
        ++n;
        auto hash = line.find('#');
        if (hash != std::string::npos)
        {
            line.resize(hash);
        }
        std::istringstream ss(line);
        double size;
        double cum;
        if (!(ss >> size))
        {
            continue; // blank or comment
        }
        std::string rest;
        if (!(ss >> cum) || (ss >> rest) || !std::isfinite(size) || !std::isfinite(cum) ||
            size < 0 || cum < 0)
        {
            *error = path + ":" + std::to_string(n) + ": expected 'size_bytes cumulative', got '" +
                     line + "'";
            return false;
        }
        if (!m_points.empty() && (size < m_points.back().first || cum < m_points.back().second))
        {
            *error =
                path + ":" + std::to_string(n) + ": sizes and cumulative values must not decrease";
            return false;
        }
        m_points.emplace_back(size, cum);
    }
    if (m_points.size() < 2 || m_points.back().second <= 0)
    {
        *error = path + ": needs at least two points and a positive last cumulative value";
        return false;
    }
    double last = m_points.back().second;
    for (auto& p : m_points)
    {
        p.second /= last;
    }
    return true;
}

uint64_t
FlowSizeCdf::Sample(Ptr<UniformRandomVariable> u) const
{
    double x = u->GetValue(0.0, 1.0);
    auto it =
        std::lower_bound(m_points.begin(), m_points.end(), x,
                         [](const std::pair<double, double>& p, double v) { return p.second < v; });
    double size;
    if (it == m_points.begin())
    {
        size = it->first;
    }
    else if (it == m_points.end())
    {
        size = m_points.back().first;
    }
    else
    {
        auto prev = it - 1;
        double span = it->second - prev->second;
        double w = span > 0 ? (x - prev->second) / span : 1.0;
        size = prev->first + w * (it->first - prev->first);
    }
    return std::max<uint64_t>(1, uint64_t(std::llround(size)));
}

double
FlowSizeCdf::Mean() const
{
    double m = m_points.front().first * m_points.front().second;
    for (size_t i = 1; i < m_points.size(); ++i)
    {
        m += (m_points[i].second - m_points[i - 1].second) * 0.5 *
             (m_points[i].first + m_points[i - 1].first);
    }
    return m;
}

OptionError::OptionError(const std::string& option, const std::string& msg)
    : std::invalid_argument(msg), m_option(option)
{
}

const std::string&
OptionError::GetOption() const
{
    return m_option;
}

std::vector<uint32_t>
ParseClasses(const std::string& text, const std::string& option, uint32_t queues, char sep)
{
    std::vector<uint32_t> out;
    std::stringstream ss(text);
    std::string item;
    const std::string range = " (classes are 0.." + std::to_string(queues - 1) + ")";
    while (std::getline(ss, item, sep))
    {
        auto dash = item.find('-');
        char* end = nullptr;
        if (dash != std::string::npos && dash > 0)
        {
            long a = std::strtol(item.substr(0, dash).c_str(), &end, 10);
            long b = std::strtol(item.substr(dash + 1).c_str(), &end, 10);
            if (*end != '\0' || a < 0 || b < a || b >= long(queues))
            {
                throw OptionError(option, "bad class range '" + item + "'" + range);
            }
            for (long c = a; c <= b; ++c)
            {
                out.push_back(uint32_t(c));
            }
            continue;
        }
        long c = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || c < 0 || c >= long(queues))
        {
            throw OptionError(option, "bad class '" + item + "'" + range);
        }
        out.push_back(uint32_t(c));
    }
    if (out.empty())
    {
        throw OptionError(option, "needs at least one class");
    }
    return out;
}

namespace
{

/// A number field of a phase; @p ok says whether the value is in range.
template <typename Ok>
double
PhaseNumber(const std::string& text, const std::string& where, const std::string& what, Ok ok)
{
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (*end || !ok(v))
    {
        throw OptionError(where, what);
    }
    return v;
}

} // namespace

std::vector<Phase>
ParsePhases(const std::string& text, uint32_t queues)
{
    std::vector<Phase> out;
    std::stringstream ss(text);
    std::string item;
    int i = 0;
    while (std::getline(ss, item, ';'))
    {
        std::string where = "phases[" + std::to_string(i++) + "]";
        std::vector<std::string> f;
        std::stringstream fs(item);
        std::string x;
        while (std::getline(fs, x, ','))
        {
            f.push_back(x);
        }
        if (f.size() != 6)
        {
            throw OptionError(
                where, "expected 'dur_ms,load,ws_classes,qps,request_frac,incast_classes', got '" +
                           item + "'");
        }
        Phase p;
        p.duration =
            PhaseNumber(f[0], where, "duration '" + f[0] + "' must be a positive number of ms",
                        [](double v) { return v * 1e-3 > 0; }) *
            1e-3;
        p.load = PhaseNumber(f[1], where, "load '" + f[1] + "' must be in [0, 1]",
                             [](double v) { return !(v < 0 || v > 1); });
        p.wsClasses = ParseClasses(f[2], where + ".ws_classes", queues, '+');
        p.qps = PhaseNumber(f[3], where, "qps '" + f[3] + "' must be >= 0",
                            [](double v) { return !(v < 0); });
        p.requestFrac = PhaseNumber(f[4], where, "request_frac '" + f[4] + "' must be in (0, 10]",
                                    [](double v) { return !(v <= 0 || v > 10); });
        p.incastClasses = ParseClasses(f[5], where + ".incast_classes", queues, '+');
        out.push_back(p);
    }
    if (out.empty())
    {
        throw OptionError("phases", "no phase given");
    }
    return out;
}

WorkloadGenerator::WorkloadGenerator(const Config& config, const FlowSizeCdf& sizes)
    : m_config(config)
    , m_sizes(sizes)
    , m_u(CreateObject<UniformRandomVariable>())
    , m_expo(CreateObject<ExponentialRandomVariable>())
    , m_wsFlows(0)
    , m_queries(0)
{
}

uint32_t
WorkloadGenerator::Pick(const std::vector<uint32_t>& v)
{
    return v[std::min<size_t>(v.size() - 1, size_t(m_u->GetValue(0, v.size())))];
}

double
WorkloadGenerator::Generate(const std::vector<Phase>& plan, double startS, double genS,
                            Ptr<TrafficManager> traffic)
{
    NS_LOG_FUNCTION(this << startS << genS);
    // cycle the phases over [start, start + gen): contiguous windows (t0, phase)
    const double genEnd = startS + genS;
    std::vector<std::pair<double, const Phase*>> windows;
    double t = startS;
    for (size_t k = 0; t < startS + genS; k = (k + 1) % plan.size())
    {
        windows.emplace_back(t, &plan[k]);
        t += plan[k].duration;
    }
    for (size_t w = 0; w < windows.size(); ++w)
    {
        const Phase& ph = *windows[w].second;
        double t0 = windows[w].first;
        double t1 = std::min(genEnd, w + 1 < windows.size() ? windows[w + 1].first : genEnd);
        if (ph.load > 0)
        {
            WebSearch(ph, t0, t1, traffic);
        }
        if (ph.qps > 0)
        {
            Incast(ph, t0, t1, traffic);
        }
    }
    return genEnd;
}

void
WorkloadGenerator::WebSearch(const Phase& ph, double t0, double t1, Ptr<TrafficManager> traffic)
{
    // all inter-leaf, as the ABM artifact: lambda = load * uplink capacity / mean flow size
    const Config& c = m_config;
    double lambda = ph.load * c.uplinkBps / 8.0 / m_sizes.Mean();
    for (uint32_t l = 0; l < c.leaves; ++l)
    {
        uint32_t m = (l + 1) % c.leaves;
        double t = t0 + m_expo->GetValue(1.0 / lambda, 0);
        while (t < t1)
        {
            uint32_t src = l * c.servers + uint32_t(m_u->GetInteger(0, c.servers - 1));
            uint32_t dst =
                m * c.servers +
                (c.wsHosts.empty() ? uint32_t(m_u->GetInteger(0, c.servers - 1)) : Pick(c.wsHosts));
            uint64_t size = m_sizes.Sample(m_u);
            uint32_t cls = Pick(ph.wsClasses);
            if (c.shortClass >= 0)
            {
                cls = uint32_t(size < c.bdpBytes ? c.shortClass : c.longClass);
            }
            traffic->AddFlow(src, dst, size, uint8_t(cls), Seconds(t), -1, c.wsInitCwnd);
            ++m_wsFlows;
            t += m_expo->GetValue(1.0 / lambda, 0);
        }
    }
}

void
WorkloadGenerator::Incast(const Phase& ph, double t0, double t1, Ptr<TrafficManager> traffic)
{
    // every requesting server issues Poisson queries to servers of another leaf
    const Config& c = m_config;
    uint64_t request = uint64_t(ph.requestFrac * c.leafPoolBytes);
    std::vector<uint32_t> requesters;
    for (uint32_t l = 0; l < c.leaves; ++l)
    {
        for (uint32_t h : c.queryHosts)
        {
            requesters.push_back(l * c.servers + h);
        }
    }
    for (uint32_t r : requesters)
    {
        double t = t0 + m_expo->GetValue(1.0 / ph.qps, 0);
        while (t < t1)
        {
            uint32_t rl = r / c.servers;
            uint32_t ol = (rl + 1 + uint32_t(m_u->GetInteger(0, c.leaves - 2))) % c.leaves;
            uint32_t n = c.fanin == 0 ? c.servers : c.fanin;
            std::vector<uint32_t> resp(c.servers);
            for (uint32_t i = 0; i < c.servers; ++i)
            {
                resp[i] = i;
            }
            for (uint32_t i = 0; i < n; ++i) // partial Fisher-Yates
            {
                uint32_t j = i + uint32_t(m_u->GetInteger(0, c.servers - 1 - i));
                std::swap(resp[i], resp[j]);
            }
            uint8_t cls = uint8_t(Pick(ph.incastClasses));
            uint32_t q = traffic->AddQuery(r, cls, Seconds(t));
            uint64_t part = std::max<uint64_t>(1, request / n);
            for (uint32_t i = 0; i < n; ++i)
            {
                // the whole response fits the initial window (ABM artifact)
                traffic->AddFlow(ol * c.servers + resp[i], r, part, cls, Seconds(t), int32_t(q),
                                 uint32_t(part / c.mss + 1));
            }
            ++m_queries;
            t += m_expo->GetValue(1.0 / ph.qps, 0);
        }
    }
}

uint32_t
WorkloadGenerator::GetWebSearchFlows() const
{
    return m_wsFlows;
}

uint32_t
WorkloadGenerator::GetQueries() const
{
    return m_queries;
}

} // namespace ns3
