#!/usr/bin/env bash
# strata du --kept on radosgw (fixture rgw, a bucket that keeps versions): the older
# versions of an object and an upload left unfinished are counted with their exact bytes,
# beside the objects; without --kept nothing changes; on s3rver, which lists neither, the
# count is zero and du still succeeds. No secret in any output.
#
# Usage: s3_kept_cli.sh /path/to/strata   (STRATA_S3_ENVFILE: rgw.env; STRATA_S3RVER_ENVFILE)
set -u
STRATA=$(readlink -f "$1")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/../lib/checks.sh"
equal() { # equal WHAT GOT WANT
  if [ "$2" = "$3" ]; then pass; else fail "$1: $2, wanted $3"; fi
}
work=$(mktemp -d /tmp/strata-kept-XXXXXX)
export STRATA_STATE_DIR="$work/.state" QT_QPA_PLATFORM=offscreen
trap 'rm -rf "$work"' EXIT
[ -f "${STRATA_S3_ENVFILE:-}" ] || { echo "FAIL: no rgw.env (run through CTest, fixture rgw)"; exit 1; }
[ -f "${STRATA_S3RVER_ENVFILE:-}" ] || { echo "FAIL: no s3rver.env (run through CTest, fixture s3rver)"; exit 1; }
set -a; source "$STRATA_S3_ENVFILE"; set +a
uri="s3://$STRATA_S3_VERSIONED_BUCKET/cli-$$?endpoint=$STRATA_S3_ENDPOINT"
obj() { echo "s3://$STRATA_S3_VERSIONED_BUCKET/cli-$$/$1?endpoint=$STRATA_S3_ENDPOINT"; }

# a.bin written three times (1000, 2000, 4000 bytes): 3000 bytes in older versions.
for n in 1000 2000 4000; do
  head -c $n /dev/urandom >"$work/a.bin"
  "$STRATA" cp --overwrite "$work/a.bin" "$(obj d/a.bin)" 2>"$work/err" || { echo "FAIL: cp: $(cat "$work/err")"; exit 1; }
done
head -c 500 /dev/urandom >"$work/b.bin"
"$STRATA" cp "$work/b.bin" "$(obj b.bin)" 2>/dev/null || { echo "FAIL: cp b.bin"; exit 1; }
id=$(bash "$HERE/../servers/rgw.sh" unfinished-upload "$STRATA_S3_ENVFILE" "$STRATA_S3_VERSIONED_BUCKET" \
  "cli-$$/big.iso" 250000) || { echo "FAIL: cannot leave an unfinished upload"; exit 1; }

out=$("$STRATA" du --kept --json "$uri" 2>"$work/err"); rc=$?
[ $rc -eq 0 ] && pass || fail "du --kept exited $rc: $(cat "$work/err")"
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)" <<<"$out"; }
equal "objects' bytes" "$(field 'd["bytes"]')" 4500
equal "older versions' bytes" "$(field 'd["kept"]["olderVersions"]["bytes"]')" 3000
equal "objects with older versions" "$(field 'd["kept"]["olderVersions"]["objects"]')" 1
equal "unfinished uploads' bytes" "$(field 'd["kept"]["unfinishedUploads"]["bytes"]')" 250000
equal "unfinished uploads" "$(field 'd["kept"]["unfinishedUploads"]["uploads"]')" 1
text=$("$STRATA" du --kept "$uri" 2>&1)
contains "text line" "$text" "2.9 KiB in older versions of 1 objects, 244 KiB in 1 unfinished uploads"
lacks "no secret" "$text$out$(cat "$work/err")" "$AWS_SECRET_ACCESS_KEY"
plain=$("$STRATA" du --json "$uri" 2>&1)
lacks "without --kept, no kept field" "$plain" '"kept"'
# Saved and compared: the kept entries travel in the scan, the comparison is of the objects.
"$STRATA" du --kept --save "$work/scan" "$uri" >/dev/null 2>&1 && pass || fail "du --kept --save"
equal "kept entries saved" "$(zstd -dc "$work/scan" | grep -c '"h":"[vu]"')" 2
cmp=$("$STRATA" du --compare "$work/scan" --json "$uri" 2>&1)
equal "nothing changed" "$(python3 -c "import json,sys; print(len(json.load(sys.stdin)['changes']))" <<<"$cmp")" 0

# s3rver lists neither: zero, and du succeeds.
{
  ( set -a; source "$STRATA_S3RVER_ENVFILE"; set +a
    "$STRATA" du --kept --json "s3://$STRATA_S3_BUCKET/?endpoint=$STRATA_S3_ENDPOINT" ) >"$work/s3rver.json" 2>"$work/err"
  rc=$?
  [ $rc -eq 0 ] && pass || fail "du --kept on s3rver exited $rc: $(cat "$work/err")"
  out=$(cat "$work/s3rver.json")
  equal "s3rver: no older versions" "$(field 'd["kept"]["olderVersions"]["bytes"]')" 0
}
finish
