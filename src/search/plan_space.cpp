#include "search/plan_space.hpp"

#include "parallel/pipeline_schedule.hpp"
#include "parallel/placement.hpp"

#include <algorithm>
#include <iterator>
#include <limits>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace rapidllm::search {

namespace {

std::vector<int> powers_of_two(int limit) {
  std::vector<int> out;
  for (int v = 1; v <= limit; v *= 2) out.push_back(v);
  return out;
}

template <class T>
void fill(std::vector<T>& axis, std::vector<T> defaults) {
  if (axis.empty()) axis = std::move(defaults);
}

// A rule's reason, formatted with a compile-time format into one buffer: a sweep gives
// one to most of its points.
template <typename Format, typename... Args>
std::string reason(const Format& format, const Args&... args) {
  fmt::memory_buffer b;
  fmt::format_to(std::back_inserter(b), format, args...);
  return fmt::to_string(b);
}

}  // namespace

SweepAxes complete_axes(const SweepAxes& in, const LlmModelSpec& model, int gpus) {
  SweepAxes a = in;
  const bool training = model.run_type == RunType::training;
  fill(a.tp, powers_of_two(std::min(8, gpus)));
  fill(a.sp, {true});
  fill(a.cp, powers_of_two(model.seq_len >= 16384 ? 4 : 1));
  std::vector<int> ep{1};
  if (model.moe.num_experts > 1) {
    ep.clear();
    for (int v = 1; v <= std::min(64, model.moe.num_experts); v *= 2) {
      if (model.moe.num_experts % v == 0) ep.push_back(v);
    }
  }
  fill(a.ep, ep);
  fill(a.pp, powers_of_two(std::min({64, model.num_layers, gpus})));
  fill(a.placement, {std::nullopt});
  if (training) {
    fill(a.schedule, {PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved_1f1b, PipelineSchedule::zero_bubble});
    fill(a.vpp, {2, 4});
    fill(a.micro_batch_size, {1, 2, 4, 8});
    fill(a.zero_stage, {1});
    fill(a.recompute, {ActivationRecompute::none, ActivationRecompute::selective, ActivationRecompute::full});
  } else {
    // Inference runs one batch through the stages: no schedule, micro-batches or optimizer.
    a.schedule = {PipelineSchedule::one_f_one_b};
    a.vpp = {1};
    a.micro_batch_size = {1};
    a.zero_stage = {0};
    a.recompute = {ActivationRecompute::none};
  }
  return a;
}

std::vector<Plan> enumerate_plans(const SweepAxes& a, int gpus) {
  // The inner axes (schedule and vpp, micro-batch size, ZeRO, recompute, placement) of one
  // (tp, sp, cp, ep, pp) split.
  const auto add_inner = [&](Plan base, std::vector<Plan>& out) {
    for (PipelineSchedule schedule : a.schedule) {
      // Schedules only differ with a pipeline; interleaving takes its vpp axis.
      if (base.pp == 1 && schedule != a.schedule.front()) continue;
      const bool interleaved = parallel::schedule_of(schedule).interleaves();
      const std::vector<int> one{1};
      for (int vpp : interleaved ? a.vpp : one) {
        for (int mbs : a.micro_batch_size) {
          for (int zero : a.zero_stage) {
            for (ActivationRecompute rc : a.recompute) {
              for (const auto& placement : a.placement) {
                Plan p = base;
                p.schedule = base.pp == 1 ? PipelineSchedule::one_f_one_b : schedule;
                p.vpp = vpp;
                p.micro_batch_size = mbs;
                p.zero_stage = zero;
                p.recompute = rc;
                p.placed = placement.has_value();
                if (placement) p.order = *placement;
                out.push_back(p);
              }
            }
          }
        }
      }
    }
  };
  const bool both_sp = std::find(a.sp.begin(), a.sp.end(), false) != a.sp.end();
  std::vector<Plan> out;
  for (int tp : a.tp) {
    for (bool sp : a.sp) {
      if (sp && tp == 1 && both_sp) continue;  // one tp = 1 plan
      for (int cp : a.cp) {
        for (int ep : a.ep) {
          for (int pp : a.pp) {
            const long long used = 1LL * tp * cp * ep * pp;
            if (used > gpus || gpus % used != 0) continue;
            Plan base;
            base.tp = tp;
            base.sp = sp && tp > 1;
            base.cp = cp;
            base.ep = ep;
            base.pp = pp;
            base.dp = static_cast<int>(gpus / used);
            add_inner(base, out);
          }
        }
      }
    }
  }
  return out;
}

