// The unit of work (docs/architecture.md): the hardware (with its parallelism and software stack) and
// the workload, loaded, validated and in SI units. Every prediction is a pure function of it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rapidllm/dtype.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm {

struct Scenario {
  HardwareSpec hardware;
  ModelSpec model;
  std::string model_file;  // what reports name the model by (its file); empty when there is none
  // The dtype a GEMM workload runs in; absent = sw_param.precision.tensor_format. LLM
  // workloads take theirs from the precision settings.
  std::optional<DType> gemm_dtype;
  // The command-line overrides ("key=value", as given) the specs were loaded with: reports
  // echo them. load_scenario fills it; a scenario built by hand says what it applied.
  std::vector<std::string> overrides;
};

// load_inputs (config.hpp) as a Scenario named after model_path. Throws ConfigError.
[[nodiscard]] Scenario load_scenario(const std::string& hardware_path, const std::string& model_path,
                                     const std::vector<std::string>& overrides = {});

}  // namespace rapidllm
