# cmake -P script (tests/install/CMakeLists.txt): install BUILD_DIR into WORK_DIR/prefix,
# build the consumer project against it and run it. Any failing step fails the test.
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(installed bin/rapidllm include/rapidllm/predict.hpp include/rapidllm/version.hpp
                  share/rapidllm/configs/hardware/H100_SXM5_80GB.yaml lib/cmake/rapidllm/rapidllm-config.cmake
                  lib/cmake/rapidllm/rapidllm-config-version.cmake)
  if(NOT EXISTS ${prefix}/${installed})
    message(FATAL_ERROR "cmake --install did not install ${installed}")
  endif()
endforeach()
# Only the public headers: the module headers (src/) stay internal.
file(GLOB_RECURSE headers RELATIVE ${prefix}/include ${prefix}/include/*)
foreach(h IN LISTS headers)
  if(NOT h MATCHES "^rapidllm/[a-z_]+\\.hpp$")
    message(FATAL_ERROR "an internal header was installed: include/${h}")
  endif()
endforeach()

step(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
     -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${WORK_DIR}/build/consumer)
# The installed command line runs from the prefix, on the installed configs.
step(${prefix}/bin/rapidllm predict --hardware ${prefix}/share/rapidllm/configs/hardware/A100_SXM4_80GB.yaml
     --model ${prefix}/share/rapidllm/configs/models/llama2-7b.yaml --set parallelism.train.dp=8
     --format csv -o ${WORK_DIR}/predict.csv)
if(NOT EXISTS ${WORK_DIR}/predict.csv)
  message(FATAL_ERROR "the installed rapidllm wrote no CSV")
endif()
