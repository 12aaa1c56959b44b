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

#include "ns3/buffer-scheme.h"
#include "ns3/core-module.h"
#include "ns3/cosim-channel.h"
#include "ns3/internet-module.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/run-recorder.h"
#include "ns3/shared-buffer-helper.h"
#include "ns3/traffic-manager.h"
#include "ns3/workload.h"

#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
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

/// The program's options, with their defaults.
struct Options
{
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
    uint32_t sndBuf = 0; // bytes; 0: unbounded
    std::string out = ".";
    bool cosim = false;
    double cosimIntervalUs = 80;
    double cosimDelayUs = 0;
    bool shadowDt = false;
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

    void Register(CommandLine& cmd);
};

void
Options::Register(CommandLine& cmd)
{
    cmd.AddValue("scheme", "dt, cs, abm, abm-core, fb, protean or external", scheme);
    cmd.AddValue("alphas", "alpha_p per class, comma-separated (one value: all classes)", alphas);
    cmd.AddValue("alphaUnsched", "ABM alpha of first-RTT packets", alphaUnsched);
    cmd.AddValue("updateRtts", "ABM n_p/gamma refresh period, in base RTTs", updateRtts);
    cmd.AddValue("leaves", "leaf switches", leaves);
    cmd.AddValue("spines", "spine switches (one link to every leaf)", spines);
    cmd.AddValue("servers", "servers per leaf", servers);
    cmd.AddValue("linkRate", "rate of every link", linkRate);
    cmd.AddValue("linkDelay", "propagation delay of every link, us", linkDelayUs);
    cmd.AddValue("bufferPerPortPerGbps", "switch buffer, bytes per port per Gb/s",
                 bufferPerPortPerGbps);
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
    cmd.AddValue("wsHosts", "servers (index within a leaf) web-search flows go to (default: all)",
                 wsHosts);
    cmd.AddValue("incastHosts", "servers (index within a leaf) that issue queries (default: all)",
                 incastHosts);
    cmd.AddValue(
        "phases",
        "time-varying workload: dur_ms,load,ws_classes,qps,request_frac,incast_classes;... "
        "(classes joined with +), cycled over the generation time",
        phases);
    cmd.AddValue("start", "time the first flow may start, s", startS);
    cmd.AddValue("gen", "flows start during this many seconds", genS);
    cmd.AddValue("drain", "seconds after the last start before the run stops", drainS);
    cmd.AddValue("seed", "random seed (run number)", seed);
    cmd.AddValue("scheduler", "ns-3 event scheduler", scheduler);
    cmd.AddValue("delAck", "TCP delayed-ACK count (segments per ACK)", delAck);
    cmd.AddValue("sndBuf",
                 "TCP send buffer per socket, bytes: bounds what a flow keeps in flight and "
                 "queued in its host (0: unbounded)",
                 sndBuf);
    cmd.AddValue("out", "output directory", out);
    cmd.AddValue("cosim", "external alphas from a controller on stdin/stdout", cosim);
    cmd.AddValue("cosimInterval", "co-simulation interval, us", cosimIntervalUs);
    cmd.AddValue("cosimDelay", "delay before received alphas take effect, us", cosimDelayUs);
    cmd.AddValue("shadowDt", "cosim: also count the drops DT at --alphas would have admitted",
                 shadowDt);
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
}

/// What the options come to once checked.
struct Checked
{
    TypeId scheme;                    //!< the BufferScheme
    DataRate rate;                    //!< of every link
    FlowSizeCdf sizes;                //!< web-search flow sizes (loaded when used)
    std::vector<Phase> plan;          //!< the phases (one when --phases is not given)
    std::vector<uint32_t> wsHosts;    //!< empty: any server
    std::vector<uint32_t> queryHosts; //!< servers that issue queries
    int32_t shortClass{-1};           //!< --sizeClasses S
    int32_t longClass{-1};            //!< --sizeClasses L
    std::string groups;               //!< --groups as a plain list
};

