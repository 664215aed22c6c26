// The replicas a serving run has: one aggregated pool whose replicas prefill and decode,
// or (xPyD) a prefill pool and a decode pool, each with its own parallelism, iteration
// cost and KV capacity; and the move of a request's KV cache between them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "network/network_api.hpp"
#include "rapidllm/serve.hpp"
#include "serve/iteration_cost.hpp"
#include "serve/kv_capacity.hpp"

namespace rapidllm::serving {

enum class Role { both, prefill, decode };

struct Pool {
  Role role = Role::both;
  int replicas = 1;
  int gpus_per_replica = 1;
  std::unique_ptr<IterationCost> cost;
  KvCapacity kv;
};

class Pools {
 public:
  // Throws ConfigError for a bad layout, InfeasibleError when a pool has no room for a KV
  // cache or for the longest request it must hold.
  Pools(const Scenario& scenario, const ServeOptions& options, std::int64_t longest_prompt,
        std::int64_t longest_request);

  [[nodiscard]] const std::vector<Pool>& all() const { return pools_; }
  [[nodiscard]] bool disaggregated() const { return pools_.size() > 1; }
  // Seconds to move the cache of `tokens` tokens from a prefill replica to a decode one:
  // every prefill GPU sends its shard at once over the outermost network dimension.
  [[nodiscard]] double transfer_s(std::int64_t tokens) const;

  // In the simulated execution modes the caches move over the serving cluster's network
  // (prefill replicas' GPUs first, then the decode replicas'), every transfer in flight
  // sharing the links: submit one, and deliver the network's events in time order.
  // `prefill_replica` and `decode_replica` count each pool's replicas from 0.
  [[nodiscard]] bool transfers_share_links() const { return cluster_ != nullptr; }
  void submit_transfer(double start_s, std::int64_t tokens, int prefill_replica, int decode_replica,
                       network::NetworkApi::Done done);
  [[nodiscard]] double next_transfer_event_s() const;
  void deliver_transfer_event();

 private:
  [[nodiscard]] double shard_bytes(std::int64_t tokens) const;

  std::vector<Pool> pools_;
  std::unique_ptr<network::NetworkApi> network_;  // over the prefill pool's hardware
  std::unique_ptr<network::NetworkApi> cluster_;  // both pools' GPUs, links shared (simulated modes)
};

}  // namespace rapidllm::serving
