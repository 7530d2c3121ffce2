# Adds bench/gl (bench-only GL code, bench/gl/CMakeLists.txt) once every target is defined:
# it links into bench_glpet and test_glpet. A deferred call at the end of the top-level
# directory, so it needs no line in bench/CMakeLists.txt or tests/CMakeLists.txt.
function(tomo_add_bench_gl)
  if(TARGET bench_glpet OR TARGET test_glpet)
    add_subdirectory(${PROJECT_SOURCE_DIR}/bench/gl ${PROJECT_BINARY_DIR}/bench/gl)
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL tomo_add_bench_gl)
