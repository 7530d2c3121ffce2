# Script mode (cmake -P), run at every build by tomo_commit_source (commit.cmake): writes OUT, a
# source defining tomo::build_commit() as the commit of SOURCE_DIR: `git describe --always
# --dirty --exclude=*`, i.e. `git rev-parse --short HEAD` with "-dirty" appended when a tracked
# file differs from it (untracked files do not count). "unknown" without git, or when SOURCE_DIR
# is not the top of a git checkout (an unpacked source inside some other repository). OUT is
# rewritten only when its text changes.
set(commit "unknown")
if(GIT)
  execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --show-toplevel
                  RESULT_VARIABLE rc OUTPUT_VARIABLE top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  file(REAL_PATH "${SOURCE_DIR}" source_real)
  if(rc EQUAL 0 AND top)
    file(REAL_PATH "${top}" top_real)
  endif()
  if(rc EQUAL 0 AND top AND top_real STREQUAL source_real)
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} describe --always --dirty --exclude=*
                    RESULT_VARIABLE rc OUTPUT_VARIABLE described OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(rc EQUAL 0 AND described MATCHES "^[0-9a-f]+(-dirty)?$")
      set(commit "${described}")
    endif()
  endif()
endif()
set(text "// Generated at build time by cmake/commit_gen.cmake: the commit this binary was built from.
namespace tomo {
const char* build_commit();
const char* build_commit() { return \"${commit}\"; }
}  // namespace tomo
")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
