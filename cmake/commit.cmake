# tomo_commit_source(TARGET): compiles into TARGET a generated source defining
# tomo::build_commit(), the commit of the source tree the binary is built from (report.json's
# "commit"). A target that runs at every build refreshes it without re-configuring; the source
# is rewritten only when the value changes, so an unchanged commit rebuilds and relinks nothing.
function(tomo_commit_source target)
  find_package(Git QUIET)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/build_commit.cpp")
  add_custom_target(${target}_commit
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} "-DGIT=${GIT_EXECUTABLE}"
            -P ${PROJECT_SOURCE_DIR}/cmake/commit_gen.cmake
    BYPRODUCTS "${out}"
    COMMENT "Checking the source tree's commit"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
  add_dependencies(${target} ${target}_commit)
endfunction()
