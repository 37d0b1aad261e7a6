# bench/tests/wgmma_lowering.cmake — what the compiler made of porter-bench's warpgroup-MMA GEMM
# (kernels/bf16gemm_wgmma_kernels.cu, sm_90a), read from the PTX and ptxas log that
# tools/nvcc_keep.sh kept (no GPU needed):
#   * every instantiation issues wgmma.mma_async m64n256k16 and makes no function call (no vprintf:
#     the TU is built with PORTER_TRAP_MESSAGES=0), and ptxas reports no serialized wgmma (C7510,
#     "... at a function call", nor any other "wgmma.mma_async instructions are serialized");
#   * the cp_async and staged instantiations issue fence.proxy.async.shared::cta (the consumers'
#     porter::async_proxy_reads wait: wgmma reads bytes the generic proxy wrote);
#   * no instantiation spills (ptxas "0 bytes spill stores");
#   * the tma instantiations issue cp.async.bulk.tensor, the cp_async ones cp.async, and only the
#     three setmaxnreg kernels carry setmaxnreg;
#   * the "-l2hint" row (tma; A evict_last, B evict_first: cache_hint 3 and 2 in the mangled name)
#     carries .L2::cache_hint and both createpolicy priorities; no other row has either;
#   * the multicast instantiation (Multicast = true: "Lb1EEEv" in the mangled name; rows
#     "-multicast" and "-pairs") issues .multicast::cluster and arrives on its peers' EMPTY barriers
#     (mapa, mbarrier.arrive.shared::cluster, never .release.cluster); no other kernel does either.
# Usage: cmake -DDIR=<keep dir>/bf16gemm_wgmma_kernels -P wgmma_lowering.cmake
file(READ "${DIR}/bf16gemm_wgmma_kernels.ptx" _ptx)
file(READ "${DIR}/ptxas.log" _log)
if(_log MATCHES "C7510|wgmma\\.mma_async instructions are serialized")
  message(FATAL_ERROR "ptxas serialized wgmma (C7510) in porter-bench's wgmma kernels:\n${_log}")
endif()
string(REGEX MATCHALL "[0-9]+ bytes spill stores" _spills "${_log}")
list(LENGTH _spills _n)
if(_n LESS 9)
  message(FATAL_ERROR "expected ptxas resource lines for 9 wgmma kernels, found ${_n}:\n${_log}")
endif()
foreach(_s IN LISTS _spills)
  if(NOT _s STREQUAL "0 bytes spill stores")
    message(FATAL_ERROR "a wgmma kernel spills (${_s}):\n${_log}")
  endif()
endforeach()
# Split the PTX into its entry functions.
string(REGEX MATCHALL "\\.entry [A-Za-z0-9_]+" _entries "${_ptx}")
list(LENGTH _entries _ne)
if(NOT _ne EQUAL 9)
  message(FATAL_ERROR "expected 9 pb_bf16gemm_wgmma entries in the PTX, found ${_ne}")
endif()
# Entry i's body: from its ".entry" to the next one's (string positions: the PTX is full of ';', so
# it cannot be a CMake list).
set(_starts "")
foreach(_e IN LISTS _entries)
  string(FIND "${_ptx}" "${_e}" _pos)
  list(APPEND _starts ${_pos})
