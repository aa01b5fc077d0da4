#!/usr/bin/env bash
# The README's test command: set up (Debian packages, configure, build), then run every test.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup-debian.sh"
cd "${DG_BUILD_DIR:-$here/build}"
ctest --output-on-failure -j "${DG_JOBS:-$(nproc 2>/dev/null || echo 2)}" "$@"
