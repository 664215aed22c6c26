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
  r.exceeds_max_power = hw.core.max_power_w > 0 && r.average_power_w > hw.core.max_power_w;
  if (r.exceeds_max_power) {
    spdlog::warn("predicted average power {:.0f} W per GPU exceeds tech_param.core.max_power = {:.0f} W: the GPU "
                 "would throttle its clocks, so the predicted time is optimistic (check the energy constants)",
                 r.average_power_w, hw.core.max_power_w);
  }
  return r;
}

}  // namespace rapidllm::energy
