# What `cmake --install` puts in place: libkiln, the public headers, the `kiln` program, and the
# files that let another project find kiln — kilnConfig.cmake (find_package) and kiln.pc
# (pkg-config). Included from the top-level CMakeLists.txt after the targets exist.
include(CMakePackageConfigHelpers)

set(KILN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)

install(TARGETS kiln EXPORT kilnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS kiln_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/kiln DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/include/kiln/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln)
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${KILN_CMAKE_DIR})

# kilnConfig.cmake finds what libkiln links before it loads the targets, so that a consumer's
# find_package(kiln) needs nothing else (see the template for what it looks up and when).
configure_package_config_file(cmake/kilnConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/kilnConfig.cmake INSTALL_DESTINATION ${KILN_CMAKE_DIR})
# 0.x releases may break the API between minor versions, so only the same minor is compatible.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(KILN_COMPATIBILITY SameMinorVersion)
else()
  set(KILN_COMPATIBILITY SameMajorVersion)
endif()
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/kilnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${KILN_COMPATIBILITY})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kilnConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/kilnConfigVersion.cmake
        DESTINATION ${KILN_CMAKE_DIR})

# kiln.pc: for a static libkiln the libraries it links are public requirements, so that a plain
# `pkg-config --libs kiln` links; for a shared one they are private.
set(KILN_PC_MODULES "protobuf-lite libhwy libjpeg libpng libtiff-4 libwebp libopenjp2 re2 libxxhash")
if(KILN_GPU_COMPUTE)
  string(APPEND KILN_PC_MODULES " vulkan")
endif()
if(KILN_GPU_PIXEL)
  string(APPEND KILN_PC_MODULES " egl glesv2")
endif()
if(BUILD_SHARED_LIBS)
  set(KILN_PC_REQUIRES "Requires.private: ${KILN_PC_MODULES}")
  set(KILN_PC_LIBS_PRIVATE "-pthread")
else()
  set(KILN_PC_REQUIRES "Requires: ${KILN_PC_MODULES}")
  set(KILN_PC_LIBS_PRIVATE "")
endif()
# The prefix is found relative to the .pc file itself, so the package works wherever it is
# installed (cmake --install --prefix, DESTDIR, a copied tree).
file(RELATIVE_PATH KILN_PC_PREFIX_FROM_PCFILEDIR /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(cmake/kiln.pc.in ${CMAKE_CURRENT_BINARY_DIR}/kiln.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kiln.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
