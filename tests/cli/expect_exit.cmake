# Runs KFORGE with ARGS (a ;-list) and fails unless it exits with EXPECT.
execute_process(COMMAND ${KFORGE} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL EXPECT)
  message(FATAL_ERROR "kforge ${ARGS}: exit ${rc}, expected ${EXPECT}\n${out}\n${err}")
endif()
