// Which shipped device config a ground-truth row's GPU is, with the variant's memory.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::validate {

// The shipped config for a `gpu` column (A100 and H100 variants), loaded with `overrides`
// (`rapidllm validate --set`) and adjusted for the variant's HBM size and bandwidth; nullopt
// (with `reason`) for GPUs without a config.
[[nodiscard]] std::optional<HardwareSpec> device_for(const std::string& gpu, const std::string& config_dir,
                                                     const std::vector<std::string>& overrides, std::string& reason);

// The software-stack profile a row's framework or engine column names (software_stack.hpp),
// applied to hw for run_type, with the release defaults the column implies (the unfused
// cross-entropy of Megatron-LM's own scripts and of NeMo before 24.07); a stack without a
// profile keeps "auto".
void use_row_stack(HardwareSpec& hw, const std::string& framework, RunType run_type);

// The rank order the ground truth's training frameworks lay their groups out in, innermost
// first: tp, cp, ep, dp, pp (Megatron-Core's parallel_state default "tp-cp-ep-dp-pp", which
// NeMo and Megatron-Bridge run; Megatron-LM 2020 builds its pipeline groups outermost;
// torchtitan's device mesh [pp, dp, cp, tp]; nanotron's parallel/context.py). The shipped
// files list pp before dp, so without this a data-parallel group that fits the NVLink
// domain beside tp and cp (a GB200 NVL72 rack) would be put across racks.
void use_framework_rank_order(HardwareSpec& hw);

}  // namespace rapidllm::validate
