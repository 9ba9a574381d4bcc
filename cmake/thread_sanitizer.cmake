# ThreadSanitizer (the tsan preset: KILN_THREAD_SANITIZER=ON, gcc, -fsanitize=thread at link).
#
# The layers where threads meet are instrumented: the job system (core), the kernel interface,
# the CPU backend's parallel loops (src/backends/cpu), both GPU backends and the runtime (worker,
# executions, readbacks, fences). The op kernels (src/ops) and the load-time layers are compiled
# exactly as in the release build, uninstrumented, so the compiler cache serves them from that
# build and a TSan run costs CI only the instrumented part. Their memory accesses are invisible
# to TSan: a race inside one op's own loop is not seen (docs/security.md says so), while every
# hand-off between jobs, threads and devices is.
#
# kiln_tests is built from the tests that drive those layers from several threads.
set(KILN_THREAD_SANITIZED_LAYERS core kernels gpu_common gpu_compute gpu_pixel runtime)
set(KILN_THREAD_SANITIZER_FLAGS -fsanitize=thread -g1 -fno-omit-frame-pointer)
set(KILN_THREAD_TESTS
  allocation_test concurrency_stress_test device_run_stop_test device_worker_test gemm_test
  gpu_compute_test gpu_compute_worker_test gpu_pixel_context_test gpu_pixel_worker_test
  interop_test memory_budget_test profile_test run_stop_test runtime_test smoke_test test_util
  zero_copy_test)

function(kiln_thread_sanitize_layers)
  foreach(layer IN LISTS KILN_THREAD_SANITIZED_LAYERS)
    if(TARGET kiln_${layer})
      target_compile_options(kiln_${layer} PRIVATE ${KILN_THREAD_SANITIZER_FLAGS})
    endif()
  endforeach()
  file(GLOB cpu_backend_sources ${PROJECT_SOURCE_DIR}/src/backends/cpu/*.cpp)
  set_source_files_properties(${cpu_backend_sources} TARGET_DIRECTORY kiln_cpu
                              PROPERTIES COMPILE_OPTIONS "${KILN_THREAD_SANITIZER_FLAGS}")
endfunction()

# Keeps only the thread tests in the list named `sources_var`.
function(kiln_thread_sanitize_tests sources_var)
  set(kept)
  foreach(source IN LISTS ${sources_var})
    get_filename_component(stem ${source} NAME_WE)
    if(stem IN_LIST KILN_THREAD_TESTS)
      list(APPEND kept ${source})
    endif()
  endforeach()
  set(${sources_var} ${kept} PARENT_SCOPE)
endfunction()
