/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "ns3/node-container.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/traffic-manager.h"
#include "ns3/workload.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>

using namespace ns3;

namespace
{

std::string
WriteTemp(const std::string& text)
{
    char name[] = "/tmp/alphad-cdf-XXXXXX";
    int fd = mkstemp(name);
    NS_ABORT_MSG_IF(fd < 0, "cannot create a temporary file");
    close(fd);
    std::ofstream(name) << text;
    return name;
}

} // namespace

/// A two-segment CDF: mean, percent normalisation, inverse-transform sampling.
class CdfSampleTestCase : public TestCase
{
  public:
    CdfSampleTestCase() : TestCase("piecewise-linear CDF: mean and sampling")
    {
    }

  private:
    void DoRun() override
    {
        // 50% of flows uniform in [0, 1000], 50% uniform in [1000, 3000]  (percent units)
        std::string path = WriteTemp("# size cum\n0 0\n1000 50\n\n3000 100\n");
        FlowSizeCdf cdf;
        std::string err;
        NS_TEST_ASSERT_MSG_EQ(cdf.Load(path, &err), true, err);
        NS_TEST_ASSERT_MSG_EQ_TOL(cdf.Mean(), 0.5 * 500 + 0.5 * 2000, 1e-9, "mean");
        RngSeedManager::SetSeed(3);
        Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
        double sum = 0;
        int below = 0;
        const int n = 20000;
        for (int i = 0; i < n; ++i)
        {
            uint64_t s = cdf.Sample(u);
            NS_TEST_ASSERT_MSG_EQ((s >= 1 && s <= 3000), true, "sample out of range: " << s);
            sum += s;
            below += s <= 1000;
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(sum / n, 1250.0, 25.0, "sample mean");
        NS_TEST_EXPECT_MSG_EQ_TOL(below / double(n), 0.5, 0.02, "median");
        std::remove(path.c_str());
    }
};

/// Unusable files are refused with the line that is wrong.
class CdfErrorTestCase : public TestCase
{
  public:
    CdfErrorTestCase() : TestCase("CDF files with errors name the line")
    {
    }

  private:
    void DoRun() override
    {
        FlowSizeCdf cdf;
        std::string err;
        std::string bad = WriteTemp("0 0\n100 x\n");
        NS_TEST_ASSERT_MSG_EQ(cdf.Load(bad, &err), false, "non-number accepted");
        NS_TEST_EXPECT_MSG_NE(err.find(":2:"), std::string::npos,
                              "error does not name line 2: " << err);
        std::string dec = WriteTemp("0 0\n100 60\n50 70\n");
        NS_TEST_ASSERT_MSG_EQ(cdf.Load(dec, &err), false, "decreasing sizes accepted");
        NS_TEST_EXPECT_MSG_NE(err.find(":3:"), std::string::npos,
                              "error does not name line 3: " << err);
        NS_TEST_ASSERT_MSG_EQ(cdf.Load("/nonexistent/cdf", &err), false, "missing file accepted");
        std::remove(bad.c_str());
        std::remove(dec.c_str());
    }
};

/// Class lists and phases: what they accept, and errors that name the field.
class ParseTestCase : public TestCase
{
  public:
    ParseTestCase() : TestCase("class lists and phases parse, errors name the field")
    {
    }

  private:
    /// The option an OptionError names, or "" when @p f does not throw.
    template <typename F> static std::string FailingOption(F f)
    {
        try
        {
            f();
        }
        catch (const OptionError& e)
        {
            return e.GetOption();
        }
        return "";
    }

    void DoRun() override
    {
        std::vector<uint32_t> c = ParseClasses("0-2,5", "wsClasses", 8);
        NS_TEST_ASSERT_MSG_EQ((c == std::vector<uint32_t>{0, 1, 2, 5}), true, "range and item");
        c = ParseClasses("3+1", "x", 4, '+');
        NS_TEST_ASSERT_MSG_EQ((c == std::vector<uint32_t>{3, 1}), true,
                              "order kept, '+' separator");
        NS_TEST_EXPECT_MSG_EQ(FailingOption([] { ParseClasses("0-8", "wsClasses", 8); }),
                              "wsClasses", "range");
        NS_TEST_EXPECT_MSG_EQ(FailingOption([] { ParseClasses("", "groups", 8); }), "groups",
                              "empty");
        NS_TEST_EXPECT_MSG_EQ(FailingOption([] { ParseClasses("1,x", "g", 8); }), "g",
                              "not a number");

        std::vector<Phase> p = ParsePhases("40,0.5,1+2,30,0.5,0;20,0,1,0,2,3", 4);
        NS_TEST_ASSERT_MSG_EQ(p.size(), 2u, "two phases");
        NS_TEST_EXPECT_MSG_EQ_TOL(p[0].duration, 0.04, 1e-15, "ms to s");
        NS_TEST_EXPECT_MSG_EQ((p[0].wsClasses == std::vector<uint32_t>{1, 2}), true, "ws classes");
        NS_TEST_EXPECT_MSG_EQ_TOL(p[0].qps, 30.0, 0, "qps");
        NS_TEST_EXPECT_MSG_EQ_TOL(p[1].requestFrac, 2.0, 0, "request_frac");
        NS_TEST_EXPECT_MSG_EQ(p[1].incastClasses[0], 3u, "incast class");
        NS_TEST_EXPECT_MSG_EQ(
            FailingOption([] { ParsePhases("40,0.5,1,30,0.5,0;20,0,1,0,2,4", 4); }),
            "phases[1].incast_classes", "class out of range, named with its phase");
        NS_TEST_EXPECT_MSG_EQ(FailingOption([] { ParsePhases("0,0.5,1,30,0.5,0", 4); }),
                              "phases[0]", "duration");
        NS_TEST_EXPECT_MSG_EQ(FailingOption([] { ParsePhases("10,1.5,1,30,0.5,0", 4); }),
                              "phases[0]", "load");
        NS_TEST_EXPECT_MSG_EQ(FailingOption([] { ParsePhases("10,0.5,1,30", 4); }), "phases[0]",
                              "fields");
        NS_TEST_EXPECT_MSG_EQ(FailingOption([] { ParsePhases("", 4); }), "phases", "no phase");
    }
};

/// Phases cycle over the generation time; each window draws only its phase's traffic.
class GeneratorTestCase : public TestCase
{
  public:
    GeneratorTestCase()
        : TestCase("workload generator: phases cycled, flows where and when their phase says")
    {
    }

