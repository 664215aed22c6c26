#include "parallel/pipeline_schedule.hpp"

#include "rapidllm/error.hpp"

namespace rapidllm::parallel {

std::optional<std::string> Schedule::broken_rule(int /*pp*/, int /*micro_batches*/) const { return std::nullopt; }

void Schedule::check(int pp, int micro_batches) const {
  if (auto rule = broken_rule(pp, micro_batches)) throw InfeasibleError(*rule);
}

std::vector<PassTask> Schedule::stage_order(int stage, int pp, int micro_batches, int vpp) const {
  // Every schedule's order holds to its rule: no schedule restates it.
  check(pp, micro_batches);
  return issue_order(stage, pp, micro_batches, vpp);
}

PipelineTime Schedule::flush_time(const std::vector<StageTime>& stages, int m, int vpp) const {
  FlushPath path;
  double sum = 0.0;
  double stalls = 0.0;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const double c = stages[i].forward_s + stages[i].backward_s;
    sum += c;
    stalls += stages[i].transfer_stall_s;
    if (c > stages[path.critical].forward_s + stages[path.critical].backward_s) path.critical = i;
  }
  const StageTime& crit = stages[path.critical];
  const double c_max = crit.forward_s + crit.backward_s;
  path.others_s = sum - c_max - 0.5 * (stalls - crit.transfer_stall_s);
  PipelineTime out;
  out.busy_s = m * c_max;
  out.bubble_s = bubble_s(stages, path, vpp);
  out.total_s = out.busy_s + out.bubble_s;
  return out;
}

}  // namespace rapidllm::parallel
