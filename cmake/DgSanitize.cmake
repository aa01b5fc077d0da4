# DG_SANITIZE: a comma- or semicolon-separated list of sanitizers (address, undefined, leak,
# thread) for dgsolve's own targets. Every target defined after this file is included (src/,
# mesh_tools/, tests/) compiles and links with -fsanitize=<list> -fno-omit-frame-pointer;
# dependencies (Kokkos, MPI, HDF5, METIS, yaml-cpp, Catch2) stay as installed. UBSan findings
# abort (-fno-sanitize-recover), so a finding fails the test that hit it even when run by hand.
# The run-time options (leak detection on, UBSan stack traces) are compiled into every
# executable (cmake/sanitizer_options.cpp), so ctest and a run by hand behave the same.
set(DG_SANITIZE "" CACHE STRING
    "sanitizers for dgsolve's own targets, e.g. address,undefined (empty: none)")
# CMAKE_BUILD_TYPE=Sanitize: -O1 -g1, the usual optimisation for sanitizer runs. The reports get
# file and line numbers, and the build takes about a third of RelWithDebInfo's compile time.
# (project() creates these cache entries empty when it meets the build type; fill them once.)
foreach(_lang C CXX)
  if(NOT CMAKE_${_lang}_FLAGS_SANITIZE)
    set(CMAKE_${_lang}_FLAGS_SANITIZE "-O1 -g1" CACHE STRING "${_lang} flags of the Sanitize build type"
        FORCE)
  endif()
endforeach()

set(DG_SANITIZERS "")
if(DG_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "DG_SANITIZE=${DG_SANITIZE}: sanitizers need GCC or Clang, "
                        "not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  string(REPLACE "," ";" DG_SANITIZERS "${DG_SANITIZE}")
  foreach(_s IN LISTS DG_SANITIZERS)
    if(NOT _s MATCHES "^(address|undefined|leak|thread)$")
      message(FATAL_ERROR "DG_SANITIZE=${DG_SANITIZE}: unknown sanitizer '${_s}'; "
                          "valid are address, undefined, leak, thread (comma-separated)")
    endif()
  endforeach()
  if("thread" IN_LIST DG_SANITIZERS AND ("address" IN_LIST DG_SANITIZERS OR "leak" IN_LIST DG_SANITIZERS))
    message(FATAL_ERROR "DG_SANITIZE=${DG_SANITIZE}: thread does not combine with address or leak")
  endif()
  string(REPLACE ";" "," _list "${DG_SANITIZERS}")
  set(_flags -fsanitize=${_list} -fno-omit-frame-pointer)
  if("undefined" IN_LIST DG_SANITIZERS)
    list(APPEND _flags -fno-sanitize-recover=undefined)
  endif()
  add_compile_options(${_flags})
  add_link_options(${_flags})
  message(STATUS "dgsolve: sanitizers ${_list} (project targets only)")
endif()

# dg_sanitize_executables(): compiles cmake/sanitizer_options.cpp (the sanitizers' run-time
# defaults) into every executable defined in this directory and below.
# Called once, after every add_subdirectory.
function(dg_sanitize_executables)
  if(NOT DG_SANITIZERS)
    return()
  endif()
  set(_dirs ${CMAKE_CURRENT_SOURCE_DIR})
  while(_dirs)
    list(POP_FRONT _dirs _dir)
    get_property(_targets DIRECTORY ${_dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(_t IN LISTS _targets)
      get_target_property(_type ${_t} TYPE)
      if(_type STREQUAL "EXECUTABLE")
        target_sources(${_t} PRIVATE ${PROJECT_SOURCE_DIR}/cmake/sanitizer_options.cpp)
      endif()
    endforeach()
    get_property(_sub DIRECTORY ${_dir} PROPERTY SUBDIRECTORIES)
    list(APPEND _dirs ${_sub})
  endwhile()
endfunction()
