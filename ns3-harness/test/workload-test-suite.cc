/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/test.h"
#include "ns3/workload.h"

#include <cstdio>
#include <fstream>
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
    CdfSampleTestCase()
        : TestCase("piecewise-linear CDF: mean and sampling")
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
    CdfErrorTestCase()
        : TestCase("CDF files with errors name the line")
    {
    }

  private:
    void DoRun() override
    {
        FlowSizeCdf cdf;
        std::string err;
        std::string bad = WriteTemp("0 0\n100 x\n");
        NS_TEST_ASSERT_MSG_EQ(cdf.Load(bad, &err), false, "non-number accepted");
        NS_TEST_EXPECT_MSG_NE(err.find(":2:"), std::string::npos, "error does not name line 2: " << err);
        std::string dec = WriteTemp("0 0\n100 60\n50 70\n");
        NS_TEST_ASSERT_MSG_EQ(cdf.Load(dec, &err), false, "decreasing sizes accepted");
        NS_TEST_EXPECT_MSG_NE(err.find(":3:"), std::string::npos, "error does not name line 3: " << err);
        NS_TEST_ASSERT_MSG_EQ(cdf.Load("/nonexistent/cdf", &err), false, "missing file accepted");
        std::remove(bad.c_str());
        std::remove(dec.c_str());
    }
};

/// Flow-size CDF loading and sampling.
class WorkloadTestSuite : public TestSuite
{
  public:
    WorkloadTestSuite()
        : TestSuite("alphad-workload", Type::UNIT)
    {
        AddTestCase(new CdfSampleTestCase, TestCase::Duration::QUICK);
        AddTestCase(new CdfErrorTestCase, TestCase::Duration::QUICK);
    }
};

static WorkloadTestSuite g_workloadTestSuite; //!< static instance
