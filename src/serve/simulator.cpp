// The discrete-event serving simulation behind rapidllm::serve: replicas that each run one
// engine iteration at a time, a router, the arrivals, and the bookkeeping of every request
// through admission, chunked prefill, decode, preemption and completion.
#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <queue>

#include <fmt/format.h>

#include "rapidllm/error.hpp"
#include "rapidllm/serve.hpp"
#include "serve/iteration_cost.hpp"
#include "serve/pools.hpp"
#include "serve/latency_stats.hpp"
#include "serve/options_check.hpp"
#include "serve/time_series.hpp"
#include "serve/workload.hpp"

namespace rapidllm {

namespace serving {
namespace {

struct Request {
  std::int64_t input = 0;
  std::int64_t output = 0;
  double arrival_s = 0.0;
  int replica = 0;
  std::int64_t prefill_target = 0;  // the prompt, or prompt + output so far after a preemption
  std::int64_t prefilled = 0;
  std::int64_t generated = 0;
  std::int64_t cached = 0;  // tokens whose keys and values are in the cache
  std::int64_t blocks = 0;
  double first_token_s = -1.0;
  double last_token_s = 0.0;
  double finish_s = 0.0;
  int preemptions = 0;
  int decode_engine = -1;  // picked when its cache leaves a prefill replica over a shared network
  bool done = false;

  [[nodiscard]] bool decoding() const { return prefilled == prefill_target; }
};

// The KV cache of one replica, shared by its virtual engines.
struct BlockPool {
  std::int64_t total = 0;
  std::int64_t free = 0;
};

// One engine instance with its own scheduler and batch: a replica, or one of the pp
// virtual engines of a pipelined replica. A replica of pp stages keeps pp batches in
// flight (vLLM's virtual engines, TensorRT-LLM's micro-batches): while one batch is in
// stage 2 the next is in stage 1. Each batch still takes the whole pipeline's time, so the
// replica runs pp iterations at once, each as long as one through every stage, sharing its
// KV cache.
struct Replica {
  Role role = Role::both;
  IterationCost* cost = nullptr;
  BlockPool* blocks = nullptr;
  int replica = 0;  // the replica it belongs to
  int batch = 0;    // which of its pp batches in flight
  std::deque<std::int64_t> waiting;
  std::vector<std::int64_t> running;  // admission order
  bool busy = false;
  // The iteration in flight.
  double start_s = 0.0;
  std::vector<std::int64_t> decodes;
  std::vector<std::pair<std::int64_t, std::int64_t>> chunks;  // request, tokens
};

struct Event {
  double time_s;
  std::int64_t order;  // ties: in the order scheduled
  int replica;         // the replica whose iteration ends; -1: an open-loop arrival or a transfer
  std::int64_t request = -1;  // a request whose KV cache reached the decode pool

  bool operator>(const Event& o) const { return time_s != o.time_s ? time_s > o.time_s : order > o.order; }
};

// The engine's options, checked before any costing; returns `scenario` to build with.
const Scenario& checked(const Scenario& scenario, const ServeOptions& options, const Workload& workload) {
  check_engine(options.engine, workload.longest_prompt_tokens(), workload.longest_request_tokens());
  return scenario;
}

class Simulation {
 public:
  Simulation(const Scenario& scenario, const ServeOptions& options)
      : options_(options),
        engine_(options.engine),
        workload_(options.workload),
        pools_(checked(scenario, options, workload_), options, workload_.longest_prompt_tokens(),
               workload_.longest_request_tokens()) {
    result_.engine = engine_.name;
    result_.num_gpus = 0;
    result_.replicas = 0;
    std::size_t pools = 0;
    for (const Pool& pool : pools_.all()) pools += static_cast<std::size_t>(pool.replicas);
    block_pools_.reserve(pools);  // the engines point into it
    for (const Pool& pool : pools_.all()) {
      const int stages = pool.cost->context().degrees().pp;
      for (int i = 0; i < pool.replicas; ++i) {
        block_pools_.push_back({pool.kv.blocks, pool.kv.blocks});
        total_blocks_ += pool.kv.blocks;
        for (int lane = 0; lane < stages; ++lane) {
          Replica r;
          r.role = pool.role;
          r.cost = pool.cost.get();
          r.blocks = &block_pools_.back();
          r.replica = static_cast<int>(block_pools_.size() - 1);
          r.batch = lane;
          by_role_[static_cast<std::size_t>(pool.role)].push_back(static_cast<int>(replicas_.size()));
          replicas_.push_back(std::move(r));
        }
      }
      result_.replicas += pool.replicas;
      result_.num_gpus += pool.replicas * pool.gpus_per_replica;
      if (pool.role != Role::prefill) {  // the replicas that hold whole requests
        result_.gpus_per_replica = pool.gpus_per_replica;
        result_.kv_bytes_per_token = pool.kv.bytes_per_token;
        result_.kv_blocks_per_replica = pool.kv.blocks;
        result_.kv_tokens_per_replica = pool.kv.tokens;
      }
    }
    if (pools_.disaggregated()) {
      result_.prefill_replicas = pools_.all()[0].replicas;
      result_.decode_replicas = pools_.all()[1].replicas;
    }
  }

