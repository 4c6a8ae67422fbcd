# The engine holds no test support: the synthetic-model generator and the faulty device live in
# kz_test_support (src/test_support/), which the CLI and the tests link, never in libkazeia.so or
# the layers it is made of. Fails naming the symbols or objects that came back.
#   cmake -DNM=nm -P no_test_support.cmake LIBRARY...
set(files)  # the arguments after the script's name
set(script_at -1)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(CMAKE_ARGV${i} STREQUAL "-P")
    math(EXPR script_at "${i} + 1")
  elseif(script_at GREATER -1 AND i GREATER script_at)
    list(APPEND files "${CMAKE_ARGV${i}}")
  endif()
endforeach()
if(NOT files)
  message(FATAL_ERROR "no library to check")
endif()
foreach(file IN LISTS files)
  execute_process(COMMAND ${NM} -C ${file} OUTPUT_VARIABLE symbols ERROR_VARIABLE error
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} ${file}: ${error}")
  endif()
  string(TOLOWER "${symbols}" symbols)
  string(REGEX MATCHALL "[^\n]*(synthetic|faulty)[^\n]*" hits "${symbols}")
  if(hits)
    list(JOIN hits "\n" lines)
    message(FATAL_ERROR "${file} holds test support:\n${lines}")
  endif()
endforeach()
