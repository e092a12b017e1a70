// GoogleTest's main for tests with RapidCheck properties. RapidCheck draws
// a new seed each run unless told one, so a suite run (and CI) would test
// different cases each time; the seed is pinned here and printed by
// RapidCheck ("Using configuration: ..."). RC_PARAMS in the environment
// overrides it: RC_PARAMS="seed=$RANDOM max_success=1000" explores.
#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  setenv("RC_PARAMS", "seed=20261202", 0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