  private:
    void DoRun() override
    {
        std::string path = WriteTemp("0 0\n1000 50\n100000 100\n");
        FlowSizeCdf sizes;
        std::string err;
        NS_TEST_ASSERT_MSG_EQ(sizes.Load(path, &err), true, err);
        const uint32_t leaves = 2;
        const uint32_t servers = 4;
        NodeContainer hosts;
        hosts.Create(leaves * servers);
        Ptr<TrafficManager> traffic = CreateObject<TrafficManager>();
        for (uint32_t i = 0; i < hosts.GetN(); ++i)
        {
            traffic->AddHost(hosts.Get(i), Ipv4Address(0x0a000002 + (i << 8)), i / servers);
        }
        // phase 0: incast only, class 0; phase 1: web-search only, classes 1 and 2
        std::vector<Phase> plan = ParsePhases("10,0,1,400,0.5,0;10,0.8,1+2,0,0.5,0", 3);
        WorkloadGenerator::Config config{leaves, servers, 1e9, 100000,       10000, 1000,
                                         10,     3,       {},  {0, 1, 2, 3}, -1,    -1};
        WorkloadGenerator gen(config, sizes);
        double genEnd = gen.Generate(plan, 0.001, 0.04, traffic);
        NS_TEST_EXPECT_MSG_EQ_TOL(genEnd, 0.041, 1e-15, "end of generation");
        uint32_t ws = 0;
        std::set<int32_t> queries;
        for (const auto& f : traffic->GetFlows())
        {
            double t = f.start.GetSeconds();
            NS_TEST_ASSERT_MSG_EQ((t >= 0.001 && t < 0.041), true, "flow at " << t);
            bool incastWindow = std::fmod(t - 0.001, 0.02) < 0.01;
            uint32_t srcLeaf = f.src / servers;
            uint32_t dstLeaf = f.dst / servers;
            NS_TEST_EXPECT_MSG_NE(srcLeaf, dstLeaf, "every flow crosses the spines");
            if (f.query >= 0)
            {
                queries.insert(f.query);
                NS_TEST_EXPECT_MSG_EQ(incastWindow, true,
                                      "response at " << t << " outside phase 0");
                NS_TEST_EXPECT_MSG_EQ(uint32_t(f.cls), 0u, "incast class");
                NS_TEST_EXPECT_MSG_EQ(f.size, 100000u / 2 / 3, "a third of half the leaf buffer");
            }
            else
            {
                ++ws;
                NS_TEST_EXPECT_MSG_EQ(incastWindow, false,
                                      "web-search at " << t << " outside phase 1");
                NS_TEST_EXPECT_MSG_EQ((f.cls == 1 || f.cls == 2), true, "web-search class");
                NS_TEST_EXPECT_MSG_EQ(dstLeaf, (srcLeaf + 1) % leaves, "leaf l to leaf l+1");
            }
        }
        NS_TEST_EXPECT_MSG_EQ(ws, gen.GetWebSearchFlows(), "web-search count");
        NS_TEST_EXPECT_MSG_EQ(queries.size(), gen.GetQueries(), "query count");
        NS_TEST_EXPECT_MSG_GT(ws, 0u, "no web-search drawn");
        NS_TEST_EXPECT_MSG_GT(gen.GetQueries(), 0u, "no query drawn");
        NS_TEST_EXPECT_MSG_EQ(traffic->GetFlows().size(), ws + 3 * gen.GetQueries(), "fanin 3");
        Simulator::Destroy();
        std::remove(path.c_str());
    }
};

/// Flow-size CDF loading and sampling, option parsing, the workload generator.
class WorkloadTestSuite : public TestSuite
{
  public:
    WorkloadTestSuite() : TestSuite("alphad-workload", Type::UNIT)
    {
        AddTestCase(new CdfSampleTestCase, TestCase::Duration::QUICK);
        AddTestCase(new CdfErrorTestCase, TestCase::Duration::QUICK);
        AddTestCase(new ParseTestCase, TestCase::Duration::QUICK);
        AddTestCase(new GeneratorTestCase, TestCase::Duration::QUICK);
    }
};

static WorkloadTestSuite g_workloadTestSuite; //!< static instance
