# Sourced by run.sh and test.sh: installs the Debian 12 packages Loopscope needs, only
# those that are missing (apt-get needs root; sudo is used when available).
# Each line says who needs it. Check a change to this list on a brand-new machine:
#   ../shared/tools/fresh-machine-check ./test.sh   (and ./run.sh)
LOOPSCOPE_PACKAGES=(
  build-essential cmake                                   # compilers, the build
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev         # core, hwdesc, CLI
  libgtest-dev libgmock-dev libbenchmark-dev              # tests and benchmarks
  libsqlitecpp-dev libsqlite3-dev                         # core/store: the workspace (SQLiteCpp; its CMake config finds SQLite3)
  libssl-dev                                              # core/store: SHA-256 content hashes of kernels and targets (libcrypto)
  libmimalloc-dev                                         # the programs' malloc: a search evaluation's ~600 small allocations (docs/performance.md)
  qt6-base-dev qt6-charts-dev                             # the desktop app
  libqt6opengl6-dev                                       # Qt6Charts' CMake config needs Qt6OpenGL (only a Recommends of qt6-base-dev)
  fonts-dejavu-core                                       # text in the offscreen screenshot of run.sh
  gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm   # Cortex-M export harness, analyze --measure
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc   # Gemmini export harness: run-rv64 bare-metal on qemu-system-riscv64 virt
)
# Only the tests need these: exports are also built and run with clang (test.sh installs them).
LOOPSCOPE_TEST_PACKAGES=(clang libclang-rt-14-dev)

loopscope_install_packages() {
  local missing=()
  local p
  for p in "${LOOPSCOPE_PACKAGES[@]}" "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "Installing missing packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "error: need root (or sudo) to install: ${missing[*]}" >&2
      return 1
    fi
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# loopscope_check_space DIR: warns (and goes on) when the file system of DIR or of the
# compiler's temporary files (TMPDIR, else /tmp) has less room than a build takes: everything
# test.sh builds is about 4 GB in DIR (RelWithDebInfo), and GCC writes each object's assembly to
# TMPDIR first. A full disk otherwise stops the build half-way with "No space left on device" from
# the compiler (it happened to CI once, on a machine whose /tmp old builds had filled).
loopscope_check_space() {
  local dir="$1" need_kb=$((4 * 1024 * 1024)) tmp_kb=$((512 * 1024)) at free used
  at="$dir"; while [ ! -d "$at" ]; do at="$(dirname "$at")"; done
  # What an earlier build left in DIR is room already taken.
  used=$(du -sk --apparent-size "$dir" 2>/dev/null | awk '{ print $1 }' || true)
  case "$used" in ''|*[!0-9]*) used=0 ;; esac
  need_kb=$((need_kb > used ? need_kb - used : 0))
  free=$(df -Pk "$at" 2>/dev/null | awk 'NR == 2 { print $4 }' || true)
  case "$free" in ''|*[!0-9]*) free="" ;; esac
  if [ -n "$free" ] && [ "$free" -lt "$need_kb" ]; then
    echo "warning: $((free / 1024)) MB free on the file system of $at; a full build takes about 4 GB there" >&2
  fi
  at="${TMPDIR:-/tmp}"
  free=$(df -Pk "$at" 2>/dev/null | awk 'NR == 2 { print $4 }' || true)
  case "$free" in ''|*[!0-9]*) free="" ;; esac
  if [ -n "$free" ] && [ "$free" -lt "$tmp_kb" ]; then
    echo "warning: $((free / 1024)) MB free in $at, where the compiler writes its temporary files" >&2
  fi
  return 0
}

# loopscope_build DIR [CMAKE_OPTION...] [-- TARGET...]: configures and builds DIR (every
# target, or only the TARGETs named after --).
loopscope_build() {
  local dir="$1"; shift
  local options=() targets=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do options+=("$1"); shift; done
  [ "${1:-}" = "--" ] && shift
  for t in "$@"; do targets+=(--target "$t"); done
  loopscope_check_space "$dir"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${options[@]}"
  cmake --build "$dir" -j"$(nproc)" "${targets[@]}"
}
