#!/usr/bin/env bash
# The README's test command: set up (Debian packages, configure, build), then run the tests.
#   scripts/test.sh [CTEST_ARGS...]             the Release build in build/, every test
#   scripts/test.sh --sanitize [CTEST_ARGS...]  an AddressSanitizer + UndefinedBehaviorSanitizer
#       build in build-asan/ (-DCMAKE_BUILD_TYPE=Sanitize -DDG_SANITIZE=address,undefined, that is
#       -O1 -g1), and under it every test but the h-convergence and MMS studies: the unit tests, the
#       [mpi] tests at 1-4 and 8 ranks, the CLI tests, p-convergence and the plot test.
# DG_BUILD_DIR, DG_JOBS and DG_CMAKE_ARGS work as in scripts/setup-debian.sh.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
what="tests"
exclude=()
if [ "${1:-}" = "--sanitize" ]; then
  shift
  what="sanitizer tests (address,undefined)"
  export DG_BUILD_DIR=${DG_BUILD_DIR:-$here/build-asan}
  export DG_CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Sanitize -DDG_SANITIZE=address,undefined ${DG_CMAKE_ARGS:-}"
  # The h-convergence and manufactured-solution studies run the kernels of the unit tests on
  # successively finer meshes: under the sanitizers, several times the test time of all the
  # other tests together, for no code path of their own (the [fixed][expr] and [mpi] tests
  # cover the boundary-data and expression paths the MMS studies use).
  exclude=(-E "^(h-convergence|MMS):")
fi
start=$SECONDS
"$here/scripts/setup-debian.sh"
built=$SECONDS
cd "${DG_BUILD_DIR:-$here/build}"
rc=0
ctest --output-on-failure -j "${DG_JOBS:-$(nproc 2>/dev/null || echo 2)}" "${exclude[@]}" "$@" || rc=$?
echo "test.sh: $what in $PWD: set-up and build $((built - start)) s, ctest $((SECONDS - built)) s"
exit "$rc"
