#!/usr/bin/env bash
# The long torture runs: 300 rounds of a mixed workload SIGKILLed at random instants, and
# 8 processes × 250 operations on one store. `swift test` runs short versions of both.
# Usage: Tests/Tools/torture.sh [ROUNDS] [PROCESSES] [OPERATIONS]
set -euo pipefail
cd "$(dirname "$0")/../.."
export LIKES_TORTURE_ROUNDS=${1:-300} LIKES_TORTURE_PROCESSES=${2:-8} LIKES_TORTURE_OPERATIONS=${3:-250}
swift build --build-tests
swift test --skip-build --filter TortureTests 2>&1 | grep -E "torture:|✘|Test run"
