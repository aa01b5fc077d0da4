// Catch2 v2 / v3 compatibility: include this instead of the Catch2 headers.
#pragma once
#ifdef DG_CATCH2_V3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif
