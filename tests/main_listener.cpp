// Initialises MPI and Kokkos around the whole Catch2 run (the prebuilt Catch2WithMain supplies
// main(); a listener avoids the compile cost of a custom runner).
#ifdef DG_CATCH2_V3
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>
#else
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <catch2/catch.hpp>
#endif

#include <Kokkos_Core.hpp>
#include <mpi.h>

namespace {
#ifdef DG_CATCH2_V3
using ListenerBase = Catch::EventListenerBase;
#else
using ListenerBase = Catch::TestEventListenerBase;
#endif

struct MpiKokkosListener : ListenerBase {
  using ListenerBase::ListenerBase;
  void testRunStarting(const Catch::TestRunInfo&) override {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) MPI_Init(nullptr, nullptr);
    if (!Kokkos::is_initialized()) Kokkos::initialize();
  }
  void testRunEnded(const Catch::TestRunStats&) override {
    if (Kokkos::is_initialized()) Kokkos::finalize();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
};
} // namespace

CATCH_REGISTER_LISTENER(MpiKokkosListener)
