// Helpers of the analytical collective tests: dimensions with a util, a tight relative
// comparison, and the message of an expected InfeasibleError.
#pragma once

#include <cmath>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "network/analytical_collectives.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::network::analytical_testing {

inline constexpr double kGiB = 1073741824.0;  // 2^30: the nccl-tests "1G" size

inline NetworkDimension make_dim(const std::string& id, TopologyType topology, double bandwidth,
                          double latency, double util = 1.0) {
  NetworkDimension d;
  d.id = id;
  d.topology = topology;
  d.bandwidth_bytes_per_s = {bandwidth};
  d.latency_s = latency;
  d.util = util;
  return d;
}

// Relative comparison: the formulas are a handful of flops, so 1e-12 is far above rounding.
inline void expect_rel(double actual, double expected, double rel = 1e-12) {
  EXPECT_NEAR(actual, expected, std::abs(expected) * rel) << "expected " << expected;
}

// The message of the InfeasibleError `f` throws; fails the test when it throws nothing.
inline std::string infeasible_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const InfeasibleError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InfeasibleError";
  return {};
}

inline double time_of(CollectiveOp op, CollectiveAlgorithm alg, double bytes, int ranks,
               const NetworkDimension& d) {
  return time_on_dimension(op, alg, bytes, ranks, d).time_s;
}

inline const ExecutionBackendSpec kNoDefaults{};

}  // namespace rapidllm::network::analytical_testing
