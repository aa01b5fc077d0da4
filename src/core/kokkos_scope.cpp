// Kokkos initialisation with only the --kokkos-* command-line arguments.
#include "dg/core/kokkos.hpp"

#include <string>
#include <vector>

namespace dg {

KokkosScope::KokkosScope(int argc, char** argv) {
  std::vector<char*> args;
  args.push_back(argv[0]);
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]).rfind("--kokkos-", 0) == 0) args.push_back(argv[i]);
  int n = static_cast<int>(args.size());
  args.push_back(nullptr);
  Kokkos::initialize(n, args.data());
}

KokkosScope::~KokkosScope() {
  Kokkos::finalize();
}

} // namespace dg
