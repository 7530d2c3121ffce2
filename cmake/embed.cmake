# tomo_embed_files(TARGET STEM SYMBOL DIR GLOB): compiles every file under DIR
# matching GLOB into TARGET as a table `tomo::detail::SYMBOL` of {relative name,
# text}. Regenerated at build time whenever one of the files changes.
function(tomo_embed_files target stem symbol dir glob)
  file(GLOB_RECURSE files CONFIGURE_DEPENDS "${dir}/${glob}")
  list(SORT files)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${stem}.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DSYMBOL=${symbol} -DDIR=${dir} "-DFILES=${files}"
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_gen.cmake
    DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/embed_gen.cmake
    COMMENT "Embedding ${stem}"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()
