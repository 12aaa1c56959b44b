/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "workload.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace ns3
{

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
        if (!(ss >> cum) || (ss >> rest) || !std::isfinite(size) || !std::isfinite(cum) || size < 0 ||
            cum < 0)
        {
            *error = path + ":" + std::to_string(n) + ": expected 'size_bytes cumulative', got '" +
                     line + "'";
            return false;
        }
        if (!m_points.empty() && (size < m_points.back().first || cum < m_points.back().second))
        {
            *error = path + ":" + std::to_string(n) + ": sizes and cumulative values must not decrease";
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
    auto it = std::lower_bound(m_points.begin(),
                               m_points.end(),
                               x,
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

} // namespace ns3