  ServeResult run() {
    Arrival a;
    if (workload_.closed_loop()) {
      for (int c = 0; c < options_.workload.concurrency && workload_.next_closed(0.0, a); ++c) arrive(a);
    } else if (workload_.next_open(a)) {
      pending_ = a;
      push(a.time_s, -1);
    }
    start_idle_replicas();  // a closed loop's first requests are already queued
    while (!events_.empty() || std::isfinite(pools_.next_transfer_event_s())) {
      // KV caches in flight over a shared network: their events interleave with the rest.
      const double transfer_s = pools_.next_transfer_event_s();
      if (events_.empty() || transfer_s < events_.top().time_s) {
        advance_to(transfer_s);
        pools_.deliver_transfer_event();
        continue;
      }
      const Event e = events_.top();
      events_.pop();
      advance_to(e.time_s);
      if (e.request >= 0) {
        reach_decode_pool(e.request);
      } else if (e.replica < 0) {
        arrive(pending_);
        // Every arrival at this instant (an offline run's whole queue) before any iteration.
        while (workload_.next_open(a)) {
          if (a.time_s > now_) {
            pending_ = a;
            push(a.time_s, -1);
            break;
          }
          arrive(a);
        }
      } else {
        finish_iteration(e.replica);
      }
      start_idle_replicas();
    }
    return summarize_run();
  }

 private:
  void start_idle_replicas() {
    for (std::size_t r = 0; r < replicas_.size(); ++r) {
      if (!replicas_[r].busy) start_iteration(static_cast<int>(r));
    }
  }

  void push(double time_s, int replica, std::int64_t request = -1) {
    events_.push(Event{time_s, order_++, replica, request});
  }

  // Integrates the requests in the system and the KV use up to `t`.
  void advance_to(double t) {
    const double dt = t - now_;
    if (dt > 0.0) {
      in_system_area_ += dt * static_cast<double>(in_system_);
      used_blocks_area_ += dt * static_cast<double>(used_blocks_);
      record_sample(dt);
      now_ = t;
    }
  }

  void record_sample(double dt) {
    const double used = static_cast<double>(used_blocks_) / static_cast<double>(total_blocks_);
    kv_used_max_ = std::max(kv_used_max_, used);
    series_.add(now_, dt, used, static_cast<double>(running_), static_cast<double>(waiting_));
  }

  std::int64_t blocks_for(std::int64_t tokens) const { return (tokens + engine_.block_size - 1) / engine_.block_size; }

  int route(Role role) {
    const std::vector<int>& ids = by_role_[static_cast<std::size_t>(role)];
    auto& next = routed_[static_cast<std::size_t>(role)];
    if (options_.router == ServeRouter::round_robin) return ids[static_cast<std::size_t>(next++ % ids.size())];
    const auto load = [&](int i) {
      const Replica& r = replicas_[static_cast<std::size_t>(i)];
      return r.running.size() + r.waiting.size();
    };
    int best = ids.front();
    for (int i : ids) {
      if (load(i) < load(best)) best = i;
    }
    return best;
  }

  void arrive(const Arrival& a) {
    Request q;
    q.input = a.input_tokens;
    q.output = a.output_tokens;
    q.arrival_s = a.time_s;
    q.prefill_target = a.input_tokens;
    q.replica = route(pools_.disaggregated() ? Role::prefill : Role::both);
    requests_.push_back(q);
    replicas_[static_cast<std::size_t>(q.replica)].waiting.push_back(static_cast<std::int64_t>(requests_.size() - 1));
    ++in_system_;
    ++waiting_;
    first_arrival_s_ = std::min(first_arrival_s_, a.time_s);
  }