std::optional<std::string> broken_rule(const Plan& p, const LlmModelSpec& m) {
  const auto& at = m.attention;
  if (at.num_heads % p.tp != 0) return reason(FMT_COMPILE("num_heads % tp != 0 ({} heads, tp {})"), at.num_heads, p.tp);
  const int kv = at.kv_heads > 0 ? at.kv_heads : at.num_heads;
  if (at.type != AttentionType::mla && kv % p.tp != 0 && p.tp % kv != 0) {
    return reason(FMT_COMPILE("kv_heads and tp must divide one another ({} KV heads, tp {})"), kv, p.tp);
  }
  if (m.moe.num_experts > 1 && m.moe.num_experts % p.ep != 0) {
    return reason(FMT_COMPILE("num_experts % ep != 0 ({} experts, ep {})"), m.moe.num_experts, p.ep);
  }
  if (p.tp > 1 && p.ep > 1 && !p.sp) return "tp > 1 with expert parallelism needs sequence parallelism";
  const int chunks = p.pp * p.vpp;
  if (m.num_layers < chunks) {
    return reason(FMT_COMPILE("layers < pp x vpp ({} layers, {} chunks)"), m.num_layers, chunks);
  }
  if (m.run_type == RunType::inference) return std::nullopt;
  if (m.seq_len % p.cp != 0) return reason(FMT_COMPILE("seq_len % cp != 0 ({} tokens, cp {})"), m.seq_len, p.cp);
  const long long replicas = 1LL * p.dp * p.ep * m.gradient_accumulation_steps;
  if (m.global_batch_size % replicas != 0) {
    return reason(FMT_COMPILE("global_batch_size % (dp x ep x gradient_accumulation_steps) != 0 ({} sequences, {})"),
                  m.global_batch_size, replicas);
  }
  const long long per_replica = m.global_batch_size / replicas;
  if (per_replica % p.micro_batch_size != 0) {
    return reason(FMT_COMPILE("sequences per data-parallel rank % micro-batch size != 0 ({} sequences, {})"),
                  per_replica, p.micro_batch_size);
  }
  const long long micro_batches = per_replica / p.micro_batch_size;
  // Past int the prediction refuses the count itself (parallel::training_batching).
  if (micro_batches <= std::numeric_limits<int>::max()) {
    if (auto rule = parallel::schedule_of(p.schedule).broken_rule(p.pp, static_cast<int>(micro_batches))) return rule;
  }
  if (p.zero_stage == 3 && p.ep > 1) return "ZeRO-3 with expert parallelism is not modelled";
  return std::nullopt;
}

void apply_plan(const Plan& p, RunType run, HardwareSpec& hw) {
  if (p.placed) parallel::order_parallelisms(hw.network, p.order);
  ParallelismSpec& par = hw.parallelism;
  par.tp = p.tp;
  par.tp_sp = p.sp;
  par.cp = p.cp;
  par.pp = p.pp;
  if (run == RunType::training) {
    par.dp = p.dp;
    par.ep = p.ep;
    par.tp_ep = true;
    par.pp_schedule = p.schedule;
    par.vpp = p.vpp;
    par.micro_batch_size = p.micro_batch_size;
    hw.sw.dp_zero_stage = p.zero_stage;
    hw.sw.recompute = p.recompute;
  } else {
    par.replica_count = p.dp;
    par.moe_dp = p.ep;
  }
}

}  // namespace rapidllm::search
