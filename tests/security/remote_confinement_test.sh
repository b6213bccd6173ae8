#!/usr/bin/env bash
# Remote folders are checked, not assumed; resume parts must be ours (issue 42, items 2 and
# 3), on the real servers: OpenSSH's sshd, Pure-FTPd and lighttpd (mod_webdav). The test
# plays a co-user of each server with the server's own files.
#  - a destination folder that is a symlink on the server (dst/sub -> ../elsewhere): sync
#    and cp -r stop that folder with a clear error; nothing is written into the link's
#    target, the rest is copied;
#  - a symlink removed (rm -r, sync --delete) goes as a link; its target stays;
#  - SFTP and FTP: an upload is interrupted (Ctrl-C), a co-user replaces its kept
#    .strata-resume-*.part with a world-writable file of their own; the same command run
#    again leaves that file alone, copies the file from its start and says so.
# strata runs in a bubblewrap sandbox whose file system is read-only but for a scratch
# folder, loopback kept.
#
# Usage: remote_confinement_test.sh STRATA
set -u
STRATA=$(readlink -f "$1")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/../lib/checks.sh"
work=$(mktemp -d /tmp/strata-confine-XXXXXX)
cleanup=()
trap 'rm -rf "$work" "${cleanup[@]}"' EXIT
s=$work/scratch
require_sandbox

fixture_env STRATA_SFTP_ENVFILE sshd
fixture_env STRATA_FTP_ENVFILE pureftpd
fixture_env STRATA_WEBDAV_ENVFILE lighttpd
export STRATA_FTP_HOST STRATA_FTP_PASSWORD
webdav_root=$(cat "$(dirname "$STRATA_WEBDAV_ENVFILE")/lighttpd.datadir")/root
other=4242:4242 # the co-user (no account needed to own files)

src=$s/src
mkdir -p "$src/sub"
echo "top" >"$src/top.txt"
echo "new a" >"$src/sub/a.txt"
echo "planted b" >"$src/sub/b.txt"
head -c 4194304 /dev/urandom >"$s/big.bin"

# A folder `slow/sub` swapped for a link to `elsewhere` while strata copies a file of SIZE
# bytes into it at RATE; WHEN: "temporary" (sync; swapped once its temporary file is there)
# or "reading" (cp -r; a second in). Uses the loop's base, uri, query, owner and other.
swapped_during_write() {
  local size=$1 rate=$2 when=$3 pid rc
  rm -rf "$base/slow" "$base/slow-moved" "$s/slowsrc"
  mkdir -p "$base/slow/sub" && chown -R "$owner" "$base/slow"
  mkdir -p "$s/slowsrc/sub" && head -c "$size" /dev/urandom >"$s/slowsrc/sub/late.bin"
  if [ "$when" = reading ]; then # cp without --overwrite: the name is looked at before the rename
    sandboxed "$STRATA" cp -r --bwlimit "$rate" "$s/slowsrc/sub" "$uri/slow$query" >"$work/out" 2>"$work/err" &
  else
    sandboxed "$STRATA" sync --bwlimit "$rate" "$s/slowsrc" "$uri/slow$query" >"$work/out" 2>"$work/err" &
  fi
  pid=$!
  # lighttpd makes its temporary file only when the whole body has arrived: a second into
  # the upload instead.
  for _ in $(seq 1 200); do
    if [ "$protocol" = webdav ] || [ "$when" = reading ]; then sleep 1 && break; fi
    ls -a "$base/slow/sub" | grep -q '^\.strata-' && break
    sleep 0.02
  done
  # One atomic swap (renameat2 RENAME_EXCHANGE): with mv then ln, a check between the two
  # finds no folder at all and rightly says so, which is not the case under test.
  ln -s ../elsewhere "$base/slow/sub.link" && chown -h "$other" "$base/slow/sub.link"
  python3 - "$base/slow/sub.link" "$base/slow/sub" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
if libc.renameat2(AT_FDCWD, sys.argv[1].encode(), AT_FDCWD, sys.argv[2].encode(), RENAME_EXCHANGE):
    sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
PY
  mv "$base/slow/sub.link" "$base/slow-moved"
  wait "$pid"
  rc=$?
  [ "$rc" -eq 1 ] && grep -q "symbolic link" "$work/err" && pass \
    || fail "$protocol ($size bytes): a folder swapped during the write: exit $rc: $(head -3 "$work/err")"
  [ ! -e "$base/elsewhere/late.bin" ] && [ -z "$(ls -A "$base/elsewhere" | grep -v '^a.txt$')" ] && pass \
    || fail "$protocol ($size bytes): something was published through the swapped link: $(ls -A "$base/elsewhere")"
  [ ! -e "$base/slow-moved/late.bin" ] && pass || fail "$protocol ($size bytes): the file was published in the moved folder"
}