  void free(Replica& r, Request& q) {
    r.blocks->free += q.blocks;
    used_blocks_ -= q.blocks;
    q.blocks = 0;
  }

  bool grow(Replica& r, Request& q, std::int64_t tokens) {
    const std::int64_t need = blocks_for(tokens) - q.blocks;
    if (need <= 0) return true;
    if (need > r.blocks->free) return false;
    r.blocks->free -= need;
    used_blocks_ += need;
    q.blocks += need;
    return true;
  }

  // Recompute preemption of the newest running request: its cache is dropped and its
  // prompt and output so far are prefilled again when it is readmitted.
  void preempt_newest(Replica& r) {
    const std::int64_t id = r.running.back();
    r.running.pop_back();
    Request& q = requests_[static_cast<std::size_t>(id)];
    free(r, q);
    q.prefill_target = q.input + q.generated;
    q.prefilled = 0;
    q.cached = 0;
    ++q.preemptions;
    ++result_.preemptions;
    series_.count_preemption(now_);
    r.waiting.push_front(id);
    --running_;
    ++waiting_;
  }

  void start_iteration(int index) {
    Replica& r = replicas_[static_cast<std::size_t>(index)];
    r.decodes.clear();
    r.chunks.clear();
    std::int64_t budget = engine_.max_num_batched_tokens;
    const auto prefill_work = [&] {
      // Prompts already under way, then new requests first come first served.
      for (std::int64_t id : r.running) {
        Request& q = requests_[static_cast<std::size_t>(id)];
        if (q.decoding() || budget == 0) continue;
        std::int64_t c = std::min(q.prefill_target - q.prefilled, budget);
        if (!engine_.reserve_full_sequence) {
          c = std::min(c, (q.blocks + r.blocks->free) * engine_.block_size - q.cached);
          if (c <= 0 || !grow(r, q, q.cached + c)) continue;
        }
        r.chunks.emplace_back(id, c);
        budget -= c;
      }
      while (!r.waiting.empty() && budget > 0 && static_cast<int>(r.running.size()) < engine_.max_num_seqs) {
        const std::int64_t id = r.waiting.front();
        Request& q = requests_[static_cast<std::size_t>(id)];
        if (q.decoding()) break;  // a transferred cache waiting for blocks (admit_transferred)
        const std::int64_t c = engine_.chunked_prefill ? std::min(q.prefill_target, budget) : q.prefill_target;
        if (c > budget) break;
        const std::int64_t reserve = engine_.reserve_full_sequence ? q.input + q.output : c;
        if (!grow(r, q, reserve)) break;
        r.waiting.pop_front();
        r.running.push_back(id);
        --waiting_;
        ++running_;
        r.chunks.emplace_back(id, c);
        budget -= c;
      }
    };
    // Requests prefilled on the prefill pool, their caches arrived: first come first
    // served, blocks for the cache, no prompt to run; they decode in this iteration.
    const auto admit_transferred = [&] {
      while (!r.waiting.empty() && static_cast<int>(r.running.size()) < engine_.max_num_seqs) {
        const std::int64_t id = r.waiting.front();
        Request& q = requests_[static_cast<std::size_t>(id)];
        if (!q.decoding() || !grow(r, q, engine_.reserve_full_sequence ? q.input + q.output : q.cached)) break;
        r.waiting.pop_front();
        r.running.push_back(id);
        --waiting_;
        ++running_;
      }
    };
    const auto decode_work = [&] {
      for (std::size_t i = 0; i < r.running.size() && budget > 0; ++i) {
        const std::int64_t id = r.running[i];
        Request& q = requests_[static_cast<std::size_t>(id)];
        if (!q.decoding()) continue;
        bool preempted_self = false;
        while (!grow(r, q, q.cached + 1)) {
          if (r.running.back() == id) preempted_self = true;
          preempt_newest(r);
          if (preempted_self) break;
        }
        if (preempted_self) break;
        r.decodes.push_back(id);
        --budget;
      }
    };
    if (r.role == Role::decode) admit_transferred();
    if (r.role == Role::prefill) {
      prefill_work();
    } else if (engine_.policy == ServePolicy::decode_first) {
      decode_work();
      prefill_work();
    } else {
      prefill_work();
      if (r.chunks.empty()) decode_work();
    }
    if (r.decodes.empty() && r.chunks.empty()) {
      r.busy = false;
      return;
    }
    std::int64_t context = 0;
    for (std::int64_t id : r.decodes) context += requests_[static_cast<std::size_t>(id)].cached;
    chunk_buffer_.clear();
    std::int64_t prefill_tokens = 0;
    for (const auto& [id, c] : r.chunks) {
      const Request& q = requests_[static_cast<std::size_t>(id)];
      chunk_buffer_.push_back({c, q.cached, q.prefilled + c == q.prefill_target});
      prefill_tokens += c;
    }
    const double t = r.cost->time_s(static_cast<std::int64_t>(r.decodes.size()), context, chunk_buffer_) +
                     engine_.iteration_overhead_s;
    r.busy = true;
    r.start_s = now_;
    ++result_.iterations;
    batch_tokens_ += static_cast<std::int64_t>(r.decodes.size()) + prefill_tokens;
    if (options_.record_iterations) {
      result_.iteration_log.push_back({r.replica, now_, now_ + t, static_cast<int>(r.decodes.size()), prefill_tokens,
                                       static_cast<int>(r.chunks.size()),
                                       static_cast<int>(r.blocks->total - r.blocks->free), r.batch});
    }
    push(now_ + t, index);
  }

