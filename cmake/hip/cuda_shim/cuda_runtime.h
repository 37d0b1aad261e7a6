// cuda_runtime.h for porter's HIP build only (cmake/hip adds this folder to the include path of the
// programs written against the CUDA runtime: examples, porter-bench). Never installed, never on a
// CUDA build's include path. The names come from cuda_compat.hpp (beside this file).
#pragma once
#include "cuda_compat.hpp"
