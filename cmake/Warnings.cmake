# kforge_warnings(target): the project's warning set, as errors when KFORGE_WERROR is on (CI).
function(kforge_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
      -Wunused -Woverloaded-virtual -Wformat=2 -Wimplicit-fallthrough
      # GCC 12 reports these inside libstdc++'s own std::string code at -O2 (GCC bug 105329 and kin).
      $<$<CXX_COMPILER_ID:GNU>:-Wno-array-bounds -Wno-stringop-overflow -Wno-restrict>>)
  if(KFORGE_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endfunction()

# kforge_test(name SOURCES... LABELS label... LIBS lib...): one GoogleTest executable registered with CTest.
function(kforge_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LABELS;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  kforge_warnings(${name})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main Threads::Threads)
  target_compile_definitions(${name} PRIVATE
    KFORGE_TEST_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    KFORGE_TEST_BINARY_DIR="${CMAKE_BINARY_DIR}")
  gtest_discover_tests(${name} PROPERTIES LABELS "${T_LABELS}" DISCOVERY_TIMEOUT 60)
endfunction()