/// Check every option, in a fixed order; the first bad one ends the program naming it.
void
Check(const Options& o, Checked& c)
{
    auto need = [](bool ok, const std::string& option, const std::string& msg) {
        if (!ok)
        {
            Fail(option, msg);
        }
    };
    need(BufferScheme::LookupByShortName(o.scheme, &c.scheme), "scheme",
         "unknown scheme '" + o.scheme + "' (dt, cs, abm, abm-core, fb, protean, external)");
    need(!o.cosim || o.scheme == "external", "cosim", "needs --scheme=external");
    need(o.leaves >= 2 && o.leaves <= 64, "leaves", "must be in [2, 64]");
    need(o.spines >= 1 && o.spines <= 64, "spines", "must be in [1, 64]");
    need(o.servers >= 2 && o.servers <= 250, "servers", "must be in [2, 250]");
    need(o.queues >= 1 && o.queues <= 64, "queues", "must be in [1, 64]");
    need(o.linkDelayUs > 0, "linkDelay", "must be > 0");
    need(o.bufferPerPortPerGbps > 0, "bufferPerPortPerGbps", "must be > 0");
    need(o.sched == "rr" || o.sched == "sp", "sched", "must be rr or sp");
    need(o.tcp == "cubic" || o.tcp == "dctcp", "tcp", "must be cubic or dctcp");
    need(!(o.load < 0 || o.load > 1), "load", "must be in [0, 1]");
    need(!(o.qps < 0), "qps", "must be >= 0");
    need(!(o.requestFrac <= 0 || o.requestFrac > 10), "requestFrac", "must be in (0, 10]");
    need(o.fanin <= o.servers, "fanin", "cannot exceed --servers");
    need(!(o.startS < 0 || !(o.genS > 0) || o.drainS < 0), "gen",
         "--start and --drain must be >= 0 and --gen > 0");
    need(o.updateRtts > 0, "updateRtts", "must be > 0");
    need(o.cosimIntervalUs >= 0.1, "cosimInterval", "must be >= 0.1 us");
    need(!(o.cosimDelayUs < 0), "cosimDelay", "must be >= 0");
    need(!o.shadowDt || o.cosim, "shadowDt", "needs --cosim=1");
    need(o.minRtoMs > 0, "minRto", "must be > 0");
    need(o.sampleUs > 0 && o.queueSampleUs > 0, "sample", "sampling periods must be > 0");
    need(o.wsInitCwnd >= 1, "wsInitCwnd", "must be >= 1");
    need(o.sndBuf == 0 || o.sndBuf >= 4096, "sndBuf", "must be 0 (unbounded) or >= 4096 bytes");
    std::stringstream ss(o.alphas);
    std::string a;
    uint32_t n = 0;
    while (std::getline(ss, a, ','))
    {
        char* end = nullptr;
        double v = std::strtod(a.c_str(), &end);
        need(!(a.empty() || *end || !(v > 0) || !std::isfinite(v)), "alphas",
             "'" + a + "' is not a positive number");
        ++n;
    }
    need(n == 1 || n == o.queues, "alphas",
         std::to_string(n) + " values for " + std::to_string(o.queues) + " classes");
    if (!o.groups.empty())
    {
        std::vector<uint32_t> g = ParseClasses(o.groups, "groups", o.queues);
        need(g.size() == o.queues, "groups", "needs one group per class");
        for (uint32_t x : g) // ranges written out: the scheme reads a plain list
        {
            c.groups += (c.groups.empty() ? "" : ",") + std::to_string(x);
        }
    }
    need(o.proteanShort < int32_t(o.queues) && o.proteanLong < int32_t(o.queues), "proteanShort",
         "Protean classes must be < --queues");
    DataRateValue rate;
    need(rate.DeserializeFromString(o.linkRate, MakeDataRateChecker()) &&
             rate.Get().GetBitRate() > 0,
         "linkRate", "'" + o.linkRate + "' is not a data rate (e.g. 10Gbps)");
    c.rate = rate.Get();
    std::string cdfError;
    need(!(o.load > 0 || !o.phases.empty()) || c.sizes.Load(o.cdf, &cdfError), "cdf", cdfError);
    c.plan = o.phases.empty()
                 ? std::vector<Phase>{Phase{
                       o.genS, o.load, ParseClasses(o.wsClasses, "wsClasses", o.queues), o.qps,
                       o.requestFrac, ParseClasses(o.incastClasses, "incastClasses", o.queues)}}
                 : ParsePhases(o.phases, o.queues);
    if (!o.wsHosts.empty())
    {
        c.wsHosts = ParseClasses(o.wsHosts, "wsHosts", o.servers);
    }
    if (!o.incastHosts.empty())
    {
        c.queryHosts = ParseClasses(o.incastHosts, "incastHosts", o.servers);
    }
    else
    {
        for (uint32_t h = 0; h < o.servers; ++h)
        {
            c.queryHosts.push_back(h);
        }
    }
    if (!o.sizeClasses.empty())
    {
        std::vector<uint32_t> sl = ParseClasses(o.sizeClasses, "sizeClasses", o.queues);
        need(sl.size() == 2, "sizeClasses", "expected two classes 'S,L'");
        c.shortClass = int32_t(sl[0]);
        c.longClass = int32_t(sl[1]);
    }
    mkdir(o.out.c_str(), 0755);
    need(bool(std::ofstream(o.out + "/.probe")), "out", "cannot write into '" + o.out + "'");
    std::remove((o.out + "/.probe").c_str());
}

