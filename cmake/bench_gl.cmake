# Reads bench/gl/CMakeLists.txt (bench-only GL code) once every target is defined: it links
# into bench_glpet and test_glpet. A deferred call at the end of the top-level directory (which
# may not add subdirectories, hence include()), so bench/ and tests/ need no line for it.
function(tomo_add_bench_gl)
  if(TARGET bench_glpet OR TARGET test_glpet)
    include(${PROJECT_SOURCE_DIR}/bench/gl/CMakeLists.txt)
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL tomo_add_bench_gl)
