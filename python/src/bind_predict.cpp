// predict() and collective(): each returns the JSON text `rapidllm predict|collective
// --format json` prints (render_prediction / render_collective), which the Python layer
// parses; the work runs without the GIL.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "arguments.hpp"
#include "bindings.hpp"
#include "callback.hpp"
#include "inputs.hpp"
#include "rapidllm/predict.hpp"
#include "rapidllm/report.hpp"
#include "rapidllm/units.hpp"

namespace py = pybind11;

namespace rapidllm::python {

namespace {

std::string predict_json(const Scenario& scenario, const std::string& trace, const std::string& trace_ranks,
                         const std::string& chakra) {
  const py::gil_scoped_release unlocked;
  PredictOptions options;
  options.exports = StepExports{trace, trace_ranks, chakra};
  const Result result = predict(scenario, options);
  if (!result.ok()) throw InfeasibleError(result.message);
  return render_prediction(result, scenario, OutputFormat::json);
}

// The --dim check of `rapidllm collective`: a dimension the hardware has.
void require_dimension(const HardwareSpec& hw, const std::string& id) {
  if (const auto unknown = unknown_dimension(hw, id)) bad_argument("collective", "dim", unknown->problem, unknown->hint);
}

std::string collective_json(const Source& hardware, const std::string& op, const std::string& bytes, int ranks,
                            const std::optional<std::string>& dim, const std::string& backend,
                            const std::vector<std::string>& overrides, const std::optional<py::function>& progress) {
  const auto size = parse_size_bytes(bytes);
  if (!size) bad_argument("collective", "bytes", fmt::format("'{}' is not a size", bytes), "e.g. '1GiB', '64MiB' or 1e9");
  // nccl-tests sizes: whole bytes, and at most an exbibyte (a collective's time stays finite).
  if (*size != std::floor(*size) || !(*size >= 0.0) || *size > 0x1p60) {
    bad_argument("collective", "bytes", fmt::format("'{}' is not a whole number of bytes up to 1 EiB", bytes), "");
  }
  if (ranks < 1) bad_argument("collective", "ranks", fmt::format("{} is not a positive rank count", ranks), "");
  const CollectiveRequest request{
      .op = named("collective", "op", op, CollectiveOp::all_reduce, CollectiveOp::send_recv),
      .bytes = *size,
      .ranks = ranks,
      .dimension = dim,
      .backend = named("collective", "backend", backend, NetworkBackend::analytical, NetworkBackend::ns3)};
  const HardwareSpec hw = load_hardware_from(hardware, overrides);
  if (dim) require_dimension(hw, *dim);
  const SimulationProgress report = with_gil<double, double>(progress);
  const py::gil_scoped_release unlocked;
  const CollectiveEstimate estimate = run_collective(hw, request, report);
  return render_collective(estimate, request, hw, OutputFormat::json);
}

}  // namespace

void bind_predict(py::module_& m) {
  m.def("predict", &predict_json, py::arg("scenario"), py::arg("trace"), py::arg("trace_ranks"), py::arg("chakra"),
        "The scenario's prediction as `rapidllm predict --format json` prints it.");
  m.def("collective", &collective_json, py::arg("hardware"), py::arg("op"), py::arg("bytes"), py::arg("ranks"),
        py::arg("dim"), py::arg("backend"), py::arg("overrides"), py::arg("progress"),
        "One collective as `rapidllm collective --format json` prints it.");
}

}  // namespace rapidllm::python
