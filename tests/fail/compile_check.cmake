# tests/fail/compile_check.cmake — run nvcc -c on one file and check the outcome: MODE=fail must be rejected with EXPECT in the diagnostics, MODE=pass must compile.
#
# cmake -DNVCC=<nvcc> -DSOURCE=<file.cu> -DOBJECT=<out.o> -DFLAGS=<flag|flag|...> -DMODE=fail|pass
#       [-DEXPECT=<CMake regex>] -P compile_check.cmake
# Flags are '|'-separated (CTest would split a ';'-list into several arguments).
string(REPLACE "|" ";" _flags "${FLAGS}")
execute_process(COMMAND "${NVCC}" ${_flags} -c "${SOURCE}" -o "${OBJECT}"
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
message("${_out}")
if(MODE STREQUAL "pass")
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "porter-fail-harness: FAIL: ${SOURCE} is a positive control and must compile (nvcc exit ${_rc})")
  endif()
  message("porter-fail-harness: ok: ${SOURCE} compiles")
else()
  if(_rc EQUAL 0)
    message(FATAL_ERROR "porter-fail-harness: FAIL: ${SOURCE} compiled, but the misuse it contains must be rejected")
  endif()
  if(NOT _out MATCHES "${EXPECT}")
    message(FATAL_ERROR "porter-fail-harness: FAIL: nvcc rejected ${SOURCE} (exit ${_rc}), but not with the expected diagnostic")
  endif()
  message("porter-fail-harness: ok: ${SOURCE} is rejected with the expected diagnostic")
endif()
