# Shared by scripts/run and scripts/test: repository root, configure and build.
set -euo pipefail
STRATA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# One compiler cache for every clone on the machine (as CI runners keep one): paths are
# made relative to the clone (base_dir) and the build directory is not hashed, so a fresh
# clone compiles only what differs from what any clone compiled before.
export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/strata-ccache}
export CCACHE_BASEDIR=$STRATA_ROOT CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-12G}

strata_build() { # strata_build PRESET
  local preset=$1
  cmake --preset "$preset" -S "$STRATA_ROOT" >/dev/null
  cmake --build --preset "$preset" -j "$(nproc)"
}
