#include "serve/pools.hpp"

#include <limits>

#include <fmt/format.h>

#include "exec/run_options.hpp"
#include "memory/inference_memory.hpp"
#include "network/cluster_network.hpp"
#include "parallel/placement.hpp"
#include "rapidllm/error.hpp"
#include "serve/options_check.hpp"

namespace rapidllm::serving {

namespace {

Pool make_pool(const Scenario& scenario, const ServeEngine& engine, Role role, const ServePool& p) {
  const char* name = role == Role::prefill ? "prefill" : "decode";
  if (p.replicas < 1 || p.tp < 1 || p.pp < 1) {
    throw option_error(fmt::format("--{}", name),
                      fmt::format("the {} pool needs replicas, tp and pp >= 1 (got {} x tp{} pp{})", name, p.replicas,
                                  p.tp, p.pp),
                      "e.g. --prefill 2xtp4 --decode 1xtp8");
  }
  Scenario pool = scenario;
  pool.hardware.parallelism.tp = p.tp;
  pool.hardware.parallelism.pp = p.pp;
  Pool out;
  out.role = role;
  out.replicas = p.replicas;
  out.gpus_per_replica = p.tp * p.pp;
  out.cost = std::make_unique<IterationCost>(pool);
  out.kv = kv_capacity(out.cost->context(), engine);
  return out;
}

void check_fits(const Pool& p, std::int64_t tokens, const char* what) {
  if (tokens > p.kv.tokens) {
    throw InfeasibleError(
        fmt::format("{} of up to {} tokens does not fit the KV cache of {} tokens per replica", what, tokens, p.kv.tokens));
  }
}

}  // namespace

Pools::Pools(const Scenario& scenario, const ServeOptions& options, std::int64_t longest_prompt,
             std::int64_t longest_request) {
  if (!options.disaggregated) {
    Pool p;
    p.role = Role::both;
    p.replicas = std::max(1, scenario.hardware.parallelism.replica_count);
    p.cost = std::make_unique<IterationCost>(scenario);
    const auto& deg = p.cost->context().degrees();
    p.gpus_per_replica = deg.tp * deg.pp;
    p.kv = kv_capacity(p.cost->context(), options.engine);
    check_fits(p, longest_request, "a request");
    pools_.push_back(std::move(p));
    return;
  }
  if (scenario.hardware.parallelism.replica_count > 1) {
    throw ConfigError(SourceLocation{scenario.hardware.source, 0, 0, {}}, "parallelism.inference.replica_count",
                      "with disaggregated pools the pools give the replicas",
                      "leave replica_count at 1 and size the pools (--prefill, --decode)");
  }
  pools_.push_back(make_pool(scenario, options.engine, Role::prefill, options.disaggregated->prefill));
  pools_.push_back(make_pool(scenario, options.engine, Role::decode, options.disaggregated->decode));
  check_fits(pools_[0], longest_prompt, "a prompt");
  check_fits(pools_[1], longest_request, "a request");
  const HardwareSpec& hw = pools_[0].cost->context().hardware();
  network_ = network::make_network(NetworkBackend::analytical, hw.network, hw.execution);
  if (exec::step_run_options(hw, RunType::inference).network != exec::NetworkKind::analytical) {
    const long long gpus = 1LL * pools_[0].replicas * pools_[0].gpus_per_replica +
                           1LL * pools_[1].replicas * pools_[1].gpus_per_replica;
    cluster_ = std::make_unique<network::ClusterNetwork>(hw.network, hw.execution,
                                                         parallel::cluster_capacities(hw.network, gpus), gpus,
                                                         network::Sharing::shared);
  }
}

double Pools::shard_bytes(std::int64_t tokens) const {
  const exec::LlmContext& ctx = pools_[0].cost->context();
  const auto& d = ctx.dims();
  // The whole model's keys and values of `tokens` tokens, split over the prefill GPUs.
  return memory::kv_cache_bytes(d, d.layers, 1, 1, tokens, ctx.hardware().sw.precision.kv_cache.bytes) /
         pools_[0].gpus_per_replica;
}

void Pools::submit_transfer(double start_s, std::int64_t tokens, int prefill_replica, int decode_replica,
                            network::NetworkApi::Done done) {
  // Prefill GPU i sends its shard to the decode replica's GPU i (mod its size).
  const int from = pools_[0].gpus_per_replica;
  const int to = pools_[1].gpus_per_replica;
  const int prefill_base = prefill_replica * from;
  const int decode_base = pools_[0].replicas * from + decode_replica * to;
  std::vector<std::pair<int, int>> pairs;
  pairs.reserve(static_cast<std::size_t>(from));
  for (int i = 0; i < from; ++i) pairs.emplace_back(prefill_base + i, decode_base + i % to);
  const HardwareSpec& hw = pools_[0].cost->context().hardware();
  cluster_->submit_messages(start_s, hw.network.dimensions.back(), pairs, shard_bytes(tokens), std::move(done));
}

double Pools::next_transfer_event_s() const {
  return cluster_ ? cluster_->next_completion_s() : std::numeric_limits<double>::infinity();
}

void Pools::deliver_transfer_event() { cluster_->deliver_next(); }

double Pools::transfer_s(std::int64_t tokens) const {
  if (!disaggregated()) return 0.0;
  const HardwareSpec& hw = pools_[0].cost->context().hardware();
  return network_->message_s(hw.network.dimensions.back(), shard_bytes(tokens));
}

}  // namespace rapidllm::serving
