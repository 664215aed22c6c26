// rapidllm's C++ errors as the Python classes of rapidllm/_errors.py: a ConfigError keeps
// the file, line, column, --set text, key path, problem and hint as attributes, and its
// message is the CLI's (what() composes them the same way for both).
#include <exception>

#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "rapidllm/error.hpp"

namespace py = pybind11;

namespace rapidllm::python {

namespace {

// The class `name` of rapidllm._errors; RuntimeError when that module cannot be imported
// (it always can inside the package; the fallback keeps a broken install from hiding the message).
py::object error_class(const char* name) {
  try {
    return py::module_::import("rapidllm._errors").attr(name);
  } catch (const py::error_already_set&) {
    PyErr_Clear();
    return py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
  }
}

void raise(const py::object& cls, const py::object& instance) { PyErr_SetObject(cls.ptr(), instance.ptr()); }

}  // namespace

void bind_errors(py::module_& /*m*/) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ConfigError& e) {
      const py::object cls = error_class("ConfigError");
      const SourceLocation& w = e.where();
      if (cls.ptr() == PyExc_RuntimeError) return raise(cls, cls(e.what()));
      raise(cls, cls(e.what(), py::arg("file") = w.file, py::arg("line") = w.line, py::arg("column") = w.column,
                     py::arg("override") = w.override, py::arg("key_path") = e.key_path(),
                     py::arg("problem") = e.problem(), py::arg("hint") = e.hint()));
    } catch (const InfeasibleError& e) {
      const py::object cls = error_class("InfeasibleError");
      raise(cls, cls(e.what()));
    } catch (const Error& e) {
      const py::object cls = error_class("Error");
      raise(cls, cls(e.what()));
    }
  });
}

}  // namespace rapidllm::python
