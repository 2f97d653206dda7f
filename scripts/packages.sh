# Sourced by run.sh and test.sh: installs the Debian 12 packages Loopscope needs, only
# those that are missing (apt-get needs root; sudo is used when available).
LOOPSCOPE_PACKAGES=(
  build-essential cmake pkg-config
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libsqlite3-dev sqlite3
  qt6-base-dev qt6-charts-dev libgl-dev
  gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
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

loopscope_build() {
  local dir="$1"; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
  cmake --build "$dir" -j"$(nproc)"
}
