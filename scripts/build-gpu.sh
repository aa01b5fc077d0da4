#!/usr/bin/env bash
# Builds dgsolve for an NVIDIA GPU in one command: Kokkos and Kokkos-Kernels for CUDA (from their
# source trees, or an existing install), then dgsolve with Kokkos' nvcc_wrapper, then ctest.
# It changes nothing in Kokkos: a release that does not build with the installed CUDA is refused.
# Run with --help for the options; docs/gpu.md explains the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
me="build-gpu"

usage() {
  cat <<EOF
usage: scripts/build-gpu.sh (--kokkos-src DIR --kernels-src DIR | --kokkos-root DIR) [options]
                            [-DVAR=VALUE ...] [-- CMAKE_ARGS...]

Builds Kokkos + Kokkos-Kernels for CUDA, then dgsolve, then runs ctest.

Kokkos (one of):
  --kokkos-src DIR     Kokkos source tree (kokkos/kokkos at a release tag, 4.7.01 or later
                       with CUDA 13), built and installed into --prefix
  --kernels-src DIR    Kokkos-Kernels source tree of the same release series (with --kokkos-src)
  --kokkos-root DIR    an installed Kokkos + Kokkos-Kernels built for CUDA (no Kokkos build)

Options:
  --arch NAME          GPU architecture: a Kokkos name (HOPPER90, AMPERE80, ADA89, ...), sm_90,
                       90 or 9.0 (default: detected with nvidia-smi)
  --prefix DIR         Kokkos install prefix (default: build-kokkos/install); an install that
                       matches (versions, architecture, CUDA) is reused, not rebuilt
  --kokkos-build DIR   Kokkos' own build trees (default: build-kokkos)
  --build DIR          dgsolve's build directory (default: build-gpu)
  --jobs N             parallel build and test jobs (default: $(nproc 2>/dev/null || echo 2))
  --metis-root DIR     METIS prefix holding include/metis.h (default: the system's)
  --cxx COMPILER       host C++ compiler behind nvcc (NVCC_WRAPPER_DEFAULT_COMPILER; default g++)
  --no-test            configure and build, but do not run ctest
  --dry-run            check the inputs and print the commands without running them
  -DVAR=VALUE          passed to dgsolve's CMake (any number; also everything after --)
  -h, --help           this text

Relative paths are taken from the current directory. The tests launch MPI with the
MPIEXEC_EXECUTABLE / MPIEXEC_PREFLAGS of dgsolve's CMake; with Open MPI the script adds
--oversubscribe, and --allow-run-as-root when run as root, unless -DMPIEXEC_PREFLAGS=... is given.
Each step logs to BUILD/logs/; the first failing step stops the script with its name and log.
EOF
}

die() { # die MESSAGE: one line on stderr, exit status 2 (bad input or an unsupported combination)
  echo "$me: $*" >&2
  exit 2
}
say() { echo "$me: $*"; }
abspath() { # abspath PATH: absolute, without requiring that PATH exists
  case $1 in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$PWD/$1" ;;
  esac
}
need_value() { if [ "$#" -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value (see --help)"; fi; }

# --- arguments -------------------------------------------------------------------------------
kokkos_src="" kernels_src="" kokkos_root="" arch_arg="" prefix="" kbuild="" build=""
jobs=$(nproc 2>/dev/null || echo 2)
metis_root="" host_cxx="" run_tests=1 dry_run=0
extra=()
while [ "$#" -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --kokkos-src) need_value "$@"; kokkos_src=$(abspath "$2"); shift ;;
    --kernels-src) need_value "$@"; kernels_src=$(abspath "$2"); shift ;;
    --kokkos-root) need_value "$@"; kokkos_root=$(abspath "$2"); shift ;;
    --arch) need_value "$@"; arch_arg=$2; shift ;;
    --prefix) need_value "$@"; prefix=$(abspath "$2"); shift ;;
    --kokkos-build) need_value "$@"; kbuild=$(abspath "$2"); shift ;;
    --build) need_value "$@"; build=$(abspath "$2"); shift ;;
    --jobs) need_value "$@"; jobs=$2; shift ;;
    --metis-root) need_value "$@"; metis_root=$(abspath "$2"); shift ;;
    --cxx) need_value "$@"; host_cxx=$2; shift ;;
    --no-test) run_tests=0 ;;
    --dry-run) dry_run=1 ;;
    -D?*) extra+=("$1") ;;
    --) shift; extra+=("$@"); break ;;
    *) die "unknown argument '$1'; valid: --kokkos-src, --kernels-src, --kokkos-root, --arch," \
      "--prefix, --kokkos-build, --build, --jobs, --metis-root, --cxx, --no-test, --dry-run," \
      "-DVAR=VALUE, --help" ;;
  esac
  shift
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs $jobs: expected a positive integer"
if [ -n "$kokkos_root" ]; then
  [ -z "$kokkos_src$kernels_src" ] || die "give either --kokkos-root or --kokkos-src with" \
    "--kernels-src, not both"
  [ -z "$prefix" ] || die "--prefix is where a Kokkos built from source goes; with --kokkos-root" \
    "it has no use"
