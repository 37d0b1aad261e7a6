// tests/host/destination_test.cpp — tiled destinations: the element kind recorded from the type,
// the tensor map's data type for reductions, and the rules a destination adds to a source's.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "porter/destination.hpp"
#include "porter/error.hpp"
#include "tensor_map.hpp"
#if !PORTER_HIP
#  include <cuda.h>  // the driver's tensor-map enums (a HIP build has no tensor maps)
#endif

namespace {

struct rgba { unsigned char r, g, b, a; };

static_assert(porter::element_kind_of<float> == porter::element_kind::f32, "float reduces as f32");
static_assert(porter::element_kind_of<std::int32_t> == porter::element_kind::s32, "int32 as s32");
static_assert(porter::element_kind_of<std::uint32_t> == porter::element_kind::u32, "uint32 as u32");
static_assert(porter::element_kind_of<unsigned long long> == porter::element_kind::u64, "unsigned long long as u64");
static_assert(porter::element_kind_of<rgba> == porter::element_kind::raw && porter::element_kind_of<double> == porter::element_kind::raw,
              "everything else is bytes (stores only)");
static_assert(porter::reducible(porter::element_kind::f32, porter::reduce_op::add) &&
                  !porter::reducible(porter::element_kind::f32, porter::reduce_op::min) &&
                  porter::reducible(porter::element_kind::s32, porter::reduce_op::max) &&
                  !porter::reducible(porter::element_kind::u64, porter::reduce_op::max) &&
                  !porter::reducible(porter::element_kind::raw, porter::reduce_op::add),
              "the reductions every path has");

std::string rule_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const porter::error& e) {
    return e.rule();
  }
  return "";
}

alignas(256) unsigned char mem[1 << 16];

TEST(Destination, RecordsTheElementKindAndIsASourceOfTheSameLayout) {
  using B = porter::box<float, 8, 32>;
  float* p = reinterpret_cast<float*>(mem);
  const std::int64_t ext[2] = {40, 100};
  const porter::tiled_destination<B> d = porter::make_tiled_destination<B>(p, ext);
  EXPECT_EQ(d.kind, porter::element_kind::f32);
  EXPECT_EQ(d.desc().kind, porter::element_kind::f32);
  EXPECT_EQ(d.data(), p);
  EXPECT_EQ(d.stride[0], 100);
  const porter::tiled_source<B> s = porter::make_tiled_source<B>(p, ext);
  EXPECT_EQ(s.kind, porter::element_kind::raw);
  EXPECT_EQ(s.supported & porter::path_bit(porter::path_id::staged), d.supported & porter::path_bit(porter::path_id::staged));
  using R = porter::box<rgba, 4, 16>;
  const std::int64_t e2[2] = {10, 64};
  EXPECT_EQ(porter::make_tiled_destination<R>(reinterpret_cast<rgba*>(mem), e2).kind, porter::element_kind::raw);
}

TEST(Destination, ArithmeticElementsMustBeNaturallyAligned) {
  using B = porter::box<unsigned long long, 8, 8>;
  const std::int64_t ext[2] = {16, 16};
  EXPECT_EQ(rule_of([&] { porter::make_tiled_destination<B>(reinterpret_cast<unsigned long long*>(mem + 4), ext); }),
            "destination.element_alignment");
  EXPECT_EQ(rule_of([&] { porter::make_tiled_destination<B>(reinterpret_cast<unsigned long long*>(mem + 8), ext); }), "");
  // Bytes (raw kind) at any alignment stay allowed, as for sources.
  using C = porter::box<rgba, 4, 16>;
  const std::int64_t e2[2] = {10, 64};
  EXPECT_EQ(rule_of([&] { porter::make_tiled_destination<C>(reinterpret_cast<rgba*>(mem + 1), e2); }), "");
}

TEST(Destination, ElementKindMustMatchTheElementSize) {
  porter::source_desc d;
  d.rank = 1;
  d.elem_bytes = 4;
  d.ptr = mem;
  d.extent[0] = 100;
  d.stride[0] = 1;
  d.box[0] = 32;
  d.kind = porter::element_kind::u64;
  EXPECT_EQ(rule_of([&] { (void)porter::validate_source(d); }), "destination.element_kind");
  d.kind = porter::element_kind::u32;
  EXPECT_EQ(rule_of([&] { (void)porter::validate_source(d); }), "");
}

TEST(Destination, TensorMapOfAReducingDestinationHasItsDataType) {
#if PORTER_HIP
  GTEST_SKIP() << "a HIP build encodes no tensor maps";
#else
  porter::source_desc d;
  d.rank = 2;
  d.elem_bytes = 4;
  d.ptr = mem;
  d.extent[0] = 64;
  d.extent[1] = 64;
  d.stride[0] = 64;
  d.stride[1] = 1;
  d.box[0] = 8;
  d.box[1] = 32;
  const struct { porter::element_kind k; int bytes; CUtensorMapDataType t; } want[] = {
      {porter::element_kind::raw, 4, CU_TENSOR_MAP_DATA_TYPE_UINT32}, {porter::element_kind::f32, 4, CU_TENSOR_MAP_DATA_TYPE_FLOAT32},
      {porter::element_kind::s32, 4, CU_TENSOR_MAP_DATA_TYPE_INT32},   {porter::element_kind::u32, 4, CU_TENSOR_MAP_DATA_TYPE_UINT32},
      {porter::element_kind::u64, 8, CU_TENSOR_MAP_DATA_TYPE_UINT64}};
  for (const auto& w : want) {
    d.kind = w.k;
    d.elem_bytes = w.bytes;
    EXPECT_EQ(porter::detail::tensor_map_params_for(d, 8).data_type, int(w.t)) << int(w.k);
  }
#endif
}

}  // namespace
