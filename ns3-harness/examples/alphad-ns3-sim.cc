/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * Leaf-spine fabric of shared-memory switches under web-search and incast
 * traffic: the evaluation setting of ABM (SIGCOMM'22) §4, scaled. Every
 * switch runs one admission scheme (dt, cs, abm, abm-core, fb, protean) or
 * takes its per-queue alphas from an external controller (external, with
 * --cosim: the alphad daemon's `sim` backend on stdin/stdout).
 *
 * Outputs (in --out): flows.csv, queries.csv, buffer.csv, summary.json and,
 * when asked, queues.csv and a per-packet admission trace.
 */

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/cosim-channel.h"
#include "ns3/flow-hash-routing-helper.h"
#include "ns3/flow-hash-routing.h"
#include "ns3/flow-tag.h"
#include "ns3/host-marker-queue-disc.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/shared-buffer-helper.h"
#include "ns3/traffic-control-module.h"
#include "ns3/traffic-manager.h"
#include "ns3/workload.h"

#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <sys/stat.h>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("AlphadNs3Sim");

namespace
{

/// Exit with a message naming the offending option (no core dump, no trace).
[[noreturn]] void
Fail(const std::string& option, const std::string& msg)
{
    std::cerr << "error: --" << option << ": " << msg << std::endl;
    std::exit(2);
}

std::vector<uint32_t>
ParseClasses(const std::string& text, const std::string& option, uint32_t queues, char sep = ',')
{
    std::vector<uint32_t> out;
    std::stringstream ss(text);
    std::string item;
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
                Fail(option, "bad class range '" + item + "' (classes are 0.." + std::to_string(queues - 1) + ")");
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
            Fail(option, "bad class '" + item + "' (classes are 0.." + std::to_string(queues - 1) + ")");
        }
        out.push_back(uint32_t(c));
    }
    if (out.empty())
    {
        Fail(option, "needs at least one class");
    }
    return out;
}

/// One phase of the workload (the whole run is one phase unless --phases is given).
struct Phase
{
    double duration;                  //!< seconds
    double load;                      //!< web-search load on the leaf uplinks
    std::vector<uint32_t> wsClasses;  //!< classes of web-search flows
    double qps;                       //!< incast queries per second per server
    double requestFrac;               //!< query size as a fraction of the leaf buffer
    std::vector<uint32_t> incastClasses;
};

std::vector<Phase>
ParsePhases(const std::string& text, uint32_t queues)
{
    // dur_ms,load,ws_classes,qps,request_frac,incast_classes ; ...   (classes joined with '+')
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
            Fail(where, "expected 'dur_ms,load,ws_classes,qps,request_frac,incast_classes', got '" + item + "'");
        }
        Phase p;
        char* end = nullptr;
        p.duration = std::strtod(f[0].c_str(), &end) * 1e-3;
        if (*end || !(p.duration > 0))
        {
            Fail(where, "duration '" + f[0] + "' must be a positive number of ms");
        }
        p.load = std::strtod(f[1].c_str(), &end);
        if (*end || p.load < 0 || p.load > 1)
        {
            Fail(where, "load '" + f[1] + "' must be in [0, 1]");
        }
        p.wsClasses = ParseClasses(f[2], where + ".ws_classes", queues, '+');
        p.qps = std::strtod(f[3].c_str(), &end);
        if (*end || p.qps < 0)
        {
            Fail(where, "qps '" + f[3] + "' must be >= 0");
        }
        p.requestFrac = std::strtod(f[4].c_str(), &end);
        if (*end || p.requestFrac <= 0 || p.requestFrac > 10)
        {
            Fail(where, "request_frac '" + f[4] + "' must be in (0, 10]");
        }
        p.incastClasses = ParseClasses(f[5], where + ".incast_classes", queues, '+');
        out.push_back(p);
    }
    if (out.empty())
    {
        Fail("phases", "no phase given");
    }
    return out;
}

struct Switch
{
    std::string name;
    Ptr<Node> node;
    Ptr<SharedBuffer> buffer;
    QueueDiscContainer discs;
    NetDeviceContainer ports;
    std::vector<uint32_t> uplinks; //!< port indices towards spines (leaves only)
};

struct Sample
{
    int64_t t;
    uint32_t sw;
    uint64_t occ;
};

std::string
JsonEscape(const std::string& s)
{
    std::string o;
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            o.push_back('\\');
        }
        o.push_back(c);
    }
    return o;
}

} // namespace

