# tomo_embed_files(TARGET STEM SYMBOL DIR GLOB [GENERATED_DIR GDIR GENERATED FILES...]):
# compiles every file under DIR matching GLOB, and the build-time FILES under GDIR, into
# TARGET as a table `tomo::detail::SYMBOL` of {relative name, text}. Regenerated at build
# time whenever one of the files changes.
function(tomo_embed_files target stem symbol dir glob)
  cmake_parse_arguments(ARG "" "GENERATED_DIR" "GENERATED" ${ARGN})
  file(GLOB_RECURSE files CONFIGURE_DEPENDS "${dir}/${glob}")
  list(SORT files)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${stem}.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DSYMBOL=${symbol} -DDIR=${dir} "-DFILES=${files}"
            -DGENERATED_DIR=${ARG_GENERATED_DIR} "-DGENERATED=${ARG_GENERATED}"
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_gen.cmake
    DEPENDS ${files} ${ARG_GENERATED} ${PROJECT_SOURCE_DIR}/cmake/embed_gen.cmake
    COMMENT "Embedding ${stem}"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()

# tomo_glsl_bindings(OUT_VAR RENDERER_DIR GENERATED_DIR): for every RENDERER_DIR/<folder>/bindings.hpp
# (named binding points of that folder's passes, see renderer/gl/bindings.hpp), a build-time
# rule writes GENERATED_DIR/bindings/<folder>.glsl with the same names as #defines, prefixed
# TOMO_ for the engine's shared passes (gl) and <FOLDER>_ for a problem. OUT_VAR: the files.
function(tomo_glsl_bindings out_var renderer_dir generated_dir)
  file(GLOB headers CONFIGURE_DEPENDS "${renderer_dir}/*/bindings.hpp")
  list(SORT headers)
  set(outputs "")
  foreach(header IN LISTS headers)
    get_filename_component(folder "${header}" DIRECTORY)
    get_filename_component(folder "${folder}" NAME)
    if(folder STREQUAL "gl")
      set(prefix TOMO)
    else()
      string(TOUPPER "${folder}" prefix)
    endif()
    set(out "${generated_dir}/bindings/${folder}.glsl")
    add_custom_command(
      OUTPUT "${out}"
      COMMAND ${CMAKE_COMMAND} -E make_directory "${generated_dir}/bindings"
      COMMAND ${CMAKE_COMMAND} -DHEADER=${header} -DPREFIX=${prefix} -DOUT=${out}
              -P ${PROJECT_SOURCE_DIR}/cmake/bindings_gen.cmake
      DEPENDS "${header}" ${PROJECT_SOURCE_DIR}/cmake/bindings_gen.cmake
      COMMENT "Generating GLSL bindings/${folder}.glsl"
      VERBATIM)
    list(APPEND outputs "${out}")
  endforeach()
  set(${out_var} "${outputs}" PARENT_SCOPE)
endfunction()
