#!/usr/bin/env bash
# A co-user of a shared server races `strata rm -r` (issue 42, item 1). While strata removes
# RUN/t over SFTP, FTP or WebDAV, the test, acting as the co-user with the server's own
# files, moves a folder of t that is not yet removed out of the way and puts a symbolic
# link to RUN/keep in its place, at a different moment each run (the folder being
# removed, or one of the next two). No protocol here has openat: the server resolves every name
# again. Whatever strata does, nothing outside t may go: keep/ must hold exactly what it
# held. The summary line counts runs, swaps made while strata ran, and swaps strata
# detected (a non-zero exit naming the link). strata runs in a bubblewrap sandbox whose
# file system is read-only but for a scratch folder, loopback kept.
#
# Usage: remote_race_test.sh STRATA sftp|ftp|webdav [RUNS]
set -u
STRATA=$(readlink -f "$1")
protocol=$2
runs=${3:-20}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/../lib/checks.sh"
work=$(mktemp -d /tmp/strata-race-XXXXXX)
base=""
trap 'rm -rf "$work" ${base:+"$base"}' EXIT

case $protocol in
sftp)
  fixture_env STRATA_SFTP_ENVFILE sshd
  owner=$(id -u):$(id -g) # the login
  base=$STRATA_SFTP_ROOT/upload/race-$$
  uri="sftp://$STRATA_SFTP_USER@$STRATA_SFTP_HOST:$STRATA_SFTP_PORT/upload/race-$$"
  query="?identity=$STRATA_SFTP_KEY&known-hosts=$STRATA_SFTP_KNOWN_HOSTS"
  ;;
ftp)
  fixture_env STRATA_FTP_ENVFILE pureftpd
  owner=$(stat -c %u:%g "$STRATA_FTP_ROOT/upload") # the virtual user's system account
  base=$STRATA_FTP_ROOT/upload/race-$$
  uri="ftp://$STRATA_FTP_USER@$STRATA_FTP_HOST:$STRATA_FTP_PORT/upload/race-$$" query=""
  export STRATA_FTP_HOST STRATA_FTP_PASSWORD
  ;;
webdav)
  fixture_env STRATA_WEBDAV_ENVFILE lighttpd
  root=$(cat "$(dirname "$STRATA_WEBDAV_ENVFILE")/lighttpd.datadir")/root
  owner=$(stat -c %u:%g "$root/open")
  base=$root/open/race-$$
  uri="webdav://${STRATA_WEBDAV_ENDPOINT#http://}/open/race-$$" query=""
  ;;
*) echo "usage: remote_race_test.sh STRATA sftp|ftp|webdav [RUNS]"; exit 2 ;;
esac
mkdir -p "$base"
s=$work/scratch
require_sandbox

# keep/: what the co-user owns and strata must never touch, files and a folder of files.
make_keep() {
  rm -rf "$base/keep"
  mkdir -p "$base/keep/inner"
  for i in $(seq -w 0 29); do echo "keep $i" >"$base/keep/k$i"; echo "inner $i" >"$base/keep/inner/i$i"; done
  chown -R "$owner" "$base/keep"
}
keep_state() { (cd "$base/keep" && find . -printf '%p %y %s\n' | sort && cat $(find . -type f | sort)) | md5sum; }
# t/: 40 folders of 10 files and a folder each: long enough to be caught midway.
make_tree() {
  rm -rf "$base/t" "$base"/moved-*
  for d in $(seq -w 0 39); do
    mkdir -p "$base/t/d$d/sub"
    for f in $(seq -w 0 9); do echo "$d $f" >"$base/t/d$d/f$f"; done
    echo x >"$base/t/d$d/sub/x"
  done
  chown -R "$owner" "$base/t"
}

make_keep
reference=$(keep_state)
swaps=0 detected=0 lost=0
for run in $(seq 1 "$runs"); do
  make_tree
  sandboxed "$STRATA" rm -r "$uri/t$query" >"$work/out" 2>"$work/err" &
  pid=$!
  # Vary the moment: once strata has removed 1 to 4 folders.
  gone=$(( run % 4 + 1 ))
  for _ in $(seq 1 400); do
    kill -0 "$pid" 2>/dev/null || break
    left=$(ls "$base/t" 2>/dev/null | wc -l)
    [ "$left" -le $(( 40 - gone )) ] && break
    sleep 0.005
  done
  swapped=""
  if kill -0 "$pid" 2>/dev/null; then
    mapfile -t left < <(cd "$base/t" 2>/dev/null && ls -d d* 2>/dev/null | sort)
    pick=$(( run % 3 )) # the folder being removed now, the next one or the one after
    [ "${#left[@]}" -le "$pick" ] && pick=0
    if [ "${#left[@]}" -gt 0 ]; then
      victim=${left[$pick]}
      if mv "$base/t/$victim" "$base/moved-$victim" 2>/dev/null && ln -s ../keep "$base/t/$victim"; then
        chown -h "$owner" "$base/t/$victim"
        swapped=$victim
        swaps=$((swaps + 1))
      fi
    fi
  fi
  wait "$pid"
  rc=$?
  state=$(keep_state)
  if [ "$state" != "$reference" ]; then
    lost=$((lost + 1))
    fail "run $run: keep/ changed (swap of ${swapped:-nothing}, strata exit $rc): $(cd "$base/keep" && find . | sort | tr '\n' ' ') $(head -3 "$work/err")"
    make_keep
    reference=$(keep_state)
  else
    pass
  fi
  if [ -n "$swapped" ] && [ "$rc" -ne 0 ] && grep -q "symbolic link" "$work/err"; then
    detected=$((detected + 1))
  fi
  # A swap strata did not see is fine only if the link was never followed: the link itself
  # may go (it is inside t), keep/ is checked above.
  if [ -z "$swapped" ] && [ "$rc" -ne 0 ]; then fail "run $run: no swap, yet strata failed ($rc): $(head -3 "$work/err")"; fi
done
echo "$protocol: $runs runs, $swaps swaps made while strata ran, $detected detected and stopped, keep/ changed in $lost"
[ "$swaps" -gt 0 ] && pass || fail "no swap happened while strata ran: the race was never run"
finish
