#!/bin/bash
# The tests that wait on observers, sessions, watchers, processes and servers, run RUNS times
# while another clone of the repository builds in release mode again and again: what issue 68
# asks of a test suite that must not depend on the machine's speed.
#
#   Tests/Tools/timing_beside_build.sh [RUNS] [all]     (from the repository's root, after `swift build --build-tests`)
#
# With `all`, every test runs (CI=true), the crash tests that walk every fault point among them:
# the synchronous tests that held the cooperative pool's two threads before they ran on their own
# lane (Tests/Support/OwnLane.swift).
#
# Prints one line per run (its exit status, seconds, and the test run's last line) and exits 1
# when any run failed; each run's whole output is left in a temporary folder it names.
set -u
runs=${1:-10}
root=$(pwd)
work=$(mktemp -d)
git clone -q "$root" "$work/clone"
filter="ConcurrencyTests|ObservableStateTests|LikedPhotosTests|LikeStatusTests|SyncSessionTests|AppTests|SyncTests|ObservationTests"
filter+="|SyncCommandTests|AlbumCommandTests|LikeKitAppTests|HTTPServerTests|DownloadTests|CommandLineTests|LikeRepositoryTests"
filter+="|RenditionTests|ExportTests|PendingCommitTests|GalleryServingTests"
(
    cd "$work/clone" || exit 1
    while [ ! -e "$work/stop" ]; do
        rm -rf .build/release .build/*/release
        swift build -c release -j 2 > /dev/null 2>&1
    done
) &
builder=$!
failed=0
for run in $(seq 1 "$runs"); do
    start=$(date +%s)
    if [ "${2:-}" = all ]; then
        CI=true swift test --skip-build > "$work/run-$run.log" 2>&1
    else
        swift test --skip-build --filter "$filter" > "$work/run-$run.log" 2>&1
    fi
    status=$?
    [ $status -eq 0 ] || failed=1
    echo "run $run: exit $status, $(( $(date +%s) - start )) s, $(grep -E 'Test run with' "$work/run-$run.log" | tail -1)"
done
touch "$work/stop"
kill $builder 2> /dev/null
wait $builder 2> /dev/null
echo "each run's output: $work/run-N.log"
exit $failed
