// porter/fragments/wmma.hpp — AMD flavour: none. nvcuda::wmma fragments (porter/wmma.hpp) are
// NVIDIA's; on AMD, rocWMMA's rocwmma::load_matrix_sync / store_matrix_sync read and write LDS
// directly (ds_read / ds_write), so there is no generic-address cost for porter to remove.
// Mirrors the NVIDIA flavour's file name so that including porter/wmma.hpp in a HIP build stops
// here with this message rather than at a missing <mma.h>.
#pragma once
#error "porter/wmma.hpp: nvcuda::wmma fragments exist on NVIDIA only; on AMD use rocWMMA (rocwmma::load_matrix_sync), or porter::load_fragments (porter/fragment.hpp) for mma-layout b16 fragments"
