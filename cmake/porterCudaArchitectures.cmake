# cmake/porterCudaArchitectures.cmake — the configure-time check that a consumer's kernels are built
# for an architecture on which porter's fast paths exist.
#
# porter::path::automatic picks a path per launch from what the *compile target* of the kernel can
# run: TMA needs a device pass for compute capability 9.0 or newer, cp.async one for 8.0 or newer.
# Which device passes a target gets is the target's CUDA_ARCHITECTURES property, initialised from
# CMAKE_CUDA_ARCHITECTURES; when a project sets neither, CMake uses nvcc's default (sm_75 with
# CUDA 13), and automatic silently ends up on the staged path everywhere. PORTER_CUDA_ARCHITECTURES
# is porter's own list (its tests, examples and porter-bench) and never applies to other targets.
#
# Included by porter's CMakeLists.txt (add_subdirectory, FetchContent) and by the installed
# porterConfig.cmake (find_package). Both schedule porter_check_cuda_architectures() for every
# target of the project that links porter::porter and compiles CUDA, at the end of the top-level
# CMakeLists.txt (cmake_language(DEFER), CMake 3.19+), when every target and property is final.
#
# Controls, read when the check runs:
#   PORTER_ARCHITECTURE_CHECK  variable (cache or normal) or target property of the same name:
#       tma       (default) warn unless the target builds for some architecture >= 90
#       cp_async  warn unless it builds for some architecture >= 80 (e.g. an Ampere-only project)
#       OFF       no check
#   The target property wins over the variable.
include_guard(GLOBAL)

# porter_check_cuda_architectures(<target>...)
#
# For each <target>, reads CUDA_ARCHITECTURES (entries such as 80, 90a, 90-real, 90-virtual, all,
# all-major, native; empty or OFF means nvcc's default) and, when no entry reaches the level that
# PORTER_ARCHITECTURE_CHECK asks for (default tma = 90), prints one message(WARNING) naming the
# target, its architectures, which porter paths automatic can therefore take, and how to set the
# architectures. "all" and "all-major" include sm_90 and pass; "native" is the build machine's GPU
# and is not checked. Call it after the target's CUDA_ARCHITECTURES is set; porter itself calls it
# at the end of configuration for every target that links porter::porter (see above), except the
# targets already checked by a call of yours.
# Errors: a name that is not a target is a FATAL_ERROR.
function(porter_check_cuda_architectures)
  foreach(_t IN LISTS ARGN)
    if(NOT TARGET ${_t})
      message(FATAL_ERROR "porter_check_cuda_architectures: '${_t}' is not a target")
    endif()
    # Once per target: the check at the end of configuration skips targets checked here.
    set_property(GLOBAL APPEND PROPERTY _PORTER_ARCHITECTURES_CHECKED ${_t})
    get_target_property(_level ${_t} PORTER_ARCHITECTURE_CHECK)
    if(_level STREQUAL "_level-NOTFOUND")
      if(DEFINED PORTER_ARCHITECTURE_CHECK)
        set(_level "${PORTER_ARCHITECTURE_CHECK}")
      else()
        set(_level tma)
      endif()
    endif()
    string(TOLOWER "${_level}" _level)
    if(_level STREQUAL "tma")
      set(_need 90)
    elseif(_level STREQUAL "cp_async")
      set(_need 80)
    elseif(_level MATCHES "^(off|0|no|false|n|ignore)$")
      continue()
    else()
      message(FATAL_ERROR "porter: PORTER_ARCHITECTURE_CHECK is '${_level}' (target ${_t}); it takes tma, cp_async or OFF")
    endif()

    get_target_property(_archs ${_t} CUDA_ARCHITECTURES)
    set(_max 0)
    set(_shown "${_archs}")
    if(NOT _archs OR _archs MATCHES "^(OFF|off|FALSE|false|NO|no|0)$")
      set(_shown "nvcc's default (sm_75 with CUDA 13)")
      set(_max 75)
    else()
      foreach(_a IN LISTS _archs)
        if(_a MATCHES "^(all|all-major)$")
          set(_max 1000)
        elseif(_a STREQUAL "native")
          set(_max 1000)  # the GPU of the build machine: whatever it is, it is the one the user has
        elseif(_a MATCHES "^([0-9]+)")
          if(CMAKE_MATCH_1 GREATER _max)
            set(_max ${CMAKE_MATCH_1})
          endif()
        endif()
      endforeach()
    endif()
    if(_max GREATER_EQUAL _need)
      continue()
    endif()

    if(_max GREATER_EQUAL 80)
      set(_paths "take cp_async or staged, never tma (tma needs 90)")
    else()
      set(_paths "only take staged: cp_async needs 80, tma needs 90")
    endif()
    message(WARNING
      "porter: target '${_t}' builds its CUDA code for ${_shown} only (its CUDA_ARCHITECTURES; a project that sets "
      "none gets nvcc's default, 75 with CUDA 13), so porter::path::automatic there can ${_paths}, on any GPU.\n"
      "Set the architectures of the target, e.g.\n"
      "  set_target_properties(${_t} PROPERTIES CUDA_ARCHITECTURES \"80;90\")\n"
      "or of the whole project, with -DCMAKE_CUDA_ARCHITECTURES=\"80;90\" or set(CMAKE_CUDA_ARCHITECTURES 80 90) "
      "before project(). PORTER_CUDA_ARCHITECTURES does not do this: it lists the architectures of porter's own "
      "tests and benchmarks.\n"
      "If this is intended, set PORTER_ARCHITECTURE_CHECK (variable, or property of the target) to "
      "cp_async (warn only below 80) or OFF.")
  endforeach()
endfunction()

