# cmake/porterVersion.cmake — porter's version, read from include/porter/version.hpp, the one place
# it is written. Used before project() by CMakeLists.txt and cmake/hip/CMakeLists.txt, so the
# package version, porter::version() and the header's macros cannot drift apart.

# porter_read_version(<out> <header>): sets <out> to "MAJOR.MINOR.PATCH" from the PORTER_VERSION_*
# macros of <header>. FATAL_ERROR when a macro is missing or not a number, or when
# PORTER_VERSION_STRING is not exactly "MAJOR.MINOR.PATCH".
function(porter_read_version out header)
  file(STRINGS "${header}" _lines REGEX "^#define PORTER_VERSION_(MAJOR|MINOR|PATCH|STRING) ")
  foreach(_part MAJOR MINOR PATCH)
    set(_${_part} "")
    foreach(_l IN LISTS _lines)
      if(_l MATCHES "^#define PORTER_VERSION_${_part} +([0-9]+) *$")
        set(_${_part} ${CMAKE_MATCH_1})
      endif()
    endforeach()
    if(_${_part} STREQUAL "")
      message(FATAL_ERROR "porter: ${header} has no '#define PORTER_VERSION_${_part} <number>' line")
    endif()
  endforeach()
  set(_v "${_MAJOR}.${_MINOR}.${_PATCH}")
  set(_string "")
  foreach(_l IN LISTS _lines)
    if(_l MATCHES "^#define PORTER_VERSION_STRING +\"([^\"]*)\" *$")
      set(_string "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  if(NOT _string STREQUAL _v)
    message(FATAL_ERROR "porter: ${header}: PORTER_VERSION_STRING is \"${_string}\", but MAJOR.MINOR.PATCH is ${_v}; "
                        "make them agree")
  endif()
  set(${out} "${_v}" PARENT_SCOPE)
endfunction()
