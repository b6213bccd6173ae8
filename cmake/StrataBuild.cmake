# Everything every Strata target shares: standard, warnings, Qt hygiene.
add_library(strata_build INTERFACE)
target_compile_features(strata_build INTERFACE cxx_std_20)
set(CMAKE_CXX_EXTENSIONS OFF)
target_compile_options(strata_build INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Werror=switch
                       $<$<BOOL:${STRATA_WERROR}>:-Werror>)
target_compile_definitions(strata_build INTERFACE
  QT_NO_CAST_FROM_ASCII QT_NO_CONTEXTLESS_CONNECT QT_USE_QSTRINGBUILDER QT_NO_KEYWORDS
  _FILE_OFFSET_BITS=64)
target_include_directories(strata_build INTERFACE ${PROJECT_SOURCE_DIR})
# Sanitizer builds (presets asan, tsan): every Strata target, compiled and linked alike; a
# report stops the program (no recovery), so a test that triggers one fails.
if(STRATA_SANITIZE)
  target_compile_options(strata_build INTERFACE -fsanitize=${STRATA_SANITIZE} -fno-sanitize-recover=all
                         -fno-omit-frame-pointer)
  target_link_options(strata_build INTERFACE -fsanitize=${STRATA_SANITIZE})
  # The allocation counter replaces malloc; a sanitizer must own it instead.
  target_compile_definitions(strata_build INTERFACE STRATA_SANITIZED=1)
endif()

# The layers are one-way: core and the backends link no Qt, a backend sees core (+ its
# protocol library), ui sees core + Widgets/Charts and never a backend. Checked at
# configure time.
function(strata_forbid_links target)
  get_target_property(libs ${target} LINK_LIBRARIES)
  if(NOT libs)
    return()
  endif()
  foreach(lib IN LISTS libs)
    foreach(bad IN LISTS ARGN)
      if(lib MATCHES "${bad}")
        message(FATAL_ERROR "Layer violation: ${target} links ${lib}")
      endif()
    endforeach()
  endforeach()
endfunction()

function(strata_check_layers)
  strata_forbid_links(strata_core "Qt" "CURL" "curl" "nbd" "strata_backend" "strata_ui")
  get_property(backends GLOBAL PROPERTY STRATA_BACKEND_TARGETS)
  foreach(b IN LISTS backends)
    strata_forbid_links(${b} "Qt" "strata_ui")
  endforeach()
  if(TARGET strata_ui) # a fuzz tree has no ui
    strata_forbid_links(strata_ui "strata_backend" "CURL" "curl" "nbd")
  endif()
endfunction()

# Declares a backend: links core only (plus whatever it passes as extra libs). Its objects
# go into libstrata.so.
function(strata_add_backend name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_library(strata_backend_${name} OBJECT ${ARG_SOURCES})
  target_link_libraries(strata_backend_${name} PUBLIC strata_core PRIVATE strata_build ${ARG_LIBS})
  set_property(GLOBAL APPEND PROPERTY STRATA_BACKEND_TARGETS strata_backend_${name})
endfunction()

# Every object of a fuzz tree carries libFuzzer's coverage hooks and ASan/UBSan checks; a
# UBSan report stops the run like a crash. Only the fuzz targets link libFuzzer's main().
macro(strata_fuzz_flags)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "STRATA_FUZZ needs clang (cmake --preset fuzz)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endmacro()
