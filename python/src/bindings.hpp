// The pieces of the rapidllm._core extension, one file each; module.cpp calls them in turn.
// Every function returns what the command line would print with --format json (the same
// renderer), so Python and the CLI give the same numbers by construction.
#pragma once

#include <pybind11/pybind11.h>

namespace rapidllm::python {

void bind_errors(pybind11::module_& m);    // errors.cpp: C++ exceptions -> rapidllm._errors classes
void bind_log(pybind11::module_& m);       // log_capture.cpp: the library's log, handed to Python
void bind_inputs(pybind11::module_& m);    // inputs.cpp: Scenario, settings, HF import
void bind_predict(pybind11::module_& m);   // bind_predict.cpp: predict, collective
void bind_sweep(pybind11::module_& m);     // bind_sweep.cpp
void bind_validate(pybind11::module_& m);  // bind_validate.cpp
void bind_serve(pybind11::module_& m);     // bind_serve.cpp

}  // namespace rapidllm::python