else
  if [ -z "$kokkos_src" ] || [ -z "$kernels_src" ]; then
    die "Kokkos is missing: give --kokkos-src DIR and --kernels-src DIR (source trees) or" \
      "--kokkos-root DIR (an install); see --help"
  fi
fi
kbuild=${kbuild:-$here/build-kokkos}
prefix=${prefix:-$kbuild/install}
build=${build:-$here/build-gpu}
if [ -n "$metis_root" ] && [ ! -f "$metis_root/include/metis.h" ]; then
  die "--metis-root $metis_root: no include/metis.h there (for Debian's .debs unpacked with dpkg" \
    "-x, give <dir>/usr)"
fi
if [ -n "$host_cxx" ]; then
  command -v "$host_cxx" >/dev/null || die "--cxx $host_cxx: no such compiler"
  export NVCC_WRAPPER_DEFAULT_COMPILER=$host_cxx
fi

# --- helpers: versions and architectures -------------------------------------------------------
# Encoded versions: major * 10000 + minor * 100 + patch (Kokkos' own KOKKOS_VERSION scheme).
vnum() { # vnum 4.7.1 -> 40701
  local IFS=.
  read -r a b c <<<"$1"
  echo $((10#${a:-0} * 10000 + 10#${b:-0} * 100 + 10#${c:-0}))
}
source_version() { # source_version DIR PACKAGE: the version lines of DIR/CMakeLists.txt
  local dir=$1 pkg=$2 v part
  [ -f "$dir/CMakeLists.txt" ] || die "$dir: no CMakeLists.txt (not a $pkg source tree)"
  v=""
  for part in MAJOR MINOR PATCH; do
    local n
    n=$(sed -n -E "s/^[[:space:]]*[sS][eE][tT][[:space:]]*\([[:space:]]*${pkg}_VERSION_${part}[[:space:]]+([0-9]+)[[:space:]]*\).*/\1/p" \
      "$dir/CMakeLists.txt" | head -n 1)
    [ -n "$n" ] || die "$dir/CMakeLists.txt: no set(${pkg}_VERSION_${part} N) line (not a $pkg" \
      "source tree?)"
    v="$v${v:+.}$((10#$n))"
  done
  echo "$v"
}
config_file() { # config_file PREFIX PACKAGE FILE: PREFIX/lib*/cmake/PACKAGE/FILE, if present
  local f
  for f in "$1"/lib*/cmake/"$2"/"$3"; do
    [ -f "$f" ] && { echo "$f"; return 0; }
  done
  return 1
}
config_value() { # config_value FILE VAR: the value of set(VAR ...) in an installed CMake file
  sed -n -E "s/^[[:space:]]*[sS][eE][tT][[:space:]]*\([[:space:]]*$2[[:space:]]+\"?([^\")]*)\"?[[:space:]]*\).*/\1/p" "$1" |
    head -n 1
}
installed() { # installed PREFIX: sets i_kokkos i_kernels i_arch i_devices i_cuda (empty if absent)
  local f
  i_kokkos="" i_kernels="" i_arch="" i_devices="" i_cuda=""
  if f=$(config_file "$1" Kokkos KokkosConfigVersion.cmake); then
    i_kokkos=$(config_value "$f" PACKAGE_VERSION)
  fi
  if f=$(config_file "$1" Kokkos KokkosConfigCommon.cmake); then
    i_arch=$(config_value "$f" Kokkos_ARCH)
    i_devices=$(config_value "$f" Kokkos_DEVICES)
    i_cuda=$(config_value "$f" Kokkos_CXX_COMPILER_VERSION)
  fi
  if f=$(config_file "$1" KokkosKernels KokkosKernelsConfigVersion.cmake); then
    i_kernels=$(config_value "$f" PACKAGE_VERSION)
  fi
}
# Kokkos architecture names and their compute capabilities (CUDA "sm_" numbers).
arch_table="PASCAL60 60 PASCAL61 61 VOLTA70 70 VOLTA72 72 TURING75 75 AMPERE80 80 AMPERE86 86
ADA89 89 HOPPER90 90 BLACKWELL100 100 BLACKWELL120 120"
arch_name_of() { # arch_name_of CC -> the Kokkos name of compute capability CC
  local want=$1 name cc
  # shellcheck disable=SC2086 # the table splits into name/number pairs on purpose
  set -- $arch_table
  while [ "$#" -ge 2 ]; do
    name=$1 cc=$2
    shift 2
    if [ "$cc" = "$want" ]; then echo "$name"; return 0; fi
  done
  return 1
}
cc_of_arch() { # cc_of_arch NAME|sm_NN|NN|N.M -> compute capability NN (or NNN)
  local a
  a=$(echo "$1" | tr '[:lower:]' '[:upper:]')
  if [[ $a =~ ^SM_([0-9]+)$ ]]; then
    echo "$((10#${BASH_REMATCH[1]}))"
  elif [[ $a =~ ^([0-9]+)\.([0-9])$ ]]; then
    echo "$((10#${BASH_REMATCH[1]} * 10 + BASH_REMATCH[2]))"
  elif [[ $a =~ ^[0-9]+$ ]]; then
    echo "$((10#$a))"
  else
    local name cc
    # shellcheck disable=SC2086 # the table splits into name/number pairs on purpose
    set -- $arch_table
    while [ "$#" -ge 2 ]; do
      name=$1 cc=$2
      shift 2
      if [ "$name" = "$a" ]; then echo "$cc"; return 0; fi
    done
    return 1
  fi
}
known_archs() { # the Kokkos names of arch_table, comma-separated
  # shellcheck disable=SC2086
  set -- $arch_table
  local out=""
  while [ "$#" -ge 2 ]; do out="$out${out:+, }$1"; shift 2; done
  echo "$out"
}

# --- CUDA -------------------------------------------------------------------------------------
if ! command -v nvcc >/dev/null; then
  for d in "${CUDA_HOME:-}" "${CUDA_ROOT:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
    if [ -n "$d" ] && [ -x "$d/bin/nvcc" ]; then
      export PATH="$d/bin:$PATH"
      break
    fi
  done
fi
command -v nvcc >/dev/null || die "no nvcc on PATH, in \$CUDA_HOME/bin or in /usr/local/cuda/bin:" \
  "install the CUDA toolkit or put its bin/ on PATH"
cuda=$(nvcc --version | sed -n -E 's/.*release ([0-9]+)\.([0-9]+).*/\1.\2/p' | head -n 1)
[ -n "$cuda" ] || die "$(command -v nvcc) --version: no 'release X.Y' line"
cuda_major=${cuda%%.*}
[ "$cuda_major" -ge 11 ] || die "CUDA $cuda ($(command -v nvcc)): Kokkos 4 needs CUDA 11.0 or later"

# --- Kokkos: versions, the install to use, the architecture -----------------------------------
if [ -n "$kokkos_root" ]; then
  installed "$kokkos_root"
  [ -n "$i_kokkos" ] || die "--kokkos-root $kokkos_root: no" \
    "lib*/cmake/Kokkos/KokkosConfigVersion.cmake there (not a Kokkos install)"
  [ -n "$i_kernels" ] || die "--kokkos-root $kokkos_root: Kokkos $i_kokkos is there but not" \
    "Kokkos-Kernels (lib*/cmake/KokkosKernels); build it into the same prefix, or use" \
    "--kokkos-src/--kernels-src"
  [[ ";$i_devices;" == *";CUDA;"* ]] || die "--kokkos-root $kokkos_root: Kokkos $i_kokkos is" \
    "built for ${i_devices:-no device}, not CUDA"
  [ -x "$kokkos_root/bin/nvcc_wrapper" ] || die "--kokkos-root $kokkos_root: no bin/nvcc_wrapper" \
    "there"
  if [ -n "$i_cuda" ] && [ "${i_cuda%%.*}" != "$cuda_major" ]; then
    die "--kokkos-root $kokkos_root: Kokkos was built with nvcc $i_cuda, but the nvcc found is" \
      "CUDA $cuda: rebuild Kokkos with this CUDA (--kokkos-src/--kernels-src)"
  fi
  kokkos_version=$i_kokkos kernels_version=$i_kernels
  prefix=$kokkos_root
else
  [ -d "$kokkos_src" ] || die "--kokkos-src $kokkos_src: no such directory"
  [ -d "$kernels_src" ] || die "--kernels-src $kernels_src: no such directory"
  kokkos_version=$(source_version "$kokkos_src" Kokkos)
  kernels_version=$(source_version "$kernels_src" KokkosKernels)
  [ -x "$kokkos_src/bin/nvcc_wrapper" ] || die "--kokkos-src $kokkos_src: no executable" \
    "bin/nvcc_wrapper (not a Kokkos source tree?)"
  if [ "$(vnum "$kokkos_version")" -lt 40000 ]; then
    die "Kokkos $kokkos_version ($kokkos_src): dgsolve's GPU build needs Kokkos 4.x; use" \
      "kokkos/kokkos at tag 4.7.01 or later"
  fi
  if [ "$cuda_major" -ge 13 ] && [ "$(vnum "$kokkos_version")" -lt 40701 ]; then
    die "Kokkos $kokkos_version ($kokkos_src) does not build with CUDA $cuda (CUDA 13 changed" \
      "cudaGraphAddDependencies, cudaMemAdvise and cudaMemPrefetchAsync); Kokkos 4.7.01 is the" \
      "first release that does: use kokkos/kokkos at tag 4.7.01 or later with" \
      "kokkos/kokkos-kernels of the same release series, or CUDA 12.x"
  fi
  if [ "${kokkos_version%.*}" != "${kernels_version%.*}" ]; then
    say "warning: Kokkos $kokkos_version with Kokkos-Kernels $kernels_version: the release series" \
      "differ (Kokkos-Kernels ${kokkos_version%.*}.x goes with Kokkos ${kokkos_version%.*}.x)"
  fi
fi

if [ -n "$arch_arg" ]; then
  cc=$(cc_of_arch "$arch_arg") || die "--arch $arch_arg: unknown architecture; valid:" \
    "$(known_archs), or sm_NN, NN, N.M"
  arch=$(arch_name_of "$cc") || die "--arch $arch_arg: compute capability $cc has no Kokkos" \
    "architecture here; valid: $(known_archs)"
  arch_from="--arch $arch_arg"
elif [ -n "$kokkos_root" ] && [ -n "$i_arch" ] && ! command -v nvidia-smi >/dev/null; then
  arch=""
  for a in ${i_arch//;/ }; do
    cc_of_arch "$a" >/dev/null 2>&1 && arch=$a
  done
  [ -n "$arch" ] || die "--kokkos-root $kokkos_root: no GPU architecture in its Kokkos_ARCH" \
    "($i_arch); give --arch"
  arch_from="the Kokkos install (no nvidia-smi here)"
else
  command -v nvidia-smi >/dev/null || die "no nvidia-smi to detect the GPU: name its architecture" \
    "with --arch (e.g. --arch HOPPER90 for an H100)"
  caps=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' ' | sort -u) ||
    die "nvidia-smi --query-gpu=compute_cap failed (no GPU or no driver?): name the architecture" \
      "with --arch"
  [ -n "$caps" ] || die "nvidia-smi lists no GPU: name the architecture with --arch"
  if [ "$(echo "$caps" | wc -l)" -ne 1 ]; then
    die "the GPUs here differ in compute capability ($(echo "$caps" | paste -sd, -)):" \
      "choose one with --arch"
  fi
  cc=$(cc_of_arch "$caps")
  arch=$(arch_name_of "$cc") || die "the GPU's compute capability $caps has no Kokkos" \
    "architecture here; valid: $(known_archs)"
  arch_from="nvidia-smi (compute capability $caps)"
fi
cc=$(cc_of_arch "$arch")
sm=sm_$cc
if [ "$cuda_major" -ge 13 ] && [ "$cc" -lt 75 ]; then
  die "$arch ($sm): CUDA $cuda supports sm_75 and newer only; use CUDA 12.x for this GPU"
fi
if [ -n "$kokkos_root" ] && [ -n "$i_arch" ] && [[ ";$i_arch;" != *";$arch;"* ]]; then
  die "--kokkos-root $kokkos_root: Kokkos is built for $i_arch, not for $arch (from $arch_from);" \
    "rebuild it for $arch (--kokkos-src/--kernels-src)"
fi

# Kokkos built from source: reuse a matching install in the prefix; never mix releases in one.
build_kokkos=0
if [ -z "$kokkos_root" ]; then
  installed "$prefix"
  if [ -z "$i_kokkos$i_kernels" ]; then
    build_kokkos=1
  elif [ "$i_kokkos" = "$kokkos_version" ] && [ "$i_kernels" = "$kernels_version" ] &&
    [[ ";$i_arch;" == *";$arch;"* ]] && [[ ";$i_devices;" == *";CUDA;"* ]] &&
    { [ -z "$i_cuda" ] || [ "$(echo "$i_cuda" | cut -d. -f1-2)" = "$cuda" ]; } &&
    [ -x "$prefix/bin/nvcc_wrapper" ]; then
    build_kokkos=0
  else
    die "--prefix $prefix holds Kokkos ${i_kokkos:-?} + Kokkos-Kernels ${i_kernels:-?} for" \
      "${i_arch:-?} (nvcc ${i_cuda:-?}), not Kokkos $kokkos_version + Kokkos-Kernels" \
      "$kernels_version for $arch (CUDA $cuda): remove it or give another --prefix"
  fi
fi

# dgsolve's build directory must not belong to another compiler.
wrapper=$prefix/bin/nvcc_wrapper
if [ -f "$build/CMakeCache.txt" ]; then
  old=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
  if [ -n "$old" ] && [ "$old" != "$wrapper" ]; then
    die "--build $build is configured with the C++ compiler $old, not $wrapper: remove it or give" \
      "another --build"
  fi
fi

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
user_preflags=0
for a in "${extra[@]}"; do
  case $a in -DMPIEXEC_PREFLAGS=* | -DMPIEXEC_PREFLAGS:*=*) user_preflags=1 ;; esac
done

say "dgsolve $here"
say "CUDA $cuda ($(command -v nvcc)), host compiler ${NVCC_WRAPPER_DEFAULT_COMPILER:-g++}"
say "GPU architecture $arch ($sm), from $arch_from"
if [ -n "$kokkos_root" ]; then
  say "Kokkos $kokkos_version + Kokkos-Kernels $kernels_version installed in $prefix"
else
  say "Kokkos $kokkos_version ($kokkos_src) + Kokkos-Kernels $kernels_version ($kernels_src) ->" \
    "$prefix"
fi
note=""
[ "$dry_run" -eq 0 ] || note="; dry run: commands are printed, not run"
say "dgsolve build: $build, $jobs jobs$note"

# --- steps ------------------------------------------------------------------------------------
logs=$build/logs
steps=4
[ "$build_kokkos" -eq 1 ] && steps=$((steps + 6))
[ "$run_tests" -eq 1 ] || steps=$((steps - 1))
step=0
[ "$dry_run" -eq 1 ] || mkdir -p "$logs"

quoted() { # the command as one shell-quoted line
  local out="" a
  for a in "$@"; do out="$out${out:+ }$(printf '%q' "$a")"; done
  echo "$out"
}
run_step() { # run_step LOG NAME COMMAND...: output to $logs/NN-LOG.log; stops the script on failure
  local log=$1 name=$2
  shift 2
  step=$((step + 1))
  log=$logs/$(printf '%02d' "$step")-$log.log
  if [ "$dry_run" -eq 1 ]; then
    say "[$step/$steps] $name"
    echo "  $(quoted "$@")"
    return 0
  fi
  say "[$step/$steps] $name (log: $log)"
  local start=$SECONDS rc=0
  { echo "+ $(quoted "$@")"; "$@"; } >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "---- last lines of $log ----"
    tail -n 40 "$log"
    echo "----"
    fail "$name" "exit status $rc; full log: $log"
  fi
  say "  done in $((SECONDS - start)) s"
}
fail() { # fail STEP_NAME WHY: the one line that names the failing step, exit status 1
  say "FAILED at step $step/$steps ($1): $2"
  exit 1
}
skip_step() { # skip_step TEXT: counts as a step that needs no work
  step=$((step + 1))
  say "[$step/$steps] $*"
}

common=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS=-arch=$sm" -DCMAKE_CXX_STANDARD=17
        -DCMAKE_CXX_EXTENSIONS=OFF)
