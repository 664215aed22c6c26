// validate(): `rapidllm validate --format json`, every published measurement predicted and
// compared. Without folders it reads the checkout the module was built from.
#include <filesystem>
#include <string>

#include <pybind11/pybind11.h>

#include "arguments.hpp"
#include "bindings.hpp"
#include "rapidllm/report.hpp"
#include "rapidllm/validation.hpp"

namespace py = pybind11;

namespace rapidllm::python {

namespace {

// `given`, or the checkout's folder `rel` when it is empty (an installed module whose
// checkout has gone must be told where the data is).
std::string folder(const std::string& given, const std::string& rel, const std::string& argument) {
  if (!given.empty()) return given;
  const std::string path = std::string(RAPIDLLM_SOURCE_DIR) + "/" + rel;
  if (!std::filesystem::is_directory(path)) {
    bad_argument("validate", argument, fmt::format("the default folder {} does not exist", path),
                 fmt::format("pass {}= the folder (a rapidllm checkout's {})", argument, rel));
  }
  return path;
}

std::string validate_json(const std::string& data_dir, const std::string& configs_dir, const std::string& source) {
  const std::string data = folder(data_dir, "validation/data", "data_dir");
  const std::string configs = folder(configs_dir, "configs", "configs_dir");
  const py::gil_scoped_release unlocked;
  return render_validation(run_validation(data, configs, source), OutputFormat::json, true);
}

Scenario row_scenario(const std::string& data_dir, const std::string& configs_dir, const std::string& row_id) {
  const std::string data = folder(data_dir, "validation/data", "data_dir");
  const std::string configs = folder(configs_dir, "configs", "configs_dir");
  return validation_row_scenario(data, configs, row_id);
}

}  // namespace

void bind_validate(py::module_& m) {
  m.def("validate", &validate_json, py::arg("data_dir"), py::arg("configs_dir"), py::arg("source"),
        "The validation run as `rapidllm validate --format json` prints it.");
  m.def("validation_scenario", &row_scenario, py::arg("data_dir"), py::arg("configs_dir"), py::arg("row_id"),
        "The scenario a training row is predicted on (`rapidllm validate --explain ROW`).");
  m.attr("source_dir") = std::string(RAPIDLLM_SOURCE_DIR);
}

}  // namespace rapidllm::python
