#include "rapidllm/scenario.hpp"

#include "rapidllm/config.hpp"

namespace rapidllm {

Scenario load_scenario(const std::string& hardware_path, const std::string& model_path,
                       const std::vector<std::string>& overrides) {
  LoadedInputs in = load_inputs(hardware_path, model_path, overrides);
  return Scenario{std::move(in.hardware), std::move(in.model), model_path, std::nullopt, overrides};
}

}  // namespace rapidllm
