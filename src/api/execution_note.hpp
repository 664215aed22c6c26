// Tells the user which network model times a prediction when the config asks for another.
#pragma once

#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::detail {

// The execution_backend modes other than analytical (RAPID-LLM's AstraSim modes) arrive
// with the event-driven executor; until then a config that asks for one, or that lists
// faulty links, is warned on the log that communication is timed with the analytical
// network model, which ignores them.
void note_execution_backend(const HardwareSpec& hardware);

}  // namespace rapidllm::detail
