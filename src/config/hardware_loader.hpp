// Hardware document -> HardwareSpec (every declared key read and validated).
#pragma once

#include "config/document.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::config {

[[nodiscard]] HardwareSpec read_hardware(const Document& doc);

}  // namespace rapidllm::config
