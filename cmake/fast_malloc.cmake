# tcmalloc (Debian's libtcmalloc-minimal4) under the executables. A prediction makes a few
# dozen short-lived allocations; in a plan sweep glibc's malloc and free were about a
# quarter of all instructions, tcmalloc's thread caches make them a few percent
# (docs/sweep.md has the figures). Not under the sanitizer and fuzz builds, which replace
# malloc themselves, nor in the Python module: an allocator cannot be swapped under an
# interpreter that has already allocated.
option(RAPIDLLM_TCMALLOC "Link the rapidllm executables and benchmarks with tcmalloc" ON)
set(RAPIDLLM_TCMALLOC_LIBRARY_USED "")
if(RAPIDLLM_TCMALLOC AND NOT RAPIDLLM_SANITIZE AND NOT RAPIDLLM_FUZZ)
  # The runtime package ships only the versioned file (the unversioned link is in -dev).
  find_library(RAPIDLLM_TCMALLOC_LIBRARY NAMES tcmalloc_minimal libtcmalloc_minimal.so.4)
  if(NOT RAPIDLLM_TCMALLOC_LIBRARY)
    message(FATAL_ERROR "tcmalloc not found: run scripts/install-deps.sh (it installs libtcmalloc-minimal4), "
                        "or configure with -DRAPIDLLM_TCMALLOC=OFF for glibc's malloc")
  endif()
  set(RAPIDLLM_TCMALLOC_LIBRARY_USED "${RAPIDLLM_TCMALLOC_LIBRARY}")
endif()

# Nothing calls tcmalloc by name, so the link must not drop it (--as-needed).
function(rapidllm_use_fast_malloc target)
  if(RAPIDLLM_TCMALLOC_LIBRARY_USED)
    target_link_libraries(${target} PRIVATE "-Wl,--push-state,--no-as-needed" "${RAPIDLLM_TCMALLOC_LIBRARY_USED}"
                                            "-Wl,--pop-state")
  endif()
endfunction()