/// Event scheduler, random run and the TCP of every host.
void
SetDefaults(const Options& o, Time baseRtt, uint32_t mss)
{
    ObjectFactory sched;
    sched.SetTypeId(o.scheduler);
    Simulator::SetScheduler(sched);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(o.seed);
    Config::SetDefault(
        "ns3::TcpL4Protocol::SocketType",
        TypeIdValue(o.tcp == "dctcp" ? TcpDctcp::GetTypeId() : TcpCubic::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    // Unbounded, nothing but the network limits a window; a bound plays the part of
    // Linux's TCP small queues, which keep a window's surplus out of the host's NIC queue.
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(o.sndBuf ? o.sndBuf : 1u << 30));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 30));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(o.delAck));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(MilliSeconds(o.minRtoMs)));
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(6));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(o.minRtoMs * 1000)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MicroSeconds(1)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(baseRtt * 2));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    // A closed connection waits 2 x MSL in TIME_WAIT (ns-3 default MSL: 120 s) and its
    // endpoint stays in the node's demultiplexer list, which every packet scans: long
    // runs slowed down 3x. Nothing in a run reuses a port within milliseconds.
    Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime", DoubleValue(0.001));
    if (o.tcp == "dctcp")
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    }
}

std::string
JsonEscape(const std::string& s)
{
    std::string e;
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            e.push_back('\\');
        }
        e.push_back(c);
    }
    return e;
}

