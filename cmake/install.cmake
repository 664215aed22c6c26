# `cmake --install`: the command line, the facade library with the module libraries it is
# built from, the public headers, the shipped configs and validation data, and a CMake
# package so that another project can
#
#   find_package(rapidllm REQUIRED)
#   target_link_libraries(app PRIVATE rapidllm::rapidllm)
#
# The module libraries stay static and internal: they are installed (a static library
# needs the archives it calls into) but publish no headers, so an installed consumer sees
# include/rapidllm/ only, as the CLI does in the build tree.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(RAPIDLLM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/rapidllm)

# Every project library rapidllm_api links, directly or not, found by walking the link
# graph, so a module added later is installed without an edit here.
function(rapidllm_link_closure out)
  set(seen "")
  set(queue ${ARGN})
  while(queue)
    list(POP_FRONT queue t)
    # A private dependency of a static library shows up as $<LINK_ONLY:name>.
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" t "${t}")
    if(NOT TARGET "${t}" OR t IN_LIST seen)
      continue()
    endif()
    get_target_property(imported "${t}" IMPORTED)
    get_target_property(aliased "${t}" ALIASED_TARGET)
    if(imported OR aliased)
      continue()
    endif()
    list(APPEND seen "${t}")
    get_target_property(deps "${t}" LINK_LIBRARIES)
    if(deps)
      list(APPEND queue ${deps})
    endif()
    get_target_property(interface_deps "${t}" INTERFACE_LINK_LIBRARIES)
    if(interface_deps)
      list(APPEND queue ${interface_deps})
    endif()
  endwhile()
  set(${out} "${seen}" PARENT_SCOPE)
endfunction()

# The modules publish their source and build folders as include directories; an installed
# target may not name them. Keep them for the build tree only.
function(rapidllm_build_only_includes target)
  foreach(property INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES)
    get_target_property(dirs "${target}" ${property})
    if(NOT dirs)
      continue()
    endif()
    set(wrapped "")
    foreach(dir IN LISTS dirs)
      if(dir MATCHES "^\\$<")
        list(APPEND wrapped "${dir}")
      else()
        list(APPEND wrapped "$<BUILD_INTERFACE:${dir}>")
      endif()
    endforeach()
    set_target_properties("${target}" PROPERTIES ${property} "${wrapped}")
  endforeach()
endfunction()

rapidllm_link_closure(RAPIDLLM_INSTALLED_LIBRARIES rapidllm_api)
foreach(target IN LISTS RAPIDLLM_INSTALLED_LIBRARIES)
  rapidllm_build_only_includes(${target})
endforeach()

# rapidllm::rapidllm: the facade (everything the CLI calls) with the installed headers. The
# name `rapidllm` is the executable's, hence the EXPORT_NAME.
add_library(rapidllm_facade INTERFACE)
target_link_libraries(rapidllm_facade INTERFACE rapidllm_api)
target_include_directories(rapidllm_facade INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(rapidllm_facade INTERFACE cxx_std_20)
set_target_properties(rapidllm_facade PROPERTIES EXPORT_NAME rapidllm)
add_library(rapidllm::rapidllm ALIAS rapidllm_facade)

install(TARGETS rapidllm_facade ${RAPIDLLM_INSTALLED_LIBRARIES}
        EXPORT rapidllmTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS rapidllm RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET rapidllm-mpi)
  install(TARGETS rapidllm-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/rapidllm DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(FILES ${CMAKE_BINARY_DIR}/generated/rapidllm/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rapidllm)
# What `rapidllm validate` reads by default; the installed binary finds them beside itself
# (apps/rapidllm/cmd_validate.cpp), and scripts find the configs here.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/rapidllm/configs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/validation/data/ DESTINATION ${CMAKE_INSTALL_DATADIR}/rapidllm/validation/data)

install(EXPORT rapidllmTargets NAMESPACE rapidllm:: DESTINATION ${RAPIDLLM_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/rapidllm-config.cmake.in
                              ${CMAKE_BINARY_DIR}/generated/rapidllm-config.cmake
                              INSTALL_DESTINATION ${RAPIDLLM_INSTALL_CMAKEDIR}
                              PATH_VARS CMAKE_INSTALL_DATADIR)
# The same minor version is compatible (0.x: no promise across minors yet).
write_basic_package_version_file(${CMAKE_BINARY_DIR}/generated/rapidllm-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/generated/rapidllm-config.cmake
              ${CMAKE_BINARY_DIR}/generated/rapidllm-config-version.cmake
        DESTINATION ${RAPIDLLM_INSTALL_CMAKEDIR})