  void emit_token(Request& q) {
    if (q.first_token_s < 0.0) {
      q.first_token_s = now_;
    } else {
      gaps_.add(now_ - q.last_token_s);
    }
    q.last_token_s = now_;
    ++q.generated;
    ++result_.output_tokens;
  }

  void finish_iteration(int index) {
    Replica& r = replicas_[static_cast<std::size_t>(index)];
    r.busy = false;
    for (std::int64_t id : r.decodes) {
      Request& q = requests_[static_cast<std::size_t>(id)];
      ++q.cached;
      emit_token(q);
    }
    for (const auto& [id, c] : r.chunks) {
      Request& q = requests_[static_cast<std::size_t>(id)];
      q.prefilled += c;
      q.cached += c;
      if (q.decoding()) emit_token(q);
    }
    bool finished = false;
    for (std::int64_t id : r.running) {
      Request& q = requests_[static_cast<std::size_t>(id)];
      if (r.role == Role::prefill && q.decoding() && q.generated < q.output) {
        hand_off(r, id, q);
        finished = true;
        continue;
      }
      if (q.generated < q.output) continue;
      q.done = true;
      q.finish_s = now_;
      free(r, q);
      complete(id, q);
      finished = true;
    }
    if (finished) {
      std::erase_if(r.running, [&](std::int64_t id) {
        const Request& q = requests_[static_cast<std::size_t>(id)];
        return q.done || q.replica != static_cast<int>(&r - replicas_.data());
      });
    }
  }

  // A prefilled request leaves the prefill pool: its cache moves to the decode pool.
  void hand_off(Replica& r, std::int64_t id, Request& q) {
    free(r, q);
    q.replica = -1;  // in flight between the pools
    --running_;
    ++transferring_;
    ++transfers_;
    if (pools_.transfers_share_links()) {
      // The destination is known when the cache leaves: its links carry it.
      q.decode_engine = route(Role::decode);
      const int prefill = r.replica;
      const int decode = replicas_[static_cast<std::size_t>(q.decode_engine)].replica - pools_.all()[0].replicas;
      const double start = now_;
      pools_.submit_transfer(now_, q.cached, prefill, decode, [this, id, start](double t) {
        transfer_sum_s_ += t - start;
        push(t, -1, id);
      });
      return;
    }
    const double t = pools_.transfer_s(q.cached);
    transfer_sum_s_ += t;
    push(now_ + t, -1, id);
  }

  void reach_decode_pool(std::int64_t id) {
    Request& q = requests_[static_cast<std::size_t>(id)];
    q.replica = q.decode_engine >= 0 ? q.decode_engine : route(Role::decode);
    replicas_[static_cast<std::size_t>(q.replica)].waiting.push_back(id);
    --transferring_;
    ++waiting_;
  }

