#include "energy/energy_report.hpp"

#include <spdlog/spdlog.h>

namespace rapidllm::energy {

EnergyReport energy_report(const HardwareSpec& hw, const Energy& dynamic, double seconds, int gpus, double tokens) {
  Energy all = dynamic;
  all.static_j = hw.core.static_power_w * seconds * gpus;
  EnergyReport r;
  r.compute_j = all.compute_j;
  r.on_chip_j = all.on_chip_j;
  r.hbm_j = all.hbm_j;
  r.network_j = all.network_j;
  r.static_j = all.static_j;
  r.energy_j = all.total();
  r.average_power_w = seconds > 0 ? r.energy_j / (seconds * gpus) : 0.0;
  r.j_per_token = tokens > 0 ? r.energy_j / tokens : 0.0;
  // The board's enforced limit: a power cap where one is set, else the TDP.
  const bool capped = hw.core.power_limit_w > 0.0;
  const double limit = capped ? hw.core.power_limit_w : hw.core.max_power_w;
  r.exceeds_max_power = limit > 0 && r.average_power_w > limit;
  if (r.exceeds_max_power) {
    spdlog::warn("predicted average power {:.0f} W per GPU exceeds tech_param.core.{} = {:.0f} W: the GPU "
                 "would throttle its clocks, so the predicted time is optimistic (check the energy constants)",
                 r.average_power_w, capped ? "power_limit" : "max_power", limit);
  }
  return r;
}

}  // namespace rapidllm::energy