# nvcc_wrapper compiles for sm_70 unless it sees an -arch flag; CUDA 13 has no sm_70, and CMake's
# compiler checks pass no Kokkos flags. CMAKE_CXX_FLAGS carries the same -arch=sm_NN as Kokkos'
# own flags (nvcc_wrapper accepts a repeated identical -arch).
if [ "$build_kokkos" -eq 1 ]; then
  [ "$dry_run" -eq 1 ] || rm -rf "$kbuild/core" "$kbuild/kernels"
  run_step kokkos-configure "configure Kokkos $kokkos_version" \
    cmake -S "$kokkos_src" -B "$kbuild/core" "${generator[@]}" "${common[@]}" \
    "-DCMAKE_CXX_COMPILER=$kokkos_src/bin/nvcc_wrapper" "-DCMAKE_INSTALL_PREFIX=$prefix" \
    -DKokkos_ENABLE_CUDA=ON "-DKokkos_ARCH_$arch=ON" -DKokkos_ENABLE_SERIAL=ON
  run_step kokkos-build "build Kokkos" cmake --build "$kbuild/core" -j "$jobs"
  run_step kokkos-install "install Kokkos" cmake --install "$kbuild/core"
  if [ "$dry_run" -eq 0 ]; then
    installed "$prefix"
    if [ "$i_kokkos" != "$kokkos_version" ] || [ ! -x "$wrapper" ]; then
      fail "install Kokkos" "no Kokkos $kokkos_version with bin/nvcc_wrapper in $prefix afterwards"
    fi
  fi
  run_step kernels-configure \
    "configure Kokkos-Kernels $kernels_version (BLAS and Batched, no ETI, no CUDA libraries)" \
    cmake -S "$kernels_src" -B "$kbuild/kernels" "${generator[@]}" "${common[@]}" \
    "-DCMAKE_CXX_COMPILER=$wrapper" "-DCMAKE_INSTALL_PREFIX=$prefix" "-DKokkos_ROOT=$prefix" \
    -DKokkosKernels_ENABLE_ALL_COMPONENTS=OFF -DKokkosKernels_ENABLE_COMPONENT_BLAS=ON \
    -DKokkosKernels_ENABLE_COMPONENT_BATCHED=ON -DKokkosKernels_ADD_DEFAULT_ETI=OFF \
    -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF \
    -DKokkosKernels_ENABLE_TPL_CUSOLVER=OFF -DKokkosKernels_ENABLE_TPL_BLAS=OFF
  run_step kernels-build "build Kokkos-Kernels" cmake --build "$kbuild/kernels" -j "$jobs"
  run_step kernels-install "install Kokkos-Kernels" cmake --install "$kbuild/kernels"
  if [ "$dry_run" -eq 0 ]; then
    installed "$prefix"
    [ "$i_kernels" = "$kernels_version" ] ||
      fail "install Kokkos-Kernels" "no Kokkos-Kernels $kernels_version in $prefix afterwards"
  fi
