// A Python callable handed to C++ code that runs with the GIL released: each call takes
// the GIL back, first lets a pending Ctrl-C through, and a Python exception (that one
// included) propagates out of the C++ run. The callable is held through a shared_ptr so
// the C++ side may copy the std::function without touching Python reference counts.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include <pybind11/pybind11.h>

namespace rapidllm::python {

template <class... Args>
std::function<void(Args...)> with_gil(const std::optional<pybind11::function>& callable) {
  if (!callable) return {};
  auto held = std::make_shared<pybind11::function>(*callable);
  return [held](Args... args) {
    const pybind11::gil_scoped_acquire locked;
    if (PyErr_CheckSignals() != 0) throw pybind11::error_already_set();
    (*held)(args...);
  };
}

}  // namespace rapidllm::python