# _porter_links_porter(<out> <target>): TRUE when <target> links porter::porter, directly or through
# the INTERFACE_LINK_LIBRARIES of targets it links (aliases resolved, $<LINK_ONLY:...> unwrapped;
# other generator expressions are not evaluated).
function(_porter_links_porter out target)
  # By name: an imported porter::porter (find_package) is visible only in the directory that found
  # it and below, not where this runs. As a subproject porter::porter is an alias of 'porter'.
  set(_porter porter::porter)
  if(TARGET porter::porter)
    get_target_property(_real porter::porter ALIASED_TARGET)
    if(_real)
      list(APPEND _porter ${_real})
    endif()
  endif()
  get_target_property(_todo ${target} LINK_LIBRARIES)
  if(NOT _todo)
    set(_todo "")
  endif()
  set(_seen "")
  set(_found FALSE)
  while(_todo)
    list(POP_FRONT _todo _item)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" _item "${_item}")
    if(_item IN_LIST _porter)
      set(_found TRUE)
      break()
    endif()
    if(_item MATCHES "^\\$<" OR NOT TARGET "${_item}" OR _item IN_LIST _seen)
      continue()
    endif()
    list(APPEND _seen "${_item}")
    get_target_property(_alias "${_item}" ALIASED_TARGET)
    if(_alias)
      set(_item ${_alias})
    endif()
    if(_item IN_LIST _porter)
      set(_found TRUE)
      break()
    endif()
    get_target_property(_next "${_item}" INTERFACE_LINK_LIBRARIES)
    if(_next)
      list(APPEND _todo ${_next})
    endif()
  endwhile()
  set(${out} ${_found} PARENT_SCOPE)
endfunction()

# _porter_compiles_cuda(<out> <target>): TRUE when one of the target's sources is CUDA (a .cu file,
# or a file whose LANGUAGE property is CUDA).
function(_porter_compiles_cuda out target)
  set(${out} FALSE PARENT_SCOPE)
  get_target_property(_srcs ${target} SOURCES)
  get_target_property(_dir ${target} SOURCE_DIR)
  if(NOT _srcs)
    return()
  endif()
  foreach(_s IN LISTS _srcs)
    if(_s MATCHES "^\\$<")
      continue()
    endif()
    if(NOT IS_ABSOLUTE "${_s}")
      set(_s "${_dir}/${_s}")
    endif()
    get_source_file_property(_lang "${_s}" TARGET_DIRECTORY ${target} LANGUAGE)
    if(_lang STREQUAL "CUDA" OR (NOT _lang AND _s MATCHES "\\.cu$"))
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# _porter_check_all_cuda_architectures(<porter_source_dir>): runs at the end of the top-level
# directory; checks every non-imported target of the build that compiles CUDA and links
# porter::porter, except porter's own (those of the directory <porter_source_dir> and the
# directories it added, built for PORTER_CUDA_ARCHITECTURES).
function(_porter_check_all_cuda_architectures porter_source_dir)
  set(_dirs "${CMAKE_SOURCE_DIR}")
  set(_targets "")
  while(_dirs)
    list(POP_FRONT _dirs _d)
    # porter's own directory and everything it added: not by path prefix, since a consumer may sit
    # inside porter's tree (tests/consumer does).
    if(porter_source_dir AND _d STREQUAL porter_source_dir)
      continue()
    endif()
    get_property(_sub DIRECTORY "${_d}" PROPERTY SUBDIRECTORIES)
    list(APPEND _dirs ${_sub})
    get_property(_ts DIRECTORY "${_d}" PROPERTY BUILDSYSTEM_TARGETS)
    list(APPEND _targets ${_ts})
  endwhile()
  get_property(_checked GLOBAL PROPERTY _PORTER_ARCHITECTURES_CHECKED)
  foreach(_t IN LISTS _targets)
    if(_t IN_LIST _checked)
      continue()
    endif()
    get_target_property(_type ${_t} TYPE)
    if(_type STREQUAL "INTERFACE_LIBRARY" OR _type STREQUAL "UTILITY")
      continue()
    endif()
    _porter_compiles_cuda(_cuda ${_t})
    if(NOT _cuda)
      continue()
    endif()
    _porter_links_porter(_links ${_t})
    if(_links)
      porter_check_cuda_architectures(${_t})
    endif()
  endforeach()
endfunction()

# _porter_defer_architecture_check([<porter_source_dir>]): schedules the check above once per
# configuration, however often porter is found or added.
function(_porter_defer_architecture_check)
  get_property(_done GLOBAL PROPERTY _PORTER_ARCHITECTURE_CHECK_DEFERRED)
  if(_done)
    return()
  endif()
  set_property(GLOBAL PROPERTY _PORTER_ARCHITECTURE_CHECK_DEFERRED TRUE)
  # EVAL: the deferred call's arguments would otherwise be read when it runs, in another scope.
  cmake_language(EVAL CODE
    "cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL _porter_check_all_cuda_architectures [[${ARGV0}]])")
endfunction()

# _porter_archs_at_least(<out> <min> <architectures...>): the entries of the list (CUDA_ARCHITECTURES
# values such as 75, 90a-real) whose number is at least <min>, in their order. porter's own tests
# and porter-bench build the sources that need a newer target (bf16 wmma fragments: 80) for those
# targets alone.
function(_porter_archs_at_least out min)
  set(_r "")
  foreach(_a IN LISTS ARGN)
    string(REGEX MATCH "^[0-9]+" _n "${_a}")
    if(NOT _n STREQUAL "" AND _n GREATER_EQUAL ${min})
      list(APPEND _r ${_a})
    endif()
  endforeach()
  set(${out} "${_r}" PARENT_SCOPE)
endfunction()