elif [ -z "$kokkos_root" ]; then
  say "Kokkos $kokkos_version + Kokkos-Kernels $kernels_version for $arch already installed in" \
    "$prefix: not rebuilt"
fi

dg_args=(-S "$here" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
         "-DCMAKE_CXX_COMPILER=$wrapper" "-DCMAKE_CXX_FLAGS=-arch=$sm" "-DCMAKE_PREFIX_PATH=$prefix")
[ -z "$metis_root" ] || dg_args+=("-DMETIS_ROOT=$metis_root")
run_step dgsolve-configure "configure dgsolve" cmake "${dg_args[@]}" "${extra[@]}"

# The tests' MPI launcher: Open MPI's mpiexec needs --oversubscribe for more ranks than cores,
# and --allow-run-as-root as root. Which mpiexec is known only once CMake has looked for it.
mpi_preflags() { # mpi_preflags MPIEXEC: the flags that launcher needs here ("" for none)
  local version
  version=$("$1" --version 2>&1 || true)
  if echo "$version" | grep -q -E "Open MPI|OpenRTE|Open RTE"; then
    if [ "$(id -u)" -eq 0 ]; then
      echo "--allow-run-as-root;--oversubscribe"
    else
      echo "--oversubscribe"
    fi
  fi
}
if [ "$user_preflags" -eq 1 ]; then
  skip_step "MPI launcher flags: as given (-DMPIEXEC_PREFLAGS)"
