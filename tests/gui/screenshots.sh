#!/usr/bin/env bash
# Pictures of the desktop app for reviews and the AppStream metadata: the main window with
# both panes populated and a transfer running, and each tab of the benchmark page comparing
# two Go benchmark files, drawn by gui_main_window under a real X
# server (xvfb-run) when there is one, else on the offscreen platform.
# Usage: tests/gui/screenshots.sh [BUILD_DIR] [OUT_DIR]   (defaults: build/dev, resources/screenshots)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/dev}
out=${2:-$root/resources/screenshots}
for t in gui_main_window gui_bench_page gui_storage_pictures gui_search gui_compare gui_preview; do
  [ -x "$build/tests/gui/$t" ] || { echo "screenshots.sh: build $build/tests/gui/$t first (cmake --build $build)" >&2; exit 1; }
done
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export STRATA_SCREENSHOT_DIR=$out STRATA_SECRETS=file XDG_DATA_HOME=$scratch/data XDG_CONFIG_HOME=$scratch/config
shoot() { # shoot TEST FUNCTION
  if command -v xvfb-run >/dev/null; then
    xvfb-run -a -s "-screen 0 1280x800x24" "$build/tests/gui/$1" "$2"
  else
    QT_QPA_PLATFORM=offscreen "$build/tests/gui/$1" "$2"
  fi
}
shoot gui_main_window screenshotWithATransferRunning
shoot gui_bench_page screenshots
shoot gui_storage_pictures usageOfARealisticTree
shoot gui_storage_pictures allocationMapOfAnNbdkitImage
shoot gui_search slowStoreStreamsAndStops
shoot gui_compare compareMarksBothPanes
shoot gui_compare synchronizeDoesTheCheckedLines
shoot gui_preview followsTheCurrentRow
# (gui_object_details needs radosgw, gui_remote_connections s3rver and lighttpd,
# gui_connection_dialog sshd: run them through CTest with STRATA_SCREENSHOT_DIR set; they
# write object-details.png, location-s3*.png, connection-sftp.png and host-key-prompt.png)
ls -l "$out"/*.png
