# cmake/packaging.cmake - CPack: a versioned .deb and a .tar.gz of the
# install tree, each with its .sha256 (packaging/build.sh builds them with
# the install prefix /usr, as Debian's packages have it). The version is
# the build's (cmake/version.cmake). Only the program goes in: the
# binary, the preload library, the man page, the shell completions and the
# documentation; the static policy library and its headers stay out
# (PALDRON_INSTALL_DEV=OFF).

set(CPACK_PACKAGE_NAME paldron)
set(CPACK_PACKAGE_VENDOR "Paldron")
set(CPACK_PACKAGE_VERSION ${PALDRON_VERSION_NOW})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "policy gate and sandbox for the commands AI coding agents run")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "Paldron decides whether a command an AI coding agent wants to run may run, and runs it in "
    "a sandbox (namespaces, Landlock, seccomp, rlimits, a live gate in every program) so that "
    "the answer stays true while it runs.")
set(CPACK_PACKAGE_CONTACT "Paldron maintainers <maintainers@paldron.invalid>")
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
# Debian: the dependencies found by dpkg-shlibdeps from the binaries
# (libinih, libcjson, libc); libcurl is loaded only for the remote verdict
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcurl4")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_SOURCE_GENERATOR "")
set(CPACK_PACKAGE_FILE_NAME
    "${CPACK_PACKAGE_NAME}-${CPACK_PACKAGE_VERSION}-${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}")
include(CPack)