elif [ "$dry_run" -eq 1 ]; then
  guess=$(command -v mpiexec.mpich || command -v mpiexec || true)
  flags=""
  [ -z "$guess" ] || flags=$(mpi_preflags "$guess")
  note=""
  [ -z "$flags" ] || note=", set with: cmake -B $build -DMPIEXEC_PREFLAGS=$flags"
  skip_step "MPI launcher flags: read MPIEXEC_EXECUTABLE from $build/CMakeCache.txt;" \
    "for ${guess:-mpiexec} that gives '${flags}'$note"
else
  mpiexec=$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
  have=$(sed -n 's/^MPIEXEC_PREFLAGS:[A-Z]*=//p' "$build/CMakeCache.txt")
  flags=""
  [ -z "$mpiexec" ] || flags=$(mpi_preflags "$mpiexec")
  if [ -z "$flags" ] || [ "$flags" = "$have" ]; then
    skip_step "MPI launcher flags: ${have:-none} (${mpiexec:-no mpiexec found})"
  else
    run_step mpi-flags "MPI launcher flags for Open MPI: MPIEXEC_PREFLAGS=$flags ($mpiexec)" \
      cmake -B "$build" "-DMPIEXEC_PREFLAGS=$flags"
  fi
fi

run_step dgsolve-build "build dgsolve" cmake --build "$build" -j "$jobs"

if [ "$run_tests" -eq 1 ]; then
  step=$((step + 1))
  log=$logs/$(printf '%02d' "$step")-ctest.log
  if [ "$dry_run" -eq 1 ]; then
    say "[$step/$steps] ctest"
    echo "  $(quoted cd "$build") && $(quoted ctest --output-on-failure -j "$jobs")"
  else
    say "[$step/$steps] ctest (log: $log)"
    rc=0
    (cd "$build" && ctest --output-on-failure -j "$jobs") 2>&1 | tee "$log" || rc=$?
    [ "$rc" -eq 0 ] || fail ctest "the failed tests are listed above; full log: $log"
  fi
fi
[ "$dry_run" -eq 1 ] && exit 0
note=""
[ "$run_tests" -eq 0 ] || note="; every test passed"
say "done: $build/src/dgsolve for $arch ($sm), CUDA $cuda, Kokkos $kokkos_version in $prefix$note"
say "run it with the mpiexec of the MPI it was built with, one rank per GPU (docs/gpu.md)"
