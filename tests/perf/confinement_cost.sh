#!/usr/bin/env bash
# What the remote folder check costs (issue 42): an upload of N small files into a folder
# below the one named (`cp -r small sftp://…/x/` puts them in x/small/sub/: every file's
# folder is checked against x/small before it is published, one realpath round trip)
# against the same files straight into the named folder (`cp small/sub/* sftp://…/y/`:
# nothing to check). Both on the
# suite's sshd, directly and through tests/perf/delay_proxy.js at 20 and 80 ms round trips.
# Prints every run, the medians and checked / unchecked. (The proxy is a new host:port to
# known_hosts: its key is accepted once into the fixture's scratch known_hosts.)
#
# Usage: tests/perf/confinement_cost.sh [RUNS=3]
# Env:   STRATA (the release binary), STRATA_SKIP_BUILD=1, FILES (200), RTTS ("0 20 80").
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-3}
files=${FILES:-200}
# Only the test servers and node are needed (scripts/bootstrap test), not the perf peers.
STRATA=${STRATA:-$perf_root/build/release/app/strata}
[ -n "${STRATA_SKIP_BUILD:-}" ] || { cmake --preset release -S "$perf_root" >/dev/null && cmake --build --preset release >/dev/null; }
export STRATA_STATE_DIR=${STRATA_STATE_DIR:-$(mktemp -d /tmp/strata-perf-state-XXXXXX)}
own_state=1
unset SSH_AUTH_SOCK STRATA_SFTP_PASSWORD
start_perf_server sshd confinecost
# shellcheck disable=SC1091
source "$work/server/sshd.env"
mkdir -p "$work/data/small/sub"
for i in $(seq -w 1 "$files"); do head -c 4096 /dev/urandom >"$work/data/small/sub/f$i"; done
echo "strata: $STRATA; $files x 4 KiB up to sshd on 127.0.0.1; $runs runs each"
printf '%-6s %-10s %s\n' rtt case seconds
declare -A result
for rtt in ${RTTS:-0 20 80}; do
  port=$STRATA_SFTP_PORT
  if [ "$rtt" != 0 ]; then
    start_delay_proxy "$STRATA_SFTP_PORT" $((rtt / 2))
    port=$proxy_port
  fi
  uri() { echo "sftp://$STRATA_SFTP_USER@127.0.0.1:$port/upload/$1?identity=$STRATA_SFTP_KEY&known-hosts=$STRATA_SFTP_KNOWN_HOSTS"; }
  for case in checked unchecked; do
    times=()
    for run in $(seq 1 "$runs"); do
      rm -rf "${STRATA_SFTP_ROOT:?}/upload/$case"
      mkdir -p "$STRATA_SFTP_ROOT/upload/$case"
      if [ "$case" = checked ]; then
        t=$(time_cmd "$STRATA" --accept-new-host-key cp -r "$work/data/small" "$(uri "$case/")")
      else
        t=$(time_cmd "$STRATA" --accept-new-host-key cp "$work/data/small/sub"/* "$(uri "$case/")")
      fi
      n=$(find "$STRATA_SFTP_ROOT/upload/$case" -type f | wc -l)
      [ "$n" = "$files" ] || { echo "$case at $rtt ms: $n files arrived, not $files" >&2; exit 1; }
      printf '%-6s %-10s %.3f\n' "$rtt" "$case" "$t"
      times+=("$t")
    done
    result[$rtt.$case]=$(printf '%s\n' "${times[@]}" | median)
  done
  stop_delay_proxy
done
echo
printf '%-6s %10s %10s %8s\n' rtt checked unchecked ratio
for rtt in ${RTTS:-0 20 80}; do
  printf '%-6s %10.3f %10.3f %8s\n' "$rtt" "${result[$rtt.checked]}" "${result[$rtt.unchecked]}" \
    "$(ratio "${result[$rtt.checked]}" "${result[$rtt.unchecked]}")"
done
