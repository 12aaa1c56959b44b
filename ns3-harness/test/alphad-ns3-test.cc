/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * Runs the harness's ns-3 TestSuites (all of them, or --suite=NAME).
 */

#include "ns3/test.h"

int
main(int argc, char* argv[])
{
    return ns3::TestRunner::Run(argc, argv);
}
