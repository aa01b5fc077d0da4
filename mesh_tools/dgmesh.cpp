// dgmesh: generates a structured hex box mesh (dgm_mesh-style flags) and writes HDF5 + XDMF.
// Bad input: one line "dgmesh: <reason>" on stderr, exit status 2, no file written.
#include "dg/core/error.hpp"
#include "dg/mesh/generate.hpp"
#include "dg/mesh/mesh.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  using clock = std::chrono::steady_clock;
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const auto opt = dg::mesh::parse_box_flags(args);
    if (opt.help) {
      std::cout << dg::mesh::box_help();
      return 0;
    }
    const auto t0 = clock::now();
    auto mesh = dg::mesh::generate_box(opt);
    mesh.command = "dgmesh" + (opt.command.empty() ? std::string() : " " + opt.command);
    const auto t1 = clock::now();
    dg::mesh::write_mesh(mesh, opt.output);
    const auto t2 = clock::now();
    const double tg = std::chrono::duration<double>(t1 - t0).count();
    const double tw = std::chrono::duration<double>(t2 - t1).count();
    std::printf("dgmesh: %s: %lld elements, %lld vertices, %zu boundary faces, %zu periodic "
                "pairs; generated in %.3f s, written in %.3f s\n",
                opt.output.c_str(), static_cast<long long>(mesh.num_elements()),
                static_cast<long long>(mesh.num_vertices()), mesh.boundary.size() / 3,
                mesh.periodic.size() / 4, tg, tw);
    return 0;
  } catch (const dg::InputError& e) {
    std::cerr << "dgmesh: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "dgmesh: " << e.what() << "\n";
    return 1;
  }
}
