# Shared by scripts/run and scripts/test: repository root, configure and build.
set -euo pipefail
STRATA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CCACHE_DIR=${CCACHE_DIR:-$STRATA_ROOT/build/.ccache}

strata_build() { # strata_build PRESET
  local preset=$1
  cmake --preset "$preset" -S "$STRATA_ROOT" >/dev/null
  cmake --build --preset "$preset" -j "$(nproc)"
}
