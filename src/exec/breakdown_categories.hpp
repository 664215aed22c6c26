// Every category a prediction's time breakdown can hold, as one fixed list: reports that
// want a column per category (CSV, DataFrames) take it from here, so their columns do not
// depend on which categories a given run happened to produce.
#pragma once

#include <string_view>
#include <vector>

namespace rapidllm::exec {

// The step-level categories that no op class or communication purpose names.
inline constexpr std::string_view kRecomputeCategory = "compute.recompute";
inline constexpr std::string_view kPipelineBubbleCategory = "pipeline_bubble";
inline constexpr std::string_view kOptimizerCategory = "optimizer";
inline constexpr std::string_view kHostOverheadCategory = "host_overhead";

// compute.<op class> for every model::OpClass, compute.recompute, communication.<purpose>
// for every model::CommPurpose (both in enum order), pipeline_bubble, optimizer,
// host_overhead. Training and inference breakdowns (prefill and decode) only ever hold
// names from this list.
[[nodiscard]] const std::vector<std::string_view>& breakdown_categories();

}  // namespace rapidllm::exec
