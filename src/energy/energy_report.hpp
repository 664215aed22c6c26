// Turns the dynamic energy of a run into the reported figures: adds static power x time,
// derives average power per GPU and energy per token, and flags (and warns about) an
// average power above the board limit.
#pragma once

#include "energy/op_energy.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/llm_prediction.hpp"

namespace rapidllm::energy {

[[nodiscard]] EnergyReport energy_report(const HardwareSpec& hw, const Energy& dynamic, double seconds, int gpus,
                                         double tokens);

}  // namespace rapidllm::energy
