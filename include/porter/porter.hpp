// porter/porter.hpp — everything a kernel author includes.
//
// porter moves tiles of data between global and shared memory asynchronously (async_copy in,
// async_store / async_reduce out), written once and lowered per target: TMA on sm_90, cp.async on
// sm_80, staged loads and thread stores everywhere (NVIDIA sm_75+, AMD via HIP).
#pragma once
#include "porter/config.hpp"
#include "porter/path.hpp"
#include "porter/box.hpp"
#include "porter/error.hpp"
#include "porter/device.hpp"
#include "porter/source.hpp"
#include "porter/stage_ring.hpp"
#include "porter/shared_layout.hpp"
#include "porter/pipeline.hpp"
#include "porter/roles.hpp"
#include "porter/role_pipeline.hpp"
#include "porter/async_copy.hpp"
#include "porter/destination.hpp"
#include "porter/store.hpp"
#include "porter/fragment.hpp"
#include "porter/schedule.hpp"
#include "porter/mechanisms.hpp"
#include "porter/launch.hpp"
#include "porter/cluster.hpp"
#include "porter/planner.hpp"
#include "porter/version.hpp"
