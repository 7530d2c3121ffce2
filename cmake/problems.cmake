# TOMO_PROBLEMS: semicolon list of problem folders to build (default: all). Core
# folders (core, io, gl, window, support) are always built. Lets one work on one
# problem while another is mid-change: -DTOMO_PROBLEMS="demo;strip".
set(TOMO_PROBLEMS "" CACHE STRING "Problem folders to build (empty: all)")
set(TOMO_CORE_FOLDERS core io pet gl window viewer support compute renderer cuda apps demo engine multi)

# tomo_filter_problem_sources(VAR BASE_DIR): drops files of unselected problem folders.
function(tomo_filter_problem_sources var base)
  if(TOMO_PROBLEMS STREQUAL "")
    return()
  endif()
  set(kept "")
  foreach(f IN LISTS ${var})
    file(RELATIVE_PATH rel "${base}" "${f}")
    string(REGEX MATCH "^[^/]+" top "${rel}")
    if(top IN_LIST TOMO_CORE_FOLDERS OR top IN_LIST TOMO_PROBLEMS OR NOT rel MATCHES "/")
      list(APPEND kept "${f}")
    endif()
  endforeach()
  set(${var} "${kept}" PARENT_SCOPE)
endfunction()

# bench/gl, added after every target exists (cmake/bench_gl.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/bench_gl.cmake)
