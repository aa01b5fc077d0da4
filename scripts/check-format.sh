#!/usr/bin/env bash
# Checks that every C++ source of the repository follows the committed .clang-format (the
# Debian 12 clang-format 14 that scripts/setup-debian.sh installs). Prints each difference and
# exits non-zero when there is one; `scripts/check-format.sh --fix` rewrites the files instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format not found (scripts/setup-debian.sh installs it)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
clang-format --dry-run --Werror "${files[@]}"
echo "check-format: ${#files[@]} files follow .clang-format ($(clang-format --version))"
