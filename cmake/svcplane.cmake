# Target helpers in the spirit of absl_cc_library: every folder is one target, sources listed
# explicitly, -Werror only for our own code.

set(SVCPLANE_WARNINGS -Wall -Wextra -Werror -Wno-missing-field-initializers)

function(svcplane_apply_options target)
  target_compile_options(${target} PRIVATE ${SVCPLANE_WARNINGS})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/src)
endfunction()

# svcplane_cc_library(NAME foo SRCS a.cc b.cc DEPS x y)
function(svcplane_cc_library)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS" ${ARGN})
  add_library(svcplane_${ARG_NAME} STATIC ${ARG_SRCS})
  add_library(svcplane::${ARG_NAME} ALIAS svcplane_${ARG_NAME})
  svcplane_apply_options(svcplane_${ARG_NAME})
  target_link_libraries(svcplane_${ARG_NAME} PUBLIC ${ARG_DEPS})
endfunction()

# svcplane_cc_test(NAME foo_test SRCS a_test.cc DEPS svcplane::foo [LABELS unit]
#                  [SERIAL "Suite.CaseA:Suite.CaseB"])
# All *_test.cc of one folder build into one gtest binary; each case is registered with ctest.
# SERIAL (a gtest filter) names the cases that bound wall-clock time: ctest runs them alone
# (RUN_SERIAL), since under ASan with the other core busy a bound of seconds can be missed by a
# correct server.
function(svcplane_cc_test)
  if(NOT SVCPLANE_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "NAME;SERIAL" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  svcplane_apply_options(${ARG_NAME})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  set_target_properties(${ARG_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  if(ARG_SERIAL)
    gtest_discover_tests(${ARG_NAME} TEST_FILTER "-${ARG_SERIAL}"
                         PROPERTIES LABELS "${ARG_LABELS}" DISCOVERY_TIMEOUT 60)
    gtest_discover_tests(${ARG_NAME} TEST_FILTER "${ARG_SERIAL}"
                         PROPERTIES LABELS "${ARG_LABELS}" RUN_SERIAL TRUE DISCOVERY_TIMEOUT 60)
  else()
    gtest_discover_tests(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}" DISCOVERY_TIMEOUT 60)
  endif()
endfunction()

# svcplane_cc_benchmark(NAME foo_bench SRCS foo_bench.cc DEPS ...)
function(svcplane_cc_benchmark)
  if(NOT SVCPLANE_BUILD_BENCHMARKS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  svcplane_apply_options(${ARG_NAME})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} benchmark::benchmark)
  set_target_properties(${ARG_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
endfunction()

# svcplane_cc_fuzzer(NAME foo_fuzz SRCS foo_fuzz.cc DEPS ...): libFuzzer, clang only.
function(svcplane_cc_fuzzer)
  if(NOT SVCPLANE_FUZZ)
    return()
  endif()
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  svcplane_apply_options(${ARG_NAME})
  target_compile_options(${ARG_NAME} PRIVATE -fsanitize=fuzzer)
  target_link_options(${ARG_NAME} PRIVATE -fsanitize=fuzzer)
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS})
  set_target_properties(${ARG_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
endfunction()