for protocol in sftp ftp webdav; do
  run=confine-$$-$protocol
  case $protocol in
  sftp)
    base=$STRATA_SFTP_ROOT/upload/$run owner=$(id -u):$(id -g)
    uri="sftp://$STRATA_SFTP_USER@$STRATA_SFTP_HOST:$STRATA_SFTP_PORT/upload/$run"
    query="?identity=$STRATA_SFTP_KEY&known-hosts=$STRATA_SFTP_KNOWN_HOSTS"
    ;;
  ftp)
    base=$STRATA_FTP_ROOT/upload/$run owner=$(stat -c %u:%g "$STRATA_FTP_ROOT/upload")
    uri="ftp://$STRATA_FTP_USER@$STRATA_FTP_HOST:$STRATA_FTP_PORT/upload/$run" query=""
    ;;
  webdav)
    base=$webdav_root/open/$run owner=$(stat -c %u:%g "$webdav_root/open")
    uri="webdav://${STRATA_WEBDAV_ENDPOINT#http://}/open/$run" query=""
    ;;
  esac
  cleanup+=("$base")
  mkdir -p "$base/dst" "$base/elsewhere" "$base/gone-dst"
  echo "old a" >"$base/elsewhere/a.txt"
  ln -s ../elsewhere "$base/dst/sub"
  ln -s ../elsewhere "$base/gone-dst/sub"
  chown -R "$owner" "$base"
  chown -h "$other" "$base/dst/sub" "$base/gone-dst/sub"
  before=$(cd "$base/elsewhere" && find . -printf '%p %s\n' | sort; cat "$base/elsewhere/a.txt")

  # 1. A destination folder that is a link: that folder stops, nothing goes through it.
  expect 1 "$protocol: sync into a symlinked folder fails" -- sandboxed "$STRATA" sync "$src" "$uri/dst$query"
  contains "$protocol: the error names the folder" "$out$err" "sub"
  after=$(cd "$base/elsewhere" && find . -printf '%p %s\n' | sort; cat "$base/elsewhere/a.txt")
  [ "$before" = "$after" ] && pass || fail "$protocol: sync wrote into the link's target: $after"
  [ "$(cat "$base/dst/top.txt" 2>/dev/null)" = top ] && pass || fail "$protocol: the rest of the sync was not copied"
  [ -L "$base/dst/sub" ] && pass || fail "$protocol: the link was replaced"
  expect 1 "$protocol: cp -r into a symlinked folder fails" -- \
    sandboxed "$STRATA" cp -r --overwrite "$src/sub" "$uri/dst$query"
  after=$(cd "$base/elsewhere" && find . -printf '%p %s\n' | sort; cat "$base/elsewhere/a.txt")
  [ "$before" = "$after" ] && pass || fail "$protocol: cp -r wrote into the link's target: $after"

  # 1b. A folder swapped for a link while a file is written into it: nothing is published
  # through the link (the folder is checked again before the rename or MOVE). Streamed (1.5
  # MiB, sync: swapped once its temporary file is there) and kept in memory until the commit
  # (1 MiB read at 256 KiB/s by cp -r, no --overwrite: swapped a second into the reading;
  # FTP then asks about the name and the folder in the request that carries the bytes).
  swapped_during_write 1572864 512K temporary
  swapped_during_write 1048576 256K reading

  # 2. Removing what holds a link removes the link, never its target.
  expect 0 "$protocol: rm -r of a link" -- sandboxed "$STRATA" rm -r "$uri/dst/sub$query"
  [ ! -L "$base/dst/sub" ] && [ -f "$base/elsewhere/a.txt" ] && pass || fail "$protocol: rm -r of a link"
  mkdir -p "$s/empty"
  expect 0 "$protocol: sync --delete removes a link as a link" -- \
    sandboxed "$STRATA" sync --delete "$s/empty" "$uri/gone-dst$query"
  [ ! -e "$base/gone-dst/sub" ] && [ ! -L "$base/gone-dst/sub" ] && pass || fail "$protocol: the extra link stayed"
  after=$(cd "$base/elsewhere" && find . -printf '%p %s\n' | sort; cat "$base/elsewhere/a.txt")
  [ "$before" = "$after" ] && pass || fail "$protocol: sync --delete removed through the link: $after"

  # 3. A kept partial file replaced by a co-user's is left alone (SFTP and FTP keep them).
  [ "$protocol" = webdav ] && continue
  mkdir -p "$base/up" && chown "$owner" "$base/up"
  copy=(sandboxed "$STRATA" cp --bwlimit 1M --part-size 1M "$s/big.bin" "$uri/up/big.bin$query")
  "${copy[@]}" >"$work/out" 2>"$work/err" &
  pid=$!
  part=""
  for _ in $(seq 1 100); do
    part=$(ls "$base/up"/.strata-resume-*.part 2>/dev/null | head -1)
    [ -n "$part" ] && [ "$(stat -c %s "$part")" -gt 0 ] && break
    sleep 0.05
  done
  # Ctrl-C to strata itself (bubblewrap does not pass signals on).
  for p in $(pgrep -f -- "--part-size 1M $s/big.bin"); do
    [ "$(readlink "/proc/$p/exe")" = "$STRATA" ] && kill -INT "$p"
  done
  wait "$pid"
  rc=$?
  if [ "$rc" -ne 130 ] || [ -z "$part" ] || [ ! -f "$part" ]; then
    fail "$protocol: the interrupted upload kept no partial file (exit $rc, part '${part}'): $(head -3 "$work/err")"
    continue
  fi
  pass
  rm -f "$part"
  head -c 4194304 /dev/zero | tr '\0' 'E' >"$part"
  chown "$other" "$part" && chmod 0666 "$part"
  expect 0 "$protocol: the copy run again completes" -- "${copy[@]}"
  contains "$protocol: the report says the partial file was left alone" "$out$err" "left alone"
  cmp -s "$s/big.bin" "$base/up/big.bin" && pass || fail "$protocol: the copy is not the source (it took the co-user's bytes?)"
  [ "$(stat -c %u "$base/up/big.bin")" = "${owner%%:*}" ] && pass || fail "$protocol: the copy belongs to $(stat -c %u "$base/up/big.bin")"
  [ "$(head -c 4 "$part" 2>/dev/null)" = EEEE ] && [ "$(stat -c %u "$part")" = 4242 ] && pass \
    || fail "$protocol: the co-user's file was not left alone"
  ls -a "$base/up" | grep -q '^\.strata-[0-9]' && fail "$protocol: a temporary file was left: $(ls -a "$base/up")" || pass
done
finish
