// rapidllm::serve_layouts: every way to spend the GPUs on aggregated replicas or on
// disaggregated prefill and decode pools (tp in {1, 2, 4, 8}, pp = 1), each simulated on
// the same workload, ranked by goodput per GPU.
#include <algorithm>
#include <array>

#include "rapidllm/error.hpp"
#include "rapidllm/serve.hpp"
#include "serve/options_check.hpp"

namespace rapidllm {

namespace {

constexpr std::array<int, 4> kTp{1, 2, 4, 8};

void run(const Scenario& scenario, ServeOptions options, ServeLayout& layout) {
  Scenario s = scenario;
  options.disaggregated = layout.disaggregated;
  options.keep_requests = false;
  options.record_iterations = false;
  if (!layout.disaggregated) {
    s.hardware.parallelism.tp = layout.aggregated.tp;
    s.hardware.parallelism.pp = layout.aggregated.pp;
    s.hardware.parallelism.replica_count = layout.aggregated.replicas;
  } else {
    s.hardware.parallelism.replica_count = 1;
  }
  try {
    layout.result = serve(s, options);
    layout.goodput_per_gpu = layout.result.goodput_requests_per_s / layout.result.num_gpus;
  } catch (const InfeasibleError& e) {  // a pool whose weights leave no room for a cache
    layout.infeasible = e.what();
  }
}

}  // namespace

std::vector<ServeLayout> serve_layouts(const Scenario& scenario, const ServeOptions& options, int gpus) {
  if (gpus < 1) {
    throw serving::option_error("--layouts", "the GPU count must be >= 1", "e.g. --layouts 16");
  }
  std::vector<ServeLayout> out;
  for (int tp : kTp) {
    if (gpus % tp != 0) continue;
    ServeLayout l;
    l.aggregated = ServePool{gpus / tp, tp, 1};
    out.push_back(l);
  }
  for (int tp_p : kTp) {
    for (int tp_d : kTp) {
      for (int x = 1; x * tp_p < gpus; ++x) {
        const int left = gpus - x * tp_p;
        if (left % tp_d != 0) continue;
        ServeLayout l;
        l.disaggregated = Disaggregation{ServePool{x, tp_p, 1}, ServePool{left / tp_d, tp_d, 1}};
        out.push_back(l);
      }
    }
  }
  for (ServeLayout& l : out) run(scenario, options, l);
  // Best goodput per GPU first; layouts that could not run last, in enumeration order.
  std::stable_sort(out.begin(), out.end(), [](const ServeLayout& a, const ServeLayout& b) {
    if (a.infeasible.empty() != b.infeasible.empty()) return a.infeasible.empty();
    return a.goodput_per_gpu > b.goodput_per_gpu;
  });
  return out;
}

}  // namespace rapidllm
