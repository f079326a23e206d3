#!/usr/bin/env bash
# The long run of the sync simulation: three devices through an unkind carrier (see
# Tests/LikeSyncTests/SimulationTests.swift), over many seeds.
# Usage: Tests/Tools/sync_simulation.sh [SEEDS] [FIRST_SEED]   (default 300 seeds from 1000)
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --build-tests >/dev/null
LIKES_SIMULATION_SEEDS="${1:-300}" LIKES_SIMULATION_FIRST_SEED="${2:-1000}" \
    swift test --skip-build --filter 'SimulationTests/threeDevicesConvergeWhateverTheCarrierDoes' 2>&1 | grep -E '(recorded an issue|^✘ Test run|^✔ Test run)' | cut -c1-3000