/// The "params" object of summary.json.
std::string
ParamsJson(const Options& o, uint64_t rateBps)
{
    std::ostringstream f;
    f << std::setprecision(12);
    f << "{\"scheme\": \"" << o.scheme << "\", \"alphas\": \"" << o.alphas
      << "\", \"alpha_unsched\": " << o.alphaUnsched << ", \"update_rtts\": " << o.updateRtts
      << ", \"leaves\": " << o.leaves << ", \"spines\": " << o.spines
      << ", \"servers\": " << o.servers << ", \"link_rate_bps\": " << rateBps
      << ", \"link_delay_us\": " << o.linkDelayUs
      << ", \"buffer_per_port_per_gbps\": " << o.bufferPerPortPerGbps
      << ", \"queues\": " << o.queues << ", \"sched\": \"" << o.sched << "\", \"tcp\": \"" << o.tcp
      << "\", \"ecn_k\": " << o.ecnK << ", \"load\": " << o.load << ", \"cdf\": \""
      << JsonEscape(o.cdf) << "\", \"ws_classes\": \"" << o.wsClasses
      << "\", \"ws_init_cwnd\": " << o.wsInitCwnd << ", \"qps\": " << o.qps
      << ", \"request_frac\": " << o.requestFrac << ", \"fanin\": " << o.fanin
      << ", \"incast_classes\": \"" << o.incastClasses << "\", \"phases\": \"" << o.phases
      << "\", \"start_s\": " << o.startS << ", \"gen_s\": " << o.genS
      << ", \"drain_s\": " << o.drainS << ", \"seed\": " << o.seed
      << ", \"snd_buf\": " << o.sndBuf
      << ", \"cosim\": " << (o.cosim ? "true" : "false")
      << ", \"cosim_interval_us\": " << o.cosimIntervalUs
      << ", \"cosim_delay_us\": " << o.cosimDelayUs << ", \"groups\": \"" << o.groups
      << "\", \"size_classes\": \"" << o.sizeClasses << "\", \"protean_short\": " << o.proteanShort
      << ", \"protean_long\": " << o.proteanLong << ", \"min_rto_ms\": " << o.minRtoMs << "}";
    return f.str();
}

/// Stop the run once every flow has finished (checked every 100 us).
void
StopWhenDone(Ptr<TrafficManager> traffic)
{
    for (const auto& f : traffic->GetFlows())
    {
        if (f.endNs < 0)
        {
            Simulator::Schedule(MicroSeconds(100), &StopWhenDone, traffic);
            return;
        }
    }
    Simulator::Stop();
}

} // namespace

