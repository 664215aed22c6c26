// Small network descriptions shared by the network tests.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rapidllm/collective.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::network::testing {

constexpr double kMiB = 1048576.0;
constexpr double kGiB = 1073741824.0;

inline NetworkDimension dim(const std::string& id, TopologyType topology, double bandwidth, double latency,
                            std::vector<int> size = {}) {
  NetworkDimension d;
  d.id = id;
  d.topology = topology;
  d.bandwidth_bytes_per_s = {bandwidth};
  d.latency_s = latency;
  d.size = std::move(size);
  return d;
}

// One scalable unit of `spines` spines, unless `leaves_per_su` cuts the leaves into several.
inline NetworkDimension superpod(const std::string& id, double leaf_bw, double spine_bw, double latency, int leaf_size,
                                 int spines, int leaves_per_su = 0) {
  NetworkDimension d = dim(id, TopologyType::superpod, leaf_bw, latency);
  d.bandwidth_bytes_per_s = {leaf_bw, spine_bw};
  d.superpod = SuperPodSpec{"test", leaf_size, leaves_per_su, spines};
  return d;
}

inline void expect_rel(double actual, double expected, double rel) {
  EXPECT_NEAR(actual, expected, std::abs(expected) * rel) << "expected " << expected << ", got " << actual;
}

}  // namespace rapidllm::network::testing
