// dgmesh: generates a structured hex box mesh (dgm_mesh-style flags), or converts a Gmsh mesh
// (`dgmesh import FILE.msh -o FILE.h5`), and writes HDF5 + XDMF.
// Bad input: one line "dgmesh: <reason>" on stderr, exit status 2, no file written.
#include "dg/core/error.hpp"
#include "dg/mesh/generate.hpp"
#include "dg/mesh/mesh.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace {

/// dgmesh import FILE.msh [-o OUT.h5]: reads, checks (connectivity, conforming faces) and writes.
int import_gmsh(const std::vector<std::string>& args) {
  std::string in, out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o") {
      if (i + 1 >= args.size()) DG_INPUT_ERROR("import: -o: missing value (an output file name)");
      out = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      DG_INPUT_ERROR("import: " << args[i]
                                << ": unknown flag (usage: dgmesh import FILE.msh -o "
                                   "FILE.h5)");
    } else if (in.empty()) {
      in = args[i];
    } else {
      DG_INPUT_ERROR("import: unexpected argument '"
                     << args[i] << "' (usage: dgmesh import FILE.msh -o FILE.h5)");
    }
  }
  if (in.empty())
    DG_INPUT_ERROR("import: missing input file (usage: dgmesh import FILE.msh -o FILE.h5)");
  if (out.empty()) {
    const auto dot = in.rfind('.');
    out = (dot == std::string::npos ? in : in.substr(0, dot)) + ".h5";
  }
  auto mesh = dg::mesh::read_gmsh(in);
  try {
    dg::mesh::build_connectivity(mesh); // refuses non-conforming meshes before writing
  } catch (const dg::InputError& e) {
    DG_INPUT_ERROR(in << ": " << e.what());
  }
  mesh.command = "dgmesh import " + in;
  dg::mesh::write_mesh(mesh, out);
  std::printf("dgmesh: %s: %lld elements of geometric order %d, %lld nodes, %zu boundary faces, "
              "%zu periodic pairs; boundary tags:",
              out.c_str(), static_cast<long long>(mesh.num_elements()), mesh.order,
              static_cast<long long>(mesh.num_vertices()), mesh.boundary.size() / 3,
              mesh.periodic.size() / 4);
  for (std::size_t t = 0; t < mesh.tag_names.size(); ++t)
    std::printf(" %zu %s", t, mesh.tag_names[t].c_str());
  std::printf("\n");
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  using clock = std::chrono::steady_clock;
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args[0] == "import")
      return import_gmsh(std::vector<std::string>(args.begin() + 1, args.end()));
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
