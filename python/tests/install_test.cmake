# `cmake --install --component python` into a fresh prefix, then the installed package is
# imported from a folder outside the build tree and predicts. Run by CTest (python.install).
# Variables: BUILD (build tree), PREFIX (scratch prefix), DEST (the package's folder under
# it), PYTHON (the interpreter), CONFIGS (the repository's configs folder).
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --component python --prefix ${PREFIX}
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
set(check "import rapidllm, sys
assert rapidllm.__file__.startswith('${PREFIX}/'), rapidllm.__file__
r = rapidllm.predict('${CONFIGS}/hardware/H100_SXM5_80GB.yaml', '${CONFIGS}/examples/gemm_8192_bf16.yaml')
assert r['run_type'] == 'gemm' and r['flops'] == 2 * 8192**3, r
print('installed rapidllm', rapidllm.__version__, 'predicts', r['time_s'], 's')")
execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PREFIX}/${DEST} ${PYTHON} -c "${check}"
                WORKING_DIRECTORY ${PREFIX} COMMAND_ERROR_IS_FATAL ANY)
file(REMOVE_RECURSE ${PREFIX})
