#include "api/execution_note.hpp"

#include <spdlog/spdlog.h>

namespace rapidllm::detail {

void note_execution_backend(const HardwareSpec& hardware) {
  if (hardware.execution.mode != ExecutionMode::analytical) {
    spdlog::warn("execution_backend asks for '{}'; this build times communication with the analytical network "
                 "model (no congestion)",
                 to_string(hardware.execution.mode));
  }
}

}  // namespace rapidllm::detail
