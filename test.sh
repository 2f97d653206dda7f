#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds everything and runs every test with ctest.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/packages.sh
loopscope_install_packages "${LOOPSCOPE_TEST_PACKAGES[@]}"

# The Qt-free layers must configure without Qt: prove that no find_package(Qt6) is reached.
cmake -S . -B build/noqt-check -DLOOPSCOPE_BUILD_GUI=OFF -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON >/dev/null

loopscope_build build
cd build
ctest --output-on-failure -j"$(nproc)"
