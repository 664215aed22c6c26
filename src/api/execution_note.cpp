#include "api/execution_note.hpp"

#include <spdlog/spdlog.h>

namespace rapidllm::detail {

void note_execution_backend(const HardwareSpec& hardware) {
  if (hardware.execution.mode != ExecutionMode::analytical) {
    spdlog::warn("execution_backend asks for '{}'; this build times communication with the analytical network "
                 "model (no congestion)",
                 to_string(hardware.execution.mode));
  }
  // The analytical network has no links to degrade: say so rather than predict a healthy
  // network in silence.
  if (!hardware.network.faulty_links.empty()) {
    spdlog::warn("network.faulty_links lists {} degraded or failed link(s); predictions time communication with the "
                 "analytical network model, which does not model link faults, so this is the healthy network's "
                 "prediction (`rapidllm collective --backend flow` shows a fault's effect on one collective)",
                 hardware.network.faulty_links.size());
  }
}

}  // namespace rapidllm::detail
