// Helpers shared by the mesh and partition tests: reference face points and a scratch directory.
#pragma once

#include "dg/mesh/hex.hpp"

#include <array>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace dg::test {

/// Reference coordinates (r,s,t) of the point (a,b) of local face f.
inline std::array<double, 3> face_point(int f, double a, double b) {
  std::array<double, 3> xi{};
  xi[hex::face_dir(f)] = hex::face_side(f) ? 1.0 : -1.0;
  xi[hex::face_tangent(f, 0)] = a;
  xi[hex::face_tangent(f, 1)] = b;
  return xi;
}

/// A fresh directory under the system temp dir, removed on destruction.
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(const std::string& tag) {
    path = std::filesystem::temp_directory_path() /
           ("dg_test_" + tag + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

} // namespace dg::test