int
main(int argc, char* argv[])
{
    auto wallStart = std::chrono::steady_clock::now();

    // ---- options --------------------------------------------------------------------------
    std::string scheme = "dt";
    std::string alphas = "0.5";
    double alphaUnsched = 64;
    double updateRtts = 1;
    uint32_t leaves = 2;
    uint32_t spines = 2;
    uint32_t servers = 8;
    std::string linkRate = "10Gbps";
    double linkDelayUs = 10;
    double bufferPerPortPerGbps = 9.6 * 1024; // Trident II (ABM §4.1), KB = 1024 B as the artifact
    uint32_t queues = 8;
    std::string sched = "rr";
    std::string tcp = "cubic";
    uint32_t ecnK = 65;
    double load = 0.4;
    std::string cdf = "websearch.cdf";
    std::string wsClasses = "0-7";
    uint32_t wsInitCwnd = 10;
    double qps = 0;
    double requestFrac = 0.75;
    uint32_t fanin = 0;
    std::string incastClasses = "0-7";
    std::string wsHosts;
    std::string sizeClasses;
    std::string incastHosts;
    std::string phases;
    double startS = 0.002;
    double genS = 0.05;
    double drainS = 0.05;
    uint32_t seed = 1;
    std::string scheduler = "ns3::HeapScheduler";
    uint32_t delAck = 2;
    std::string out = ".";
    bool cosim = false;
    double cosimIntervalUs = 80;
    double cosimDelayUs = 0;
    std::string groups;
    int32_t proteanShort = -1;
    int32_t proteanLong = -1;
    double minRtoMs = 10;
    double sampleUs = 10;
    std::string traceSwitch;
    uint32_t tracePackets = 0;
    double traceStartS = 0;
    std::string queueSwitch;
    double queueSampleUs = 10;

    CommandLine cmd(__FILE__);
    cmd.AddValue("scheme", "dt, cs, abm, abm-core, fb, protean or external", scheme);
    cmd.AddValue("alphas", "alpha_p per class, comma-separated (one value: all classes)", alphas);
    cmd.AddValue("alphaUnsched", "ABM alpha of first-RTT packets", alphaUnsched);
    cmd.AddValue("updateRtts", "ABM n_p/gamma refresh period, in base RTTs", updateRtts);
    cmd.AddValue("leaves", "leaf switches", leaves);
    cmd.AddValue("spines", "spine switches (one link to every leaf)", spines);
    cmd.AddValue("servers", "servers per leaf", servers);
    cmd.AddValue("linkRate", "rate of every link", linkRate);
    cmd.AddValue("linkDelay", "propagation delay of every link, us", linkDelayUs);
    cmd.AddValue("bufferPerPortPerGbps", "switch buffer, bytes per port per Gb/s", bufferPerPortPerGbps);
    cmd.AddValue("queues", "queues (classes) per port", queues);
    cmd.AddValue("sched", "rr (round robin) or sp (strict priority, queue 0 first)", sched);
    cmd.AddValue("tcp", "cubic or dctcp", tcp);
    cmd.AddValue("ecnK", "DCTCP marking threshold, packets", ecnK);
    cmd.AddValue("load", "web-search load on the leaf uplinks", load);
    cmd.AddValue("cdf", "web-search flow-size CDF file", cdf);
    cmd.AddValue("wsClasses", "classes of web-search flows, e.g. 0-7 or 1,2", wsClasses);
    cmd.AddValue("wsInitCwnd", "initial window of web-search flows, segments", wsInitCwnd);
    cmd.AddValue("qps", "incast queries per second per server", qps);
    cmd.AddValue("requestFrac", "query size as a fraction of the leaf buffer", requestFrac);
    cmd.AddValue("fanin", "responders per query (0: all servers of another leaf)", fanin);
    cmd.AddValue("incastClasses", "classes of incast queries", incastClasses);
    cmd.AddValue("sizeClasses",
                 "S,L: web-search flows below one BDP go to class S, the others to L "
                 "(Protean's short/long priorities; overrides the phase's web-search classes)",
                 sizeClasses);
    cmd.AddValue("wsHosts", "servers (index within a leaf) web-search flows go to (default: all)", wsHosts);
    cmd.AddValue("incastHosts", "servers (index within a leaf) that issue queries (default: all)", incastHosts);
    cmd.AddValue("phases",
                 "time-varying workload: dur_ms,load,ws_classes,qps,request_frac,incast_classes;... "
                 "(classes joined with +), cycled over the generation time",
                 phases);
    cmd.AddValue("start", "time the first flow may start, s", startS);
    cmd.AddValue("gen", "flows start during this many seconds", genS);
    cmd.AddValue("drain", "seconds after the last start before the run stops", drainS);
    cmd.AddValue("seed", "random seed (run number)", seed);
    cmd.AddValue("scheduler", "ns-3 event scheduler", scheduler);
    cmd.AddValue("delAck", "TCP delayed-ACK count (segments per ACK)", delAck);
    cmd.AddValue("out", "output directory", out);
    cmd.AddValue("cosim", "external alphas from a controller on stdin/stdout", cosim);
    cmd.AddValue("cosimInterval", "co-simulation interval, us", cosimIntervalUs);
    cmd.AddValue("cosimDelay", "delay before received alphas take effect, us", cosimDelayUs);
    cmd.AddValue("groups", "FB priority group of each class, comma-separated", groups);
    cmd.AddValue("proteanShort", "Protean short-flow class (-1: none)", proteanShort);
    cmd.AddValue("proteanLong", "Protean long-flow class (-1: none)", proteanLong);
    cmd.AddValue("minRto", "TCP minimum RTO, ms", minRtoMs);
    cmd.AddValue("sample", "buffer occupancy sampling period, us", sampleUs);
    cmd.AddValue("traceSwitch", "switch whose admissions are written to packets.csv", traceSwitch);
    cmd.AddValue("tracePackets", "packets to write to packets.csv (0: none)", tracePackets);
    cmd.AddValue("traceStart", "time the packet trace starts, s", traceStartS);
    cmd.AddValue("queueSwitch", "switch whose queues are sampled into queues.csv", queueSwitch);
    cmd.AddValue("queueSample", "queue sampling period, us", queueSampleUs);
    cmd.Parse(argc, argv);

    // ---- validation ---------------------------------------------------------------------------
    TypeId schemeType;
    if (!BufferScheme::LookupByShortName(scheme, &schemeType))
    {
        Fail("scheme", "unknown scheme '" + scheme + "' (dt, cs, abm, abm-core, fb, protean, external)");
    }
    if (cosim && scheme != "external")
    {
        Fail("cosim", "needs --scheme=external");
    }
    if (leaves < 2 || leaves > 64)
    {
        Fail("leaves", "must be in [2, 64]");
    }
    if (spines < 1 || spines > 64)
    {
        Fail("spines", "must be in [1, 64]");
    }
    if (servers < 2 || servers > 250)
    {
        Fail("servers", "must be in [2, 250]");
    }
    if (queues < 1 || queues > 64)
    {
        Fail("queues", "must be in [1, 64]");
    }
    if (!(linkDelayUs > 0))
    {
        Fail("linkDelay", "must be > 0");
    }
    if (!(bufferPerPortPerGbps > 0))
    {
        Fail("bufferPerPortPerGbps", "must be > 0");
    }
    if (sched != "rr" && sched != "sp")
    {
        Fail("sched", "must be rr or sp");
    }
    if (tcp != "cubic" && tcp != "dctcp")
    {
        Fail("tcp", "must be cubic or dctcp");
    }
    if (load < 0 || load > 1)
    {
        Fail("load", "must be in [0, 1]");
    }
    if (qps < 0)
    {
        Fail("qps", "must be >= 0");
    }
    if (requestFrac <= 0 || requestFrac > 10)
    {
        Fail("requestFrac", "must be in (0, 10]");
    }
    if (fanin > servers)
    {
        Fail("fanin", "cannot exceed --servers");
    }
    if (startS < 0 || !(genS > 0) || drainS < 0)
    {
        Fail("gen", "--start and --drain must be >= 0 and --gen > 0");
    }
    if (!(updateRtts > 0))
    {
        Fail("updateRtts", "must be > 0");
    }
    if (!(cosimIntervalUs >= 0.1))
    {
        Fail("cosimInterval", "must be >= 0.1 us");
    }
    if (cosimDelayUs < 0)
    {
        Fail("cosimDelay", "must be >= 0");
    }
    if (!(minRtoMs > 0))
    {
        Fail("minRto", "must be > 0");
    }
    if (!(sampleUs > 0) || !(queueSampleUs > 0))
    {
        Fail("sample", "sampling periods must be > 0");
    }
    if (wsInitCwnd < 1)
    {
        Fail("wsInitCwnd", "must be >= 1");
    }
    {
        std::stringstream ss(alphas);
        std::string a;
        uint32_t n = 0;
        while (std::getline(ss, a, ','))
        {
            char* end = nullptr;
            double v = std::strtod(a.c_str(), &end);
            if (a.empty() || *end || !(v > 0) || !std::isfinite(v))
            {
                Fail("alphas", "'" + a + "' is not a positive number");
            }
            ++n;
        }
        if (n != 1 && n != queues)
        {
            Fail("alphas", std::to_string(n) + " values for " + std::to_string(queues) + " classes");
        }
    }
    if (!groups.empty())
    {
        std::vector<uint32_t> g = ParseClasses(groups, "groups", queues);
        if (g.size() != queues)
        {
            Fail("groups", "needs one group per class");
        }
    }
    if (proteanShort >= int32_t(queues) || proteanLong >= int32_t(queues))
    {
        Fail("proteanShort", "Protean classes must be < --queues");
    }
    DataRateValue rateValue;
    if (!rateValue.DeserializeFromString(linkRate, MakeDataRateChecker()) ||
        rateValue.Get().GetBitRate() == 0)
    {
        Fail("linkRate", "'" + linkRate + "' is not a data rate (e.g. 10Gbps)");
    }
    const DataRate rate = rateValue.Get();
    FlowSizeCdf sizes;
    std::string cdfError;
    if (load > 0 || !phases.empty())
    {
        if (!sizes.Load(cdf, &cdfError))
        {
            Fail("cdf", cdfError);
        }
    }
    std::vector<Phase> plan;
    if (phases.empty())
    {
        plan.push_back(Phase{genS,
                             load,
                             ParseClasses(wsClasses, "wsClasses", queues),
                             qps,
                             requestFrac,
                             ParseClasses(incastClasses, "incastClasses", queues)});
    }
    else
    {
        plan = ParsePhases(phases, queues);
    }
    std::vector<uint32_t> wsDst = wsHosts.empty() ? std::vector<uint32_t>() : ParseClasses(wsHosts, "wsHosts", servers);
    std::vector<uint32_t> queryHosts =
        incastHosts.empty() ? std::vector<uint32_t>() : ParseClasses(incastHosts, "incastHosts", servers);
    if (queryHosts.empty())
    {
        for (uint32_t h = 0; h < servers; ++h)
        {
            queryHosts.push_back(h);
        }
    }
    int32_t shortClass = -1;
    int32_t longClass = -1;
    if (!sizeClasses.empty())
    {
        std::vector<uint32_t> sl = ParseClasses(sizeClasses, "sizeClasses", queues);
        if (sl.size() != 2)
        {
            Fail("sizeClasses", "expected two classes 'S,L'");
        }
        shortClass = int32_t(sl[0]);
        longClass = int32_t(sl[1]);
    }
    mkdir(out.c_str(), 0755);
    {
        std::ofstream probe(out + "/.probe");
        if (!probe)
        {
            Fail("out", "cannot write into '" + out + "'");
        }
    }
    std::remove((out + "/.probe").c_str());

    // ---- global settings ------------------------------------------------------------------------
    {
        ObjectFactory sched;
        sched.SetTypeId(scheduler);
        Simulator::SetScheduler(sched);
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    const uint32_t mss = 1400;
    const Time delay = MicroSeconds(linkDelayUs);
    const Time baseRtt = delay * 8; // host-leaf-spine-leaf-host and back
    const double rateGbps = rate.GetBitRate() / 1e9;
    const uint64_t bdpBytes = uint64_t(rate.GetBitRate() / 8.0 * baseRtt.GetSeconds());

    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(tcp == "dctcp" ? TcpDctcp::GetTypeId() : TcpCubic::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 30));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 30));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAck));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(MilliSeconds(minRtoMs)));
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(6));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(minRtoMs * 1000)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MicroSeconds(1)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(baseRtt * 2));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    // A closed connection waits 2 x MSL in TIME_WAIT (ns-3 default MSL: 120 s) and its
    // endpoint stays in the node's demultiplexer list, which every packet scans: long
    // runs slowed down 3x. Nothing in a run reuses a port within milliseconds.
    Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime", DoubleValue(0.001));
    if (tcp == "dctcp")
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    }

    // ---- topology -----------------------------------------------------------------------------
    NodeContainer spineNodes;
    spineNodes.Create(spines);
    NodeContainer leafNodes;
    leafNodes.Create(leaves);
    NodeContainer hostNodes;
    hostNodes.Create(leaves * servers);

    InternetStackHelper switchStack;
    FlowHashRoutingHelper flowHash;
    switchStack.SetRoutingHelper(flowHash);
    switchStack.Install(spineNodes);
    switchStack.Install(leafNodes);
    InternetStackHelper hostStack;
    Ipv4StaticRoutingHelper staticRouting;
    hostStack.SetRoutingHelper(staticRouting);
    hostStack.Install(hostNodes);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(rate));
    p2p.SetChannelAttribute("Delay", TimeValue(delay));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));

    Ptr<TrafficManager> traffic = CreateObject<TrafficManager>();
    traffic->SetIdeal(rate.GetBitRate(), delay, mss);

    std::vector<Switch> leafSw(leaves);
    std::vector<Switch> spineSw(spines);
    // device of host h, device of leaf l towards host h; leaf-spine devices
    std::vector<std::vector<Ipv4Address>> hostAddr(leaves, std::vector<Ipv4Address>(servers));
    std::vector<std::vector<uint32_t>> leafHostIf(leaves, std::vector<uint32_t>(servers));
    std::vector<std::vector<uint32_t>> leafSpineIf(leaves, std::vector<uint32_t>(spines));
    std::vector<std::vector<uint32_t>> spineLeafIf(spines, std::vector<uint32_t>(leaves));
    std::vector<std::vector<Ipv4Address>> leafSideAddr(leaves, std::vector<Ipv4Address>(spines));
    std::vector<std::vector<Ipv4Address>> spineSideAddr(leaves, std::vector<Ipv4Address>(spines));
    NetDeviceContainer hostDevs;
    Ipv4AddressHelper addr;
    for (uint32_t l = 0; l < leaves; ++l)
    {
        leafSw[l].name = "leaf" + std::to_string(l);
        leafSw[l].node = leafNodes.Get(l);
        for (uint32_t h = 0; h < servers; ++h)
        {
            Ptr<Node> host = hostNodes.Get(l * servers + h);
            NetDeviceContainer d = p2p.Install(leafNodes.Get(l), host);
            std::ostringstream base;
            base << "10." << l << "." << h << ".0";
            addr.SetBase(base.str().c_str(), "255.255.255.252");
            Ipv4InterfaceContainer ifc = addr.Assign(d);
            leafSw[l].ports.Add(d.Get(0));
            hostDevs.Add(d.Get(1));
            hostAddr[l][h] = ifc.GetAddress(1);
            leafHostIf[l][h] = ifc.Get(0).second;
            Ptr<Ipv4StaticRouting> hr = staticRouting.GetStaticRouting(host->GetObject<Ipv4>());
            hr->SetDefaultRoute(ifc.GetAddress(0), ifc.Get(1).second);
        }
    }
    for (uint32_t s = 0; s < spines; ++s)
    {
        spineSw[s].name = "spine" + std::to_string(s);
        spineSw[s].node = spineNodes.Get(s);
        for (uint32_t l = 0; l < leaves; ++l)
        {
            NetDeviceContainer d = p2p.Install(leafNodes.Get(l), spineNodes.Get(s));
            std::ostringstream base;
            base << "10." << (100 + l) << "." << s << ".0";
            addr.SetBase(base.str().c_str(), "255.255.255.252");
            Ipv4InterfaceContainer ifc = addr.Assign(d);
            leafSw[l].uplinks.push_back(leafSw[l].ports.GetN());
            leafSw[l].ports.Add(d.Get(0));
            spineSw[s].ports.Add(d.Get(1));
            leafSpineIf[l][s] = ifc.Get(0).second;
            spineLeafIf[s][l] = ifc.Get(1).second;
            leafSideAddr[l][s] = ifc.GetAddress(0);
            spineSideAddr[l][s] = ifc.GetAddress(1);
        }
    }
    // routes: hosts default to their leaf; leaves and spines hold host routes
    for (uint32_t l = 0; l < leaves; ++l)
    {
        Ptr<FlowHashRouting> lr = DynamicCast<FlowHashRouting>(
            leafNodes.Get(l)->GetObject<Ipv4>()->GetRoutingProtocol());
        for (uint32_t m = 0; m < leaves; ++m)
        {
            for (uint32_t h = 0; h < servers; ++h)
            {
                if (m == l)
                {
                    lr->AddHostRoute(hostAddr[m][h], leafHostIf[l][h], hostAddr[m][h]);
                }
                else
                {
                    for (uint32_t s = 0; s < spines; ++s)
                    {
                        lr->AddHostRoute(hostAddr[m][h], leafSpineIf[l][s], spineSideAddr[l][s]);
                    }
                }
            }
        }
    }
    for (uint32_t s = 0; s < spines; ++s)
    {
        Ptr<FlowHashRouting> sr = DynamicCast<FlowHashRouting>(
            spineNodes.Get(s)->GetObject<Ipv4>()->GetRoutingProtocol());
        for (uint32_t l = 0; l < leaves; ++l)
        {
            for (uint32_t h = 0; h < servers; ++h)
            {
                sr->AddHostRoute(hostAddr[l][h], spineLeafIf[s][l], leafSideAddr[l][s]);
            }
        }
    }

    // ---- switches: one shared buffer each ---------------------------------------------------
    SharedBufferHelper sbh;
    sbh.SetScheme(schemeType.GetName());
    sbh.SetSchemeAttributeFailSafe("AlphaUnsched", DoubleValue(alphaUnsched));
    sbh.SetSchemeAttributeFailSafe("UpdateInterval", TimeValue(baseRtt * updateRtts));
    sbh.SetSchemeAttributeFailSafe("Groups", StringValue(groups));
    sbh.SetSchemeAttributeFailSafe("ShortPriority", IntegerValue(proteanShort));
    sbh.SetSchemeAttributeFailSafe("LongPriority", IntegerValue(proteanLong));
    sbh.SetBufferAttribute("QueuesPerPort", UintegerValue(queues));
    sbh.SetBufferAttribute("Alphas", StringValue(alphas));
    sbh.SetQueueDiscAttribute("StrictPriority", BooleanValue(sched == "sp"));
    sbh.SetQueueDiscAttribute("EcnThreshold", UintegerValue(tcp == "dctcp" ? ecnK : 0));
    std::vector<Switch*> all;
    for (auto& sw : leafSw)
    {
        all.push_back(&sw);
    }
    for (auto& sw : spineSw)
    {
        all.push_back(&sw);
    }
    for (Switch* sw : all)
    {
        uint64_t pool = uint64_t(bufferPerPortPerGbps * sw->ports.GetN() * rateGbps);
        sw->buffer = sbh.Install(sw->ports, pool, &sw->discs);
    }
    const uint64_t leafPool = leafSw[0].buffer->GetPoolBytes();

    // hosts: NIC queue that marks flows, first-RTT bytes and classes
    TrafficControlHelper hostTc;
    hostTc.SetRootQueueDisc("ns3::HostMarkerQueueDisc",
                            "Traffic",
                            PointerValue(traffic),
                            "UnschedBytes",
                            UintegerValue(bdpBytes));
    hostTc.Uninstall(hostDevs);
    hostTc.Install(hostDevs);
    for (uint32_t l = 0; l < leaves; ++l)
    {
        for (uint32_t h = 0; h < servers; ++h)
        {
            traffic->AddHost(hostNodes.Get(l * servers + h), hostAddr[l][h], l);
        }
    }
    traffic->InstallSinks();

    // drops -> flows
    auto onDrop = [traffic](Ptr<const QueueDiscItem> item, const char*) {
        FlowTag tag;
        if (item->GetPacket()->PeekPacketTag(tag))
        {
            traffic->NotifyDrop(tag.GetFlowId(), item->GetSize());
        }
    };
    for (Switch* sw : all)
    {
        for (uint32_t i = 0; i < sw->discs.GetN(); ++i)
        {
            sw->discs.Get(i)->TraceConnectWithoutContext(
                "DropBeforeEnqueue",
                Callback<void, Ptr<const QueueDiscItem>, const char*>(onDrop));
        }
    }

    // ---- workload -----------------------------------------------------------------------------
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    Ptr<ExponentialRandomVariable> expo = CreateObject<ExponentialRandomVariable>();
    const double meanSize = (load > 0 || !phases.empty()) ? sizes.Mean() : 0;
    const double uplinkBps = double(spines) * rate.GetBitRate();
    auto pick = [&u](const std::vector<uint32_t>& v) {
        return v[std::min<size_t>(v.size() - 1, size_t(u->GetValue(0, v.size())))];
    };
    // cycle the phases over [start, start + gen)
    double genEnd = startS + (phases.empty() ? genS : 0);
    std::vector<std::pair<double, const Phase*>> windows; // (t0, phase), contiguous
    if (phases.empty())
    {
        windows.emplace_back(startS, &plan[0]);
    }
    else
    {
        double t = startS;
        for (size_t k = 0; t < startS + genS; k = (k + 1) % plan.size())
        {
            windows.emplace_back(t, &plan[k]);
            t += plan[k].duration;
        }
        genEnd = startS + genS;
    }
    auto windowEnd = [&](size_t w) {
        return std::min(genEnd, w + 1 < windows.size() ? windows[w + 1].first : genEnd);
    };
    uint32_t nWs = 0;
    uint32_t nQueries = 0;
    for (size_t w = 0; w < windows.size(); ++w)
    {
        const Phase& ph = *windows[w].second;
        double t0 = windows[w].first;
        double t1 = windowEnd(w);
        // web-search: Poisson arrivals from leaf l to leaf l+1 (all inter-leaf, as the ABM
        // artifact), lambda = load * uplink capacity / mean flow size
        if (ph.load > 0)
        {
            double lambda = ph.load * uplinkBps / 8.0 / meanSize;
            for (uint32_t l = 0; l < leaves; ++l)
            {
                uint32_t m = (l + 1) % leaves;
                double t = t0 + expo->GetValue(1.0 / lambda, 0);
                while (t < t1)
                {
                    uint32_t src = l * servers + uint32_t(u->GetInteger(0, servers - 1));
                    uint32_t dst = m * servers + (wsDst.empty() ? uint32_t(u->GetInteger(0, servers - 1))
                                                                : pick(wsDst));
                    uint64_t size = sizes.Sample(u);
                    uint32_t cls = pick(ph.wsClasses);
                    if (shortClass >= 0)
                    {
                        cls = uint32_t(size < bdpBytes ? shortClass : longClass);
                    }
                    traffic->AddFlow(src, dst, size, uint8_t(cls), Seconds(t), -1, wsInitCwnd);
                    ++nWs;
                    t += expo->GetValue(1.0 / lambda, 0);
                }
            }
        }
        // incast: every server issues Poisson queries to servers of another leaf
        if (ph.qps > 0)
        {
            uint64_t request = uint64_t(ph.requestFrac * leafPool);
            std::vector<uint32_t> requesters;
            for (uint32_t l = 0; l < leaves; ++l)
            {
                for (uint32_t h : queryHosts)
                {
                    requesters.push_back(l * servers + h);
                }
            }
            for (uint32_t r : requesters)
            {
                double t = t0 + expo->GetValue(1.0 / ph.qps, 0);
                while (t < t1)
                {
                    uint32_t rl = r / servers;
                    uint32_t ol = (rl + 1 + uint32_t(u->GetInteger(0, leaves - 2))) % leaves;
                    uint32_t n = fanin == 0 ? servers : fanin;
                    std::vector<uint32_t> resp(servers);
                    for (uint32_t i = 0; i < servers; ++i)
                    {
                        resp[i] = i;
                    }
                    for (uint32_t i = 0; i < n; ++i) // partial Fisher-Yates
                    {
                        uint32_t j = i + uint32_t(u->GetInteger(0, servers - 1 - i));
                        std::swap(resp[i], resp[j]);
                    }
                    uint8_t cls = uint8_t(pick(ph.incastClasses));
                    uint32_t q = traffic->AddQuery(r, cls, Seconds(t));
                    uint64_t part = std::max<uint64_t>(1, request / n);
                    for (uint32_t i = 0; i < n; ++i)
                    {
                        // the whole response fits the initial window (ABM artifact)
                        traffic->AddFlow(ol * servers + resp[i], r, part, cls, Seconds(t), int32_t(q),
                                         uint32_t(part / mss + 1));
                    }
                    ++nQueries;
                    t += expo->GetValue(1.0 / ph.qps, 0);
                }
            }
        }
    }
    const double stopS = genEnd + drainS;

    // ---- co-simulation --------------------------------------------------------------------------
    Ptr<CosimChannel> chan;
    if (cosim)
    {
        chan = CreateObject<CosimChannel>();
        chan->SetAttribute("Interval", TimeValue(NanoSeconds(std::llround(cosimIntervalUs * 1000))));
        chan->SetAttribute("ApplyDelay", TimeValue(NanoSeconds(std::llround(cosimDelayUs * 1000))));
        for (Switch* sw : all)
        {
            chan->AddSwitch(sw->name, sw->buffer);
        }
        chan->Start(stdin, stdout);
    }

    // ---- traces -------------------------------------------------------------------------------
    std::vector<Sample> occ;
    std::function<void()> sampleBuffers = [&]() {
        for (uint32_t l = 0; l < leaves; ++l)
        {
            occ.push_back(Sample{Simulator::Now().GetNanoSeconds(), l, leafSw[l].buffer->GetOccupancy()});
        }
        Simulator::Schedule(MicroSeconds(sampleUs), sampleBuffers);
    };
    Simulator::Schedule(Seconds(startS), sampleBuffers);

    Switch* qsw = nullptr;
    Switch* psw = nullptr;
    for (Switch* sw : all)
    {
        if (sw->name == queueSwitch)
        {
            qsw = sw;
        }
        if (sw->name == traceSwitch)
        {
            psw = sw;
        }
    }
    if (!queueSwitch.empty() && !qsw)
    {
        Fail("queueSwitch", "no switch '" + queueSwitch + "' (leaf0.., spine0..)");
    }
    if (!traceSwitch.empty() && !psw)
    {
        Fail("traceSwitch", "no switch '" + traceSwitch + "' (leaf0.., spine0..)");
    }
    std::ofstream queuesCsv;
    std::function<void()> sampleQueues;
    if (qsw)
    {
        queuesCsv.open(out + "/queues.csv");
        queuesCsv << "t_ns,port,queue,len_bytes,threshold_bytes,alpha\n";
        sampleQueues = [&]() {
            Ptr<SharedBuffer> b = qsw->buffer;
            for (uint32_t p = 0; p < b->GetNPorts(); ++p)
            {
                for (uint32_t q = 0; q < b->GetQueuesPerPort(); ++q)
                {
                    const auto& s = b->GetQueue(p, q);
                    queuesCsv << Simulator::Now().GetNanoSeconds() << "," << p << "," << q << "," << s.len
                              << "," << b->GetThreshold(p, q, false) << ","
                              << b->GetAlpha(p * b->GetQueuesPerPort() + q) << "\n";
                }
            }
            Simulator::Schedule(MicroSeconds(queueSampleUs), sampleQueues);
        };
        Simulator::Schedule(Seconds(startS), sampleQueues);
    }
    std::ofstream packetsCsv;
    uint32_t tracedPackets = 0;
    if (psw && tracePackets > 0)
    {
        packetsCsv.open(out + "/packets.csv");
        packetsCsv << std::setprecision(17);
        packetsCsv << "# scheme=" << scheme << "\n# switch=" << psw->name << "\n# alphas=" << alphas
                   << "\n# alpha_unsched=" << alphaUnsched << "\n# update_interval_ns="
                   << (baseRtt * updateRtts).GetNanoSeconds() << "\n# queues_per_port=" << queues
                   << "\n# pool_bytes=" << psw->buffer->GetPoolBytes() << "\n# ports=" << psw->ports.GetN()
                   << "\n# port_rate_bps=" << rate.GetBitRate() << "\n# seed=" << seed << "\n# groups=" << groups
                   << "\n# admit_rule=fit\n# source=ns3-harness\n";
        packetsCsv << "t_ns,switch,port,queue,priority,bytes,qlen_bytes,pool_occupancy_bytes,pool_bytes,n_p,"
                      "port_active_queues,gamma,alpha_p,unsched,admitted,threshold_bytes\n";
        std::string swName = psw->name;
        int64_t traceFrom = int64_t(traceStartS * 1e9);
        psw->buffer->TraceConnectWithoutContext(
            "Admission",
            Callback<void, const AdmissionRecord&>([&packetsCsv, &tracedPackets, tracePackets, swName,
                                                    traceFrom](const AdmissionRecord& r) {
                int64_t now = Simulator::Now().GetNanoSeconds();
                if (tracedPackets >= tracePackets || now < traceFrom)
                {
                    return;
                }
                ++tracedPackets;
                packetsCsv << now << "," << swName << "," << r.port << "," << r.queue << "," << r.queue << ","
                           << r.bytes << "," << r.qlenBytes << "," << r.poolOccupancy << "," << r.poolBytes
                           << "," << r.nP << "," << r.portActive << "," << r.gamma << "," << r.alphaP << ","
                           << (r.unsched ? 1 : 0) << "," << (r.admitted ? 1 : 0) << ","
                           << r.thresholdBytes << "\n";
            }));
    }

    // uplink bytes over the generation window, for throughput
    std::vector<uint64_t> upStart(leaves, 0);
    std::vector<uint64_t> upEnd(leaves, 0);
    auto uplinkBytes = [&](uint32_t l) {
        uint64_t b = 0;
        for (uint32_t p : leafSw[l].uplinks)
        {
            for (uint32_t q = 0; q < queues; ++q)
            {
                b += leafSw[l].buffer->GetQueue(p, q).txBytes;
            }
        }
        return b;
    };
    Simulator::Schedule(Seconds(startS), [&]() {
        for (uint32_t l = 0; l < leaves; ++l)
        {
            upStart[l] = uplinkBytes(l);
        }
    });
    Simulator::Schedule(Seconds(genEnd), [&]() {
        for (uint32_t l = 0; l < leaves; ++l)
        {
            upEnd[l] = uplinkBytes(l);
        }
    });
    // stop early once every flow has finished
    std::function<void()> checkDone = [&]() {
        for (const auto& f : traffic->GetFlows())
        {
            if (f.endNs < 0)
            {
                Simulator::Schedule(MicroSeconds(100), checkDone);
                return;
            }
        }
        Simulator::Stop();
    };
    Simulator::Schedule(Seconds(genEnd), checkDone);

    Simulator::Stop(Seconds(stopS));
    auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    double runWall = std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    double simS = Simulator::Now().GetSeconds();
    uint64_t events = Simulator::GetEventCount();
    if (chan)
    {
        chan->Finish();
    }

    // ---- outputs ------------------------------------------------------------------------------
    {
        std::ofstream f(out + "/flows.csv");
        traffic->WriteFlows(f);
    }
    {
        std::ofstream f(out + "/queries.csv");
        traffic->WriteQueries(f);
    }
    {
        std::ofstream f(out + "/buffer.csv");
        f << "t_ns,switch,occupancy_bytes\n";
        for (const auto& s : occ)
        {
            f << s.t << "," << leafSw[s.sw].name << "," << s.occ << "\n";
        }
    }
    {
        std::ofstream f(out + "/summary.json");
        f << std::setprecision(12);
        f << "{\n  \"program\": \"alphad-ns3-sim\",\n";
        f << "  \"params\": {\"scheme\": \"" << scheme << "\", \"alphas\": \"" << alphas
          << "\", \"alpha_unsched\": " << alphaUnsched << ", \"update_rtts\": " << updateRtts
          << ", \"leaves\": " << leaves << ", \"spines\": " << spines << ", \"servers\": " << servers
          << ", \"link_rate_bps\": " << rate.GetBitRate() << ", \"link_delay_us\": " << linkDelayUs
          << ", \"buffer_per_port_per_gbps\": " << bufferPerPortPerGbps << ", \"queues\": " << queues
          << ", \"sched\": \"" << sched << "\", \"tcp\": \"" << tcp << "\", \"ecn_k\": " << ecnK
          << ", \"load\": " << load << ", \"cdf\": \"" << JsonEscape(cdf) << "\", \"ws_classes\": \""
          << wsClasses << "\", \"ws_init_cwnd\": " << wsInitCwnd << ", \"qps\": " << qps
          << ", \"request_frac\": " << requestFrac << ", \"fanin\": " << fanin << ", \"incast_classes\": \""
          << incastClasses << "\", \"phases\": \"" << phases << "\", \"start_s\": " << startS
          << ", \"gen_s\": " << genS << ", \"drain_s\": " << drainS << ", \"seed\": " << seed
          << ", \"cosim\": " << (cosim ? "true" : "false") << ", \"cosim_interval_us\": " << cosimIntervalUs
          << ", \"cosim_delay_us\": " << cosimDelayUs << ", \"groups\": \"" << groups
          << "\", \"size_classes\": \"" << sizeClasses << "\", \"protean_short\": " << proteanShort << ", \"protean_long\": " << proteanLong
          << ", \"min_rto_ms\": " << minRtoMs << "},\n";
        f << "  \"base_rtt_ns\": " << baseRtt.GetNanoSeconds() << ",\n";
        f << "  \"bdp_bytes\": " << bdpBytes << ",\n";
        f << "  \"leaf_pool_bytes\": " << leafPool << ",\n";
        f << "  \"gen_end_s\": " << genEnd << ",\n";
        f << "  \"sim_seconds\": " << simS << ",\n";
        f << "  \"run_wall_seconds\": " << runWall << ",\n";
        f << "  \"total_wall_seconds\": "
          << std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count() << ",\n";
        f << "  \"events\": " << events << ",\n";
        f << "  \"flows\": " << traffic->GetFlows().size() << ", \"ws_flows\": " << nWs
          << ", \"queries\": " << nQueries << ",\n";
        if (chan)
        {
            f << "  \"cosim_exchanges\": " << chan->GetExchanges()
              << ", \"cosim_wait_seconds\": " << chan->GetWaitSeconds() << ",\n";
        }
        double window = genEnd - startS;
        f << "  \"uplink_utilisation\": [";
        for (uint32_t l = 0; l < leaves; ++l)
        {
            f << (l ? ", " : "") << double(upEnd[l] - upStart[l]) * 8.0 / (uplinkBps * window);
        }
        f << "],\n  \"switches\": [\n";
        for (size_t i = 0; i < all.size(); ++i)
        {
            Ptr<SharedBuffer> b = all[i]->buffer;
            uint64_t tx = 0;
            uint64_t db = 0;
            uint64_t dp = 0;
            for (const auto& q : b->GetQueues())
            {
                tx += q.txBytes;
                db += q.dropBytes;
                dp += q.dropPackets;
            }
            f << "    {\"name\": \"" << all[i]->name << "\", \"ports\": " << b->GetNPorts()
              << ", \"pool_bytes\": " << b->GetPoolBytes() << ", \"tx_bytes\": " << tx
              << ", \"drop_bytes\": " << db << ", \"drop_packets\": " << dp << "}"
              << (i + 1 < all.size() ? ",\n" : "\n");
        }
        f << "  ]\n}\n";
    }
    if (packetsCsv.is_open())
    {
        packetsCsv.close();
    }
    Simulator::Destroy();
    return 0;
}
