// rapidllm._core: the compiled half of the `rapidllm` Python package. The package's
// __init__.py wraps these functions (keyword overrides, dict configs, JSON -> dict).
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "rapidllm/version.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "rapidllm's C++ facade (use the `rapidllm` package, not this module)";
  m.attr("__version__") = std::string(rapidllm::kVersion);
  rapidllm::python::bind_errors(m);
  rapidllm::python::bind_log(m);
  rapidllm::python::bind_inputs(m);
  rapidllm::python::bind_predict(m);
  rapidllm::python::bind_sweep(m);
  rapidllm::python::bind_validate(m);
  rapidllm::python::bind_serve(m);
}