int
main(int argc, char* argv[])
{
    auto wallStart = std::chrono::steady_clock::now();
    Options o;
    CommandLine cmd(__FILE__);
    o.Register(cmd);
    cmd.Parse(argc, argv);
    Checked c;
    try
    {
        Check(o, c);
    }
    catch (const OptionError& e)
    {
        Fail(e.GetOption(), e.what());
    }

    const uint32_t mss = 1400;
    const Time delay = MicroSeconds(o.linkDelayUs);
    const Time baseRtt = delay * 8; // host-leaf-spine-leaf-host and back
    const uint64_t bdpBytes = uint64_t(c.rate.GetBitRate() / 8.0 * baseRtt.GetSeconds());
    SetDefaults(o, baseRtt, mss);

    LeafSpineHelper fabric(o.leaves, o.spines, o.servers);
    fabric.SetLink(c.rate, delay);
    fabric.Create();
    LeafSpineSwitch* queueSw = fabric.FindSwitch(o.queueSwitch);
    LeafSpineSwitch* traceSw = fabric.FindSwitch(o.traceSwitch);
    if (!o.queueSwitch.empty() && !queueSw)
    {
        Fail("queueSwitch", "no switch '" + o.queueSwitch + "' (leaf0.., spine0..)");
    }
    if (!o.traceSwitch.empty() && !traceSw)
    {
        Fail("traceSwitch", "no switch '" + o.traceSwitch + "' (leaf0.., spine0..)");
    }

    SharedBufferHelper sbh;
    sbh.SetScheme(c.scheme.GetName());
    sbh.SetSchemeAttributeFailSafe("AlphaUnsched", DoubleValue(o.alphaUnsched));
    sbh.SetSchemeAttributeFailSafe("UpdateInterval", TimeValue(baseRtt * o.updateRtts));
    sbh.SetSchemeAttributeFailSafe("Groups", StringValue(c.groups));
    sbh.SetSchemeAttributeFailSafe("ShortPriority", IntegerValue(o.proteanShort));
    sbh.SetSchemeAttributeFailSafe("LongPriority", IntegerValue(o.proteanLong));
    sbh.SetBufferAttribute("QueuesPerPort", UintegerValue(o.queues));
    sbh.SetBufferAttribute("Alphas", StringValue(o.alphas));
    sbh.SetQueueDiscAttribute("StrictPriority", BooleanValue(o.sched == "sp"));
    sbh.SetQueueDiscAttribute("EcnThreshold", UintegerValue(o.tcp == "dctcp" ? o.ecnK : 0));
    fabric.InstallSwitches(sbh, o.bufferPerPortPerGbps);
    const uint64_t leafPool = fabric.GetLeaf(0).buffer->GetPoolBytes();

    Ptr<TrafficManager> traffic = CreateObject<TrafficManager>();
    traffic->SetIdeal(c.rate.GetBitRate(), delay, mss);
    fabric.InstallTraffic(traffic, bdpBytes);
    const double uplinkBps = double(o.spines) * c.rate.GetBitRate();
    WorkloadGenerator workload(WorkloadGenerator::Config{o.leaves, o.servers, uplinkBps, leafPool,
                                                         bdpBytes, mss, o.wsInitCwnd, o.fanin,
                                                         c.wsHosts, c.queryHosts, c.shortClass,
                                                         c.longClass},
                               c.sizes);
    const double genEnd = workload.Generate(c.plan, o.startS, o.genS, traffic);

    Ptr<CosimChannel> chan;
    if (o.cosim)
    {
        chan = CreateObject<CosimChannel>();
        chan->SetAttribute("Interval",
                           TimeValue(NanoSeconds(std::llround(o.cosimIntervalUs * 1000))));
        chan->SetAttribute("ApplyDelay",
                           TimeValue(NanoSeconds(std::llround(o.cosimDelayUs * 1000))));
        chan->SetAttribute("ShadowDt", BooleanValue(o.shadowDt));
        for (LeafSpineSwitch* sw : fabric.GetSwitches())
        {
            chan->AddSwitch(sw->name, sw->buffer);
        }
        chan->Start(stdin, stdout);
    }

    std::vector<LeafSpineSwitch*> leaves;
    for (uint32_t l = 0; l < o.leaves; ++l)
    {
        leaves.push_back(&fabric.GetLeaf(l));
    }
    RunRecorder recorder(o.out, wallStart);
    recorder.SampleBuffers(leaves, Seconds(o.startS), MicroSeconds(o.sampleUs));
    if (queueSw)
    {
        recorder.SampleQueues(*queueSw, Seconds(o.startS), MicroSeconds(o.queueSampleUs));
    }
    if (traceSw && o.tracePackets > 0)
    {
        recorder.TracePackets(
            *traceSw,
            RunRecorder::PacketTraceHeader{o.scheme, o.alphas, o.alphaUnsched,
                                           (baseRtt * o.updateRtts).GetNanoSeconds(), o.queues,
                                           c.rate.GetBitRate(), o.seed, o.groups},
            o.tracePackets, NanoSeconds(int64_t(o.traceStartS * 1e9)));
    }
    recorder.MeasureUplinks(leaves, Seconds(o.startS), Seconds(genEnd));
    Simulator::Schedule(Seconds(genEnd), &StopWhenDone, traffic);

    Simulator::Stop(Seconds(genEnd + o.drainS));
    auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    double runWall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    RunRecorder::RunFacts facts{baseRtt.GetNanoSeconds(),
                                bdpBytes,
                                leafPool,
                                genEnd,
                                Simulator::Now().GetSeconds(),
                                runWall,
                                Simulator::GetEventCount(),
                                workload.GetWebSearchFlows(),
                                workload.GetQueries(),
                                bool(chan),
                                0,
                                0.0};
    if (chan)
    {
        chan->Finish();
        facts.cosimExchanges = chan->GetExchanges();
        facts.cosimWaitS = chan->GetWaitSeconds();
    }
    recorder.Write(traffic, ParamsJson(o, c.rate.GetBitRate()), facts, fabric.GetSwitches(),
                   uplinkBps, o.startS);
    Simulator::Destroy();
    return 0;
}
