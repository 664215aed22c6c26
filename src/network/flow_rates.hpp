// Weighted max-min fair rates by progressive filling, for one connected set of usages (see
// flow_usage.hpp). A usage with k active slots is one entity of weight k x its weight on
// every link: its slots are interchangeable, so they always freeze together at one rate.
#pragma once

#include <cstdint>
#include <vector>

#include "network/flow_usage.hpp"
#include "network/topology.hpp"

namespace rapidllm::network {

class RateFiller {
 public:
  explicit RateFiller(const std::vector<Link>& links);

  // rates[i] = the per-member rate of every slot of usages[i]. Raises every rate together;
  // the link whose remaining capacity per unit of unfrozen weight is least saturates first
  // and freezes the usages crossing it at that share.
  void fill(const std::vector<Usage*>& usages, std::vector<double>& rates);

 private:
  const std::vector<Link>& links_;
  std::vector<double> rem_, wsum_;
  std::vector<std::vector<int>> on_link_;  // per link: indexes into `usages` crossing it
  std::vector<std::uint32_t> mark_;
  std::uint32_t epoch_ = 0;
  std::vector<int> comp_links_;
  std::vector<char> frozen_;
};

}  // namespace rapidllm::network
