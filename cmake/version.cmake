# cmake/version.cmake - the version `paldron version` prints and the
# packages carry, from the build itself:
#   - a release tarball (no .git): the project's version, e.g. 0.1.0;
#   - a git checkout: the project's version, then "+" and git describe:
#     0.1.0+v0.1.0-3-g1a2b3c4 after a tag, 0.1.0+g1a2b3c4 without one,
#     "+dirty" with uncommitted changes.
# -DPALDRON_VERSION_STRING=X sets it by hand. Run at configure time (for
# the packages) and, as a script, at every build (PALDRON_VERSION_OUT: the
# header the launcher compiles, rewritten only when the version moved, so
# that a commit after the configure step is still what the binary says).

function(paldron_version_from_git srcdir out)
  set(v "${PALDRON_PROJECT_VERSION}")
  find_package(Git QUIET)
  if(GIT_FOUND AND EXISTS "${srcdir}/.git")
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${srcdir}" describe --tags --always
                            --match "v[0-9]*" --dirty=+dirty
                    OUTPUT_VARIABLE desc OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND NOT desc STREQUAL "")
      if(desc MATCHES "^[0-9a-f]+(\\+dirty)?$")
        set(desc "g${desc}")
      endif()
      # Debian versions allow letters, digits and . + ~ - only
      string(REGEX REPLACE "[^A-Za-z0-9.+~-]" "." desc "${desc}")
      set(v "${v}+${desc}")
    endif()
  endif()
  set(${out} "${v}" PARENT_SCOPE)
endfunction()

if(PALDRON_VERSION_OUT)
  # script mode (cmake -P): write the header when the version changed
  if(PALDRON_VERSION_FIXED)
    set(v "${PALDRON_VERSION_FIXED}")
  else()
    paldron_version_from_git("${PALDRON_SOURCE_DIR}" v)
  endif()
  set(text "#define PALDRON_VERSION \"${v}\"\n")
  if(EXISTS "${PALDRON_VERSION_OUT}")
    file(READ "${PALDRON_VERSION_OUT}" old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE "${PALDRON_VERSION_OUT}" "${text}")
  endif()
  return()
endif()
