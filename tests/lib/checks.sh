# Shared by the command-line test scripts: counting checks and running commands.
# The sourcing script sets $work (a scratch directory) before calling expect.
failures=0
checks=0

skipped=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { checks=$((checks + 1)); }
# skip WHY: a check this machine cannot run (the script then ends as skipped, not passed).
skip() { echo "SKIP: $*"; skipped=$((skipped + 1)); }
# finish: the summary line and the exit status: 1 if a check failed, 77 (CTest's
# SKIP_RETURN_CODE for these scripts) if one was skipped, else 0.
finish() {
  echo "$checks checks passed, $failures failed, $skipped skipped"
  [ "$failures" -eq 0 ] || exit 1
  [ "$skipped" -eq 0 ] || exit 77
  exit 0
}

# expect CODE DESCRIPTION -- COMMAND...: runs it, keeps stdout/stderr in $out/$err.
expect() {
  local want=$1 what=$2; shift 3
  "$@" >"$work/.out" 2>"$work/.err"
  local rc=$?
  out=$(cat "$work/.out"); err=$(cat "$work/.err")
  if [ "$rc" -ne "$want" ]; then
    fail "$what: exit $rc, wanted $want"; echo "  stdout: $out" | head -5; echo "  stderr: $err" | head -5
    return 1
  fi
  pass
}
contains() { # contains WHAT HAYSTACK NEEDLE
  if [[ "$2" == *"$3"* ]]; then pass; else fail "$1: '$3' not in: $2"; fi
}
lacks() {
  if [[ "$2" == *"$3"* ]]; then fail "$1: '$3' should not appear in: $2"; else pass; fi
}
one_line() {
  if [ "$(printf '%s\n' "$2" | wc -l)" -eq 1 ]; then pass; else fail "$1: error is not one line: $2"; fi
}
# first_line FILE: waits up to 5 s for FILE's first line (a port a server writes once it
# listens) and prints it; fails if none came.
first_line() {
  local i line
  for ((i = 0; i < 100; i++)); do
    line=$(head -n1 "$1" 2>/dev/null)
    [ -n "$line" ] && { printf '%s\n' "$line"; return 0; }
    sleep 0.05
  done
  return 1
}

# name_taken_meanwhile LABEL DIR NAME CMD...: runs CMD, an upload to DIR/NAME slow enough
# to be caught under way, in the background; once its temporary file shows in DIR, another
# user of the server takes NAME. The upload must fail and say so, and the other's file must
# stay. (Output in $work/taken.out and .err; the caller's $work.)
name_taken_meanwhile() {
  local label=$1 dir=$2 name=$3 pid rc
  shift 3
  "$@" >"$work/taken.out" 2>"$work/taken.err" &
  pid=$!
  for _ in $(seq 250); do compgen -G "$dir/.strata-*" >/dev/null && break; sleep 0.02; done
  sleep 0.5 # the stream's first look is done
  echo theirs >"$dir/$name"
  wait "$pid" && rc=0 || rc=$?
  [ "$rc" -eq 1 ] && pass || fail "$label: an upload whose name was taken meanwhile ended with $rc: $(cat "$work/taken.err")"
  contains "$label: the taken name is said" "$(cat "$work/taken.err")" "something has that name"
  [ "$(cat "$dir/$name")" = theirs ] && pass || fail "$label: the file that took the name was replaced"
}

# fixture_env VAR FIXTURE: sources the env file whose path the fixture's CTest hook put in
# $VAR (STRATA_FTP_ENVFILE…); exits 1 naming FIXTURE when there is none.
# proxied TARGET-PORT DELAY-MS [PROXY-OPTIONS...]: tests/perf/delay_proxy.js in front of
# 127.0.0.1:TARGET-PORT, counting connections into $work/most (the caller's $work); its port
# in $pport, its PID in $proxy_pid. unproxied: stops it; the most connections it saw open at
# once in $most, all it saw made in $made.
proxied() {
  rm -f "$work/most" "$work/proxy.out" # the last proxy's port is not this one's
  node "$(dirname "${BASH_SOURCE[0]}")/../perf/delay_proxy.js" "$@" --most "$work/most" >"$work/proxy.out" 2>&1 &
  proxy_pid=$!
  pport=$(first_line "$work/proxy.out" | sed -n 's/^listening //p')
  [ -n "$pport" ] || { fail "the delay proxy did not start: $(cat "$work/proxy.out")"; return 1; }
}
unproxied() {
  kill "$proxy_pid" 2>/dev/null
  wait "$proxy_pid" 2>/dev/null
  proxy_pid=
  read -r most made <"$work/most" || most=0 made=0
}
# within LOW HIGH WHAT: the last proxy's count of connections open at once is in [LOW, HIGH].
within() {
  if [ "$most" -ge "$1" ] && [ "$most" -le "$2" ]; then pass; else fail "$3: $most connections at once, wanted $1-$2"; fi
}

fixture_env() {
  local file=${!1:-}
  [ -n "$file" ] && [ -f "$file" ] || { echo "no $2 fixture ($1)"; exit 1; }
  # shellcheck disable=SC1090
  source "$file"
}

# sandboxed CMD...: CMD in a bubblewrap sandbox whose whole file system is read-only but the
# scratch folder $s (which the sourcing script sets), loopback networking kept, with HOME
# and STRATA_STATE_DIR inside $s. require_sandbox first: it fails the script unless bwrap is
# there and the sandbox really cannot write outside $s.
sandboxed() {
  bwrap --ro-bind / / --dev /dev --proc /proc --bind "$s" "$s" \
    --unshare-all --share-net --die-with-parent --setenv HOME "$s/home" --setenv STRATA_STATE_DIR "$s/state" "$@"
}
require_sandbox() {
  command -v bwrap >/dev/null || { echo "FAIL: bwrap is missing (scripts/bootstrap test installs bubblewrap)"; exit 1; }
  mkdir -p "$s/home"
  local probe
  probe=$(mktemp -u /tmp/strata-sandbox-probe-XXXXXX)
  if sandboxed touch "$probe" 2>/dev/null; then
    rm -f "$probe"
    echo "FAIL: the sandbox is writable outside its scratch folder; not running the commands"
    exit 1
  fi
}