  void complete(std::int64_t id, const Request& q) {
    --in_system_;
    --running_;
    ++result_.requests;
    result_.input_tokens += q.input;
    last_finish_s_ = std::max(last_finish_s_, now_);
    ttft_.push_back(q.first_token_s - q.arrival_s);
    e2e_.push_back(q.finish_s - q.arrival_s);
    const double tpot = q.output > 1 ? (q.finish_s - q.first_token_s) / static_cast<double>(q.output - 1) : 0.0;
    if (q.output > 1) tpot_.push_back(tpot);
    const bool good = (!options_.slo_ttft_s || q.first_token_s - q.arrival_s <= *options_.slo_ttft_s) &&
                      (!options_.slo_tpot_s || tpot <= *options_.slo_tpot_s);
    good_ += good ? 1 : 0;
    if (options_.keep_requests) {
      result_.request_log.push_back({id, q.replica, q.arrival_s, q.input, q.output, q.first_token_s, q.finish_s,
                                     q.preemptions});
    }
    Arrival a;
    if (workload_.closed_loop() && workload_.next_closed(now_, a)) arrive(a);
  }

  ServeResult summarize_run() {
    if (result_.requests != static_cast<std::int64_t>(requests_.size())) {
      throw InfeasibleError(fmt::format(
          "{} of {} requests could not be admitted (a prompt longer than the token budget with chunked prefill off, "
          "or a request larger than the KV cache)",
          static_cast<std::int64_t>(requests_.size()) - result_.requests, requests_.size()));
    }
    ServeResult& s = result_;
    s.duration_s = s.requests > 0 ? last_finish_s_ - first_arrival_s_ : 0.0;
    s.ttft = summarize(ttft_);
    s.tpot = summarize(tpot_);
    s.e2e = summarize(e2e_);
    s.itl = gaps_.summary();
    if (s.duration_s > 0.0) {
      s.requests_per_s = static_cast<double>(s.requests) / s.duration_s;
      s.output_tokens_per_s = static_cast<double>(s.output_tokens) / s.duration_s;
      s.total_tokens_per_s = static_cast<double>(s.output_tokens + s.input_tokens) / s.duration_s;
      s.output_tokens_per_s_per_gpu = s.output_tokens_per_s / s.num_gpus;
      s.goodput_requests_per_s = static_cast<double>(good_) / s.duration_s;
    }
    s.slo_attainment = s.requests > 0 ? static_cast<double>(good_) / static_cast<double>(s.requests) : 1.0;
    s.mean_batch_tokens = s.iterations > 0 ? static_cast<double>(batch_tokens_) / static_cast<double>(s.iterations) : 0.0;
    const double span = now_ - first_arrival_s_;
    const double capacity = static_cast<double>(total_blocks_);
    if (transfers_ > 0) s.kv_transfer_mean_s = transfer_sum_s_ / static_cast<double>(transfers_);
    if (span > 0.0) {
      s.mean_requests_in_system = in_system_area_ / span;
      s.kv_used_fraction_mean = used_blocks_area_ / span / capacity;
    }
    s.kv_used_fraction_max = kv_used_max_;
    s.samples = series_.samples();
    return std::move(result_);
  }

  const ServeOptions& options_;
  const ServeEngine& engine_;
  Workload workload_;
  Pools pools_;
  std::int64_t total_blocks_ = 0;  // all replicas
  std::vector<BlockPool> block_pools_;  // one per replica
  std::vector<Replica> replicas_;       // engines: pp per replica
  std::array<std::vector<int>, 3> by_role_;  // replica indices by Role
  std::vector<Request> requests_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::int64_t order_ = 0;
  Arrival pending_;
  std::array<std::int64_t, 3> routed_{};  // round-robin position by Role
  std::int64_t transferring_ = 0;
  std::int64_t transfers_ = 0;
  double transfer_sum_s_ = 0.0;
  std::vector<PrefillChunk> chunk_buffer_;
  double now_ = 0.0;
  double first_arrival_s_ = std::numeric_limits<double>::infinity();
  double last_finish_s_ = 0.0;
  std::int64_t in_system_ = 0;
  std::int64_t running_ = 0;
  std::int64_t waiting_ = 0;
  std::int64_t used_blocks_ = 0;  // all replicas
  double in_system_area_ = 0.0;
  double used_blocks_area_ = 0.0;
  std::int64_t batch_tokens_ = 0;
  std::int64_t good_ = 0;
  std::vector<double> ttft_, tpot_, e2e_;
  GapHistogram gaps_;
  TimeSeries series_;
  double kv_used_max_ = 0.0;
  ServeResult result_;
};

}  // namespace
}  // namespace serving

ServeResult serve(const Scenario& scenario, const ServeOptions& options) {
  serving::Simulation sim(scenario, options);
  return sim.run();
}

}  // namespace rapidllm
