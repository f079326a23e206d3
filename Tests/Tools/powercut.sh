#!/usr/bin/env bash
# The long power-cut run: a stream of `likes` commands on a FUSE file system that drops every
# unflushed byte, cut at a random step round after round (swift test runs 30 rounds), then the
# cut at every step of every kind of change; first with an fsync of each file (as `likes` flushes
# on FUSE), then with one syncfs per change (as on ext4 and xfs), where cuts also keep each
# file's unflushed state or not by a coin; and `likes sync` cut at every step both ways (swift
# test runs it file by file). Needs Debian's fuse3 and python3-pyfuse3.
#
#   Tests/Tools/powercut.sh [ROUNDS]      (default 500)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-500}
swift build --product likes >/dev/null
# A copy, so that a rebuild while this runs does not change the binary under test.
binary=$(mktemp -d)/likes
cp .build/debug/likes "$binary"
for flush in fsync syncfs; do
    /usr/bin/python3 Tests/Tools/powercut.py stream --rounds "$rounds" --flush "$flush" --likes "$binary" --samples Samples/photos
    /usr/bin/python3 Tests/Tools/powercut.py steps --flush "$flush" --likes "$binary" --samples Samples/photos
    /usr/bin/python3 Tests/Tools/powercut.py sync --flush "$flush" --likes "$binary" --samples Samples/photos
done
