# Finds every dependency and wraps each in one dg:: interface target, so that the rest of the
# build never cares whether Kokkos is Debian's Trilinos 3.4 build or a standalone 4.x install,
# whether yaml-cpp is 0.7 or 0.8, or whether Catch2 is v2 or v3.

# --- MPI ------------------------------------------------------------------------------------
find_package(MPI REQUIRED COMPONENTS C CXX)

# --- Kokkos and Kokkos-Kernels ----------------------------------------------------------------
add_library(dg_kokkos INTERFACE)
add_library(dg::kokkos ALIAS dg_kokkos)
find_package(Kokkos CONFIG QUIET)
if(Kokkos_FOUND AND TARGET Kokkos::kokkos AND NOT TARGET trilinos_kokkoscore)
  # Standalone Kokkos 4.x (for example with CUDA): proper imported targets.
  find_package(KokkosKernels CONFIG REQUIRED)
  target_link_libraries(dg_kokkos INTERFACE Kokkos::kokkos Kokkos::kokkoskernels)
  set(DG_KOKKOS_FLAVOUR "standalone ${Kokkos_VERSION}")
else()
  # Debian's Trilinos Kokkos 3.4: the Kokkos::kokkos target is broken (its include dir
  # /usr/lib/include does not exist), so use the trilinos_* targets directly.
  find_package(KokkosKernels CONFIG QUIET)
  find_path(DG_TRILINOS_INCLUDE Kokkos_Core.hpp PATHS /usr/include/trilinos REQUIRED)
  foreach(_lib kokkoscore kokkoscontainers kokkoskernels)
    find_library(DG_LIB_${_lib} NAMES trilinos_${_lib} ${_lib} REQUIRED)
  endforeach()
  target_include_directories(dg_kokkos SYSTEM INTERFACE ${DG_TRILINOS_INCLUDE})
  target_link_libraries(dg_kokkos INTERFACE ${DG_LIB_kokkoskernels} ${DG_LIB_kokkoscontainers}
                                            ${DG_LIB_kokkoscore} dl)
  find_package(BLAS QUIET)
  find_package(LAPACK QUIET)
  if(LAPACK_FOUND)
    target_link_libraries(dg_kokkos INTERFACE ${LAPACK_LIBRARIES} ${BLAS_LIBRARIES})
  endif()
  set(DG_KOKKOS_FLAVOUR "Trilinos (Debian) in ${DG_TRILINOS_INCLUDE}")
endif()
message(STATUS "dgsolve: Kokkos = ${DG_KOKKOS_FLAVOUR}")

# --- HDF5 (parallel preferred; serial accepted) -----------------------------------------------
set(HDF5_PREFER_PARALLEL TRUE)
find_package(HDF5 REQUIRED COMPONENTS C)
add_library(dg_hdf5 INTERFACE)
add_library(dg::hdf5 ALIAS dg_hdf5)
target_include_directories(dg_hdf5 SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
target_link_libraries(dg_hdf5 INTERFACE ${HDF5_C_LIBRARIES} ${HDF5_LIBRARIES})
target_compile_definitions(dg_hdf5 INTERFACE ${HDF5_C_DEFINITIONS} ${HDF5_DEFINITIONS})
if(HDF5_IS_PARALLEL)
  target_compile_definitions(dg_hdf5 INTERFACE DG_HDF5_PARALLEL=1)
endif()
message(STATUS "dgsolve: HDF5 ${HDF5_VERSION}, parallel = ${HDF5_IS_PARALLEL}")

# --- METIS (no CMake config, no .pc on Debian) ---------------------------------------------------
find_path(METIS_INCLUDE_DIR metis.h HINTS ${METIS_ROOT}/include ENV METIS_ROOT
          PATH_SUFFIXES include REQUIRED)
find_library(METIS_LIBRARY metis HINTS ${METIS_ROOT} ENV METIS_ROOT
             PATH_SUFFIXES lib lib/x86_64-linux-gnu REQUIRED)
add_library(dg_metis INTERFACE)
add_library(dg::metis ALIAS dg_metis)
target_include_directories(dg_metis SYSTEM INTERFACE ${METIS_INCLUDE_DIR})
target_link_libraries(dg_metis INTERFACE ${METIS_LIBRARY})

# --- yaml-cpp 0.7 (target yaml-cpp) or 0.8 (yaml-cpp::yaml-cpp) ------------------------------------
find_package(yaml-cpp REQUIRED)
add_library(dg_yaml INTERFACE)
add_library(dg::yaml ALIAS dg_yaml)
if(TARGET yaml-cpp::yaml-cpp)
  target_link_libraries(dg_yaml INTERFACE yaml-cpp::yaml-cpp)
else()
  target_link_libraries(dg_yaml INTERFACE yaml-cpp)
  if(YAML_CPP_INCLUDE_DIR)
    target_include_directories(dg_yaml SYSTEM INTERFACE ${YAML_CPP_INCLUDE_DIR})
  endif()
endif()

# --- muParser (user expressions; Debian's libmuparser-dev, no CMake config) ----------------------
find_path(MUPARSER_INCLUDE_DIR muParser.h HINTS ${MUPARSER_ROOT}/include ENV MUPARSER_ROOT
          PATH_SUFFIXES include muparser REQUIRED)
find_library(MUPARSER_LIBRARY muparser HINTS ${MUPARSER_ROOT} ENV MUPARSER_ROOT
             PATH_SUFFIXES lib lib/x86_64-linux-gnu REQUIRED)
add_library(dg_muparser INTERFACE)
add_library(dg::muparser ALIAS dg_muparser)
target_include_directories(dg_muparser SYSTEM INTERFACE ${MUPARSER_INCLUDE_DIR})
target_link_libraries(dg_muparser INTERFACE ${MUPARSER_LIBRARY})

# --- Catch2 v2 or v3 (tests only) ----------------------------------------------------------------
if(DG_BUILD_TESTS)
  find_package(Catch2 REQUIRED)
  add_library(dg_catch2 INTERFACE)
  add_library(dg::catch2 ALIAS dg_catch2)
  if(Catch2_VERSION VERSION_GREATER_EQUAL 3)
    target_link_libraries(dg_catch2 INTERFACE Catch2::Catch2WithMain)
    target_compile_definitions(dg_catch2 INTERFACE DG_CATCH2_V3=1)
  else()
    target_link_libraries(dg_catch2 INTERFACE Catch2::Catch2WithMain)
  endif()
  message(STATUS "dgsolve: Catch2 ${Catch2_VERSION}")
endif()
