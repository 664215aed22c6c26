#include "io/plan_fields.hpp"

namespace rapidllm::io {

std::array<nlohmann::json, kPlanFields.size()> plan_values(const HardwareSpec& hw, RunType run, int micro_batch_size) {
  const ParallelismSpec& p = hw.parallelism;
  const bool training = run == RunType::training;
  const nlohmann::json none;
  return {p.tp,
          p.tp_sp,
          p.cp,
          training ? p.ep : p.moe_dp,
          p.pp,
          training ? p.dp : p.replica_count,
          training ? nlohmann::json(to_string(p.pp_schedule)) : none,
          training ? nlohmann::json(p.vpp) : none,
          training ? nlohmann::json(micro_batch_size) : none,
          training ? nlohmann::json(hw.sw.dp_zero_stage) : none,
          training ? nlohmann::json(to_string(hw.sw.recompute)) : none,
          dtype_name(hw.sw.precision.matmul.dtype),
          to_string(hw.execution.mode)};
}

nlohmann::json plan_json(const HardwareSpec& hw, RunType run, int micro_batch_size) {
  const auto values = plan_values(hw, run, micro_batch_size);
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t i = 0; i < kPlanFields.size(); ++i) {
    if (!values[i].is_null()) out[std::string(kPlanFields[i])] = values[i];
  }
  return out;
}

}  // namespace rapidllm::io