endforeach()
string(LENGTH "${_ptx}" _len)
list(APPEND _starts ${_len})
set(_setmax 0)
set(_hinted 0)
set(_multicast 0)
math(EXPR _last "${_ne} - 1")
foreach(_i RANGE ${_last})
  math(EXPR _j "${_i} + 1")
  list(GET _starts ${_i} _b)
  list(GET _starts ${_j} _e)
  math(EXPR _l "${_e} - ${_b}")
  string(SUBSTRING "${_ptx}" ${_b} ${_l} _body)
  list(GET _entries ${_i} _name)
  if(NOT _body MATCHES "wgmma\\.mma_async\\.sync\\.aligned\\.m64n256k16\\.f32\\.bf16\\.bf16")
    message(FATAL_ERROR "${_name}: no wgmma.mma_async m64n256k16")
  endif()
  if(_body MATCHES "[ \t]call(\\.uni)?[ \t(]|vprintf")
    message(FATAL_ERROR "${_name}: makes a function call (ptxas would serialize its wgmma)")
  endif()
  if(_name MATCHES "4path3tma" AND NOT _body MATCHES "cp\\.async\\.bulk\\.tensor\\.2d")
    message(FATAL_ERROR "${_name}: the tma instantiation issues no cp.async.bulk.tensor")
  endif()
  if(_name MATCHES "4path8cp_async" AND NOT _body MATCHES "cp\\.async\\.cg\\.shared\\.global|cp\\.async\\.ca\\.shared\\.global")
    message(FATAL_ERROR "${_name}: the cp_async instantiation issues no cp.async")
  endif()
  # cp_async and staged land bytes through the generic proxy; wgmma reads through the async proxy:
  # the consumers' wait (porter::async_proxy_reads) must be followed by fence.proxy.async.
  if(_name MATCHES "4path8cp_async|4path6staged" AND NOT _body MATCHES "fence\\.proxy\\.async\\.shared::cta")
    message(FATAL_ERROR "${_name}: no fence.proxy.async before the consumers' wgmma reads generic-proxy writes")
  endif()
  if(_name MATCHES "10cache_hintE3ELSB_2E")
    if(NOT _body MATCHES "\\.L2::cache_hint" OR NOT _body MATCHES "createpolicy\\.fractional\\.L2::evict_last"
       OR NOT _body MATCHES "createpolicy\\.fractional\\.L2::evict_first")
      message(FATAL_ERROR "${_name}: the l2hint instantiation carries no .L2::cache_hint with evict_last and evict_first policies")
    endif()
    math(EXPR _hinted "${_hinted} + 1")
  elseif(_body MATCHES "\\.L2::cache_hint|createpolicy")
    message(FATAL_ERROR "${_name}: an unhinted instantiation carries an L2 cache hint")
  endif()
  if(_name MATCHES "Lb1EEEv")
    if(NOT _body MATCHES "\\.multicast::cluster" OR NOT _body MATCHES "mapa\\.shared::cluster"
       OR NOT _body MATCHES "mbarrier\\.arrive\\.shared::cluster")
      message(FATAL_ERROR "${_name}: the multicast instantiation issues no .multicast::cluster copy or no remote EMPTY arrival")
    endif()
    # A release at cluster scope compiles to a GPU-scope MEMBAR before every remote arrival: 0.72x
    # on the H200 (bench/results/h200-2026-12-05-session36/NOTES.md).
    if(_body MATCHES "mbarrier\\.arrive\\.release\\.cluster")
      message(FATAL_ERROR "${_name}: the remote EMPTY arrival releases at cluster scope (a GPU-scope fence per arrival)")
    endif()
    math(EXPR _multicast "${_multicast} + 1")
  elseif(_body MATCHES "\\.multicast::cluster|mapa\\.")
    message(FATAL_ERROR "${_name}: a kernel without multicast multicasts or arrives on a peer")
  endif()
  if(_body MATCHES "setmaxnreg")
    math(EXPR _setmax "${_setmax} + 1")
    if(NOT _name MATCHES "registersILi40ELi232E")
      message(FATAL_ERROR "${_name}: setmaxnreg without a register request")
    endif()
  endif()
endforeach()
if(NOT _setmax EQUAL 3)
  message(FATAL_ERROR "expected setmaxnreg in exactly the three roles_setmaxnreg kernels, found ${_setmax}")
endif()
if(NOT _multicast EQUAL 1)
  message(FATAL_ERROR "expected the one multicast kernel, found ${_multicast}")
endif()
if(NOT _hinted EQUAL 1)
  message(FATAL_ERROR "expected the one l2hint kernel, found ${_hinted}")
endif()
message(STATUS "wgmma lowering: 9 kernels, wgmma m64n256k16 in each, no call, no C7510, no spill, L2 hints in the l2hint row, multicast in the multicast row")
