#!/usr/bin/env bash
# Pictures of the desktop app for reviews and the AppStream metadata: the main window with
# both panes populated and a transfer running, drawn by gui_main_window under a real X
# server (xvfb-run) when there is one, else on the offscreen platform.
# Usage: tests/gui/screenshots.sh [BUILD_DIR] [OUT_DIR]   (defaults: build/dev, resources/screenshots)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/dev}
out=${2:-$root/resources/screenshots}
test_bin=$build/tests/gui/gui_main_window
[ -x "$test_bin" ] || { echo "screenshots.sh: build $test_bin first (cmake --build $build)" >&2; exit 1; }
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export STRATA_SCREENSHOT_DIR=$out STRATA_SECRETS=file XDG_DATA_HOME=$scratch/data XDG_CONFIG_HOME=$scratch/config
if command -v xvfb-run >/dev/null; then
  xvfb-run -a -s "-screen 0 1280x800x24" "$test_bin" screenshotWithATransferRunning
else
  QT_QPA_PLATFORM=offscreen "$test_bin" screenshotWithATransferRunning
fi
ls -l "$out"/*.png
