// Loading configs from files or text, the Scenario type, the settings registry and the
// Hugging Face importer.
#include "inputs.hpp"

#include <optional>
#include <variant>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "rapidllm/config.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/hf_import.hpp"
#include "rapidllm/software_stack.hpp"
#include "rapidllm/parameter_count.hpp"

namespace py = pybind11;

namespace rapidllm::python {

namespace {

bool is_file(const Source& s) {
  const std::string& kind = std::get<0>(s);
  if (kind != "file" && kind != "text") throw Error("config source kind must be 'file' or 'text', not '" + kind + "'");
  return kind == "file";
}

// The file whose schema declares the override's first key; nullopt when no setting starts
// with it (the loader then refuses it with the registry's "did you mean").
std::optional<ConfigFile> owner(const std::string& override_text) {
  const std::string first = override_text.substr(0, override_text.find_first_of(".[="));
  for (const SettingInfo& s : list_settings()) {
    if (s.path == first || s.path.starts_with(first + ".") || s.path.starts_with(first + "[")) return s.file;
  }
  return std::nullopt;
}

std::string workload_name(const Scenario& s) {
  if (const auto* llm = std::get_if<LlmModelSpec>(&s.model.workload)) return std::string(to_string(llm->run_type));
  return "gemm";
}

}  // namespace

HardwareSpec load_hardware_from(const Source& hardware, const std::vector<std::string>& overrides) {
  return is_file(hardware) ? load_hardware(std::get<1>(hardware), overrides)
                           : load_hardware_text(std::get<1>(hardware), std::get<2>(hardware), overrides);
}

Scenario load_scenario_from(const Source& hardware, const Source& model, const std::vector<std::string>& overrides) {
  const bool hw_file = is_file(hardware);
  const bool model_file = is_file(model);
  if (hw_file && model_file) return load_scenario(std::get<1>(hardware), std::get<1>(model), overrides);
  std::vector<std::string> hw_sets;
  std::vector<std::string> model_sets;
  for (const std::string& o : overrides) (owner(o) == ConfigFile::model ? model_sets : hw_sets).push_back(o);
  Scenario s;
  s.hardware = load_hardware_from(hardware, hw_sets);
  s.model = model_file ? load_model(std::get<1>(model), model_sets)
                       : load_model_text(std::get<1>(model), std::get<2>(model), model_sets);
  s.model_file = model_file ? std::get<1>(model) : std::get<2>(model);
  // As load_scenario does: an inference workload takes its own software-stack profile.
  if (const auto* llm = std::get_if<LlmModelSpec>(&s.model.workload)) apply_software_stack(s.hardware.sw, llm->run_type);
  s.overrides = overrides;  // reports echo them, as load_scenario's do
  return s;
}

void bind_inputs(py::module_& m) {
  py::class_<Scenario>(m, "Scenario", "A loaded, validated hardware + model pair (load_scenario).")
      .def_property_readonly("hardware_file", [](const Scenario& s) { return s.hardware.source; },
                             "The hardware file (or the name given to a dict).")
      .def_property_readonly("model_file", [](const Scenario& s) { return s.model_file; },
                             "The model file (or the name given to a dict).")
      .def_property_readonly("workload", &workload_name, "'training', 'inference' or 'gemm'.")
      .def("__repr__", [](const Scenario& s) {
        return "<rapidllm.Scenario " + workload_name(s) + ": " + s.model_file + " on " + s.hardware.source + ">";
      });

  m.def("load_scenario", &load_scenario_from, py::arg("hardware"), py::arg("model"), py::arg("overrides"),
        "Loads and validates a hardware and a model config with overrides ('a.b=v' texts).");

  m.def("settings", [] {
    py::list out;
    for (const SettingInfo& s : list_settings()) {
      py::dict d;
      d["key"] = s.path;
      d["file"] = s.file == ConfigFile::hardware ? "hardware" : "model";
      d["type"] = s.type;
      d["unit"] = s.unit;
      d["default"] = s.required ? py::object(py::none()) : py::object(py::str(s.default_value));
      d["required"] = s.required;
      d["description"] = s.doc;
      out.append(std::move(d));
    }
    return out;
  }, "Every declared setting (the registry behind `rapidllm config list`).");

  m.def(
      "import_hf",
      [](const Source& config, const std::string& run_type,
         std::optional<std::int64_t> global_batch_size, std::optional<std::int64_t> seq_len,
         std::optional<std::int64_t> decode_len, bool use_flashattention) {
        if (run_type != "training" && run_type != "inference") {
          throw ConfigError(SourceLocation{}, "run_type", "'" + run_type + "' is not training or inference",
                            "run_type='training' or run_type='inference'");
        }
        HfImportOptions options;
        options.run_type = run_type == "training" ? RunType::training : RunType::inference;
        options.global_batch_size = global_batch_size;
        options.seq_len = seq_len;
        options.decode_len = decode_len;
        options.use_flashattention = use_flashattention;
        const HfImportResult r = is_file(config) ? import_hf_config_file(std::get<1>(config), options)
                                                 : import_hf_config(std::get<1>(config), std::get<2>(config), options);
        const ParameterCounts counts = parameter_counts(r.model);
        py::dict d;
        d["yaml"] = r.yaml;
        d["architecture"] = r.architecture;
        d["warnings"] = r.warnings;
        d["total_parameters"] = counts.total;
        d["active_parameters"] = counts.active;
        return d;
      },
      py::arg("config"), py::arg("run_type"), py::arg("global_batch_size"), py::arg("seq_len"),
      py::arg("decode_len"), py::arg("use_flashattention"), "A Hugging Face config.json text as a model YAML.");
}

}  // namespace rapidllm::python
