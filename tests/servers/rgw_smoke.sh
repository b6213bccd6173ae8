#!/usr/bin/env bash
# Checks the radosgw fixture (tests/servers/rgw.sh) with curl's SigV4: an object written with
# PUT comes back byte-identical and is listed; a wrong secret, an unknown access key and an
# anonymous request are refused (403: unlike s3rver, radosgw checks signatures); a multipart
# upload once initiated (POST ?uploads) is listed by GET ?uploads; a bucket with versioning
# enabled (PUT ?versioning) lists two versions of a key PUT twice (GET ?versions).
#
# Usage: rgw_smoke.sh        with STRATA_S3_ENVFILE set (CTest, strata_with_rgw): checks the
#                            running fixture and leaves it as it found it
#        rgw_smoke.sh [DIR]  without: starts a server of its own in DIR (default: a fresh
#                            temporary directory), checks it, stops it, then checks that no
#                            daemon of it is left, that DIR holds nothing but its logs and
#                            that a second stop is harmless
#
# curl 7.88 (Debian 12) signs the payload's SHA-256 without sending it, and does not
# canonicalise query strings: every request here sends x-amz-content-sha256, and its query
# has sorted, already-encoded parameters that all have an "=".
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

own_dir="" own_tmp=""
if [ -z "${STRATA_S3_ENVFILE:-}" ]; then
  if [ $# -ge 1 ]; then own_dir=$1; mkdir -p "$own_dir"; else own_dir=$(mktemp -d /tmp/strata-rgwsmoke-XXXXXX) own_tmp=1; fi
  own_dir=$(cd "$own_dir" && pwd)
  t0=$EPOCHREALTIME
  "$HERE/rgw.sh" start "$own_dir" >/dev/null || fail "rgw.sh start $own_dir failed"
  echo "rgw.sh start: $(( (${EPOCHREALTIME/[.,]/} - ${t0/[.,]/}) / 1000 )) ms"
  trap '"$HERE/rgw.sh" stop "$own_dir" || true' EXIT
  STRATA_S3_ENVFILE=$own_dir/rgw.env
fi
[ -f "$STRATA_S3_ENVFILE" ] || fail "$STRATA_S3_ENVFILE is missing (rgw_start did not run?)"
set -a
# shellcheck disable=SC1090 # written by rgw.sh start
source "$STRATA_S3_ENVFILE"
set +a
case "$STRATA_S3_ENDPOINT" in http://127.0.0.1:[0-9]*) ;; *) fail "endpoint $STRATA_S3_ENDPOINT is not on 127.0.0.1" ;; esac

tmp=$(mktemp -d /tmp/strata-rgwsmoke-tmp-XXXXXX)
trap 'rm -rf "$tmp"; [ -z "$own_dir" ] || "$HERE/rgw.sh" stop "$own_dir" || true' EXIT
EMPTY=$tmp/empty
: >"$EMPTY"

# s3 METHOD PATH[?QUERY] [BODYFILE] [KEY SECRET]: a signed request; the answer's body goes
# to $S3_OUT (default $tmp/body), its HTTP status to stdout. KEY and SECRET: the fixture's
# unless given. HEAD is curl -I.
s3() {
  local method=$1 path=$2 body=${3:-$EMPTY} key=${4:-$AWS_ACCESS_KEY_ID} secret=${5:-$AWS_SECRET_ACCESS_KEY} hash
  local args=(-X "$method")
  [ "$method" = HEAD ] && args=(-I)
  [ "$body" = "$EMPTY" ] || args+=(--data-binary @"$body")
  hash=$(sha256sum "$body" | cut -d' ' -f1)
  curl -s --noproxy "*" --max-time 30 "${args[@]}" -o "${S3_OUT:-$tmp/body}" \
    --aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$key:$secret" -H "x-amz-content-sha256: $hash" \
    -w '%{http_code}' "$STRATA_S3_ENDPOINT/$path"
}
# expect CODE WHAT METHOD PATH ...: s3 ... must answer CODE; prints the body (unless S3_OUT).
expect() {
  local want=$1 what=$2 code out=${S3_OUT:-$tmp/body}
  shift 2
  code=$(s3 "$@") || fail "$what: no answer from $STRATA_S3_ENDPOINT"
  [ "$code" = "$want" ] || fail "$what: HTTP $code, not $want: $(head -c 400 "$out" | tr -c '[:print:]' .)"
  [ -n "${S3_OUT:-}" ] || cat "$out"
}

b=$STRATA_S3_BUCKET
p=smoke-$$-$RANDOM
head -c 300000 /dev/urandom >"$tmp/data"

# Round trip and listing.
expect 200 "HEAD bucket $b" HEAD "$b" >/dev/null
expect 200 "PUT object" PUT "$b/$p/obj" "$tmp/data" >/dev/null
S3_OUT=$tmp/back expect 200 "GET object" GET "$b/$p/obj" >/dev/null
cmp -s "$tmp/data" "$tmp/back" || fail "object did not round-trip"
list=$(expect 200 "list bucket" GET "$b?list-type=2&prefix=$p%2F")
grep -q "<Key>$p/obj</Key><LastModified>[^<]*</LastModified><ETag>[^<]*</ETag><Size>300000</Size>" <<<"$list" \
  || fail "listing lacks $p/obj of 300000 bytes: $list"
echo "PUT/GET of 300000 bytes and ListObjectsV2: OK"

# Authentication is checked.
echo "signed" >"$tmp/small"
expect 200 "PUT small object" PUT "$b/$p/small" "$tmp/small" >/dev/null
out=$(expect 403 "GET with a wrong secret" GET "$b/$p/small" "$EMPTY" "$AWS_ACCESS_KEY_ID" "${AWS_SECRET_ACCESS_KEY}x")
grep -q "<Code>SignatureDoesNotMatch</Code>" <<<"$out" || fail "wrong secret: not SignatureDoesNotMatch: $out"
out=$(expect 403 "GET with an unknown access key" GET "$b/$p/small" "$EMPTY" NOSUCHKEY0000000000 "$AWS_SECRET_ACCESS_KEY")
grep -q "<Code>InvalidAccessKeyId</Code>" <<<"$out" || fail "unknown key: not InvalidAccessKeyId: $out"
code=$(curl -s --noproxy "*" --max-time 10 -o /dev/null -w '%{http_code}' "$STRATA_S3_ENDPOINT/$b/$p/small")
[ "$code" = 403 ] || fail "anonymous GET: HTTP $code, not 403"
code=$(curl -s --noproxy "*" --max-time 10 -o /dev/null -w '%{http_code}' -X PUT --data-binary x "$STRATA_S3_ENDPOINT/$b/$p/anon")
[ "$code" = 403 ] || fail "anonymous PUT: HTTP $code, not 403"
echo "wrong secret, unknown key, anonymous GET and PUT: 403 OK"

# Multipart: an initiated upload is listed, then aborted.
out=$(expect 200 "POST ?uploads (CreateMultipartUpload)" POST "$b/$p/mp?uploads=")
upload=$(sed -n 's:.*<UploadId>\([^<]*\)</UploadId>.*:\1:p' <<<"$out")
[ -n "$upload" ] || fail "no UploadId: $out"
out=$(expect 200 "GET ?uploads (ListMultipartUploads)" GET "$b?prefix=$p%2F&uploads=")
grep -q '^<?xml' <<<"$out" || fail "ListMultipartUploads is not XML: $out"
grep -q "<Upload><Key>$p/mp</Key><UploadId>$upload</UploadId>" <<<"$out" || fail "upload $upload not listed: $out"
expect 204 "DELETE ?uploadId (AbortMultipartUpload)" DELETE "$b/$p/mp?uploadId=$upload" >/dev/null
out=$(expect 200 "GET ?uploads after the abort" GET "$b?prefix=$p%2F&uploads=")
! grep -q "<Upload>" <<<"$out" || fail "aborted upload still listed: $out"
echo "multipart upload initiated, listed by GET ?uploads, aborted: OK"

# Versioning, in a bucket of its own (it cannot be turned off again in the shared one).
vb=$b-versions-$$-$RANDOM
expect 200 "create bucket $vb" PUT "$vb" >/dev/null
cat >"$tmp/versioning" <<'EOF'
<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>
EOF
expect 200 "PUT ?versioning" PUT "$vb?versioning=" "$tmp/versioning" >/dev/null
out=$(expect 200 "GET ?versioning" GET "$vb?versioning=")
grep -q "<Status>Enabled</Status>" <<<"$out" || fail "versioning not enabled: $out"
echo one >"$tmp/v1"; echo two >"$tmp/v2"
expect 200 "PUT version 1" PUT "$vb/key" "$tmp/v1" >/dev/null
expect 200 "PUT version 2" PUT "$vb/key" "$tmp/v2" >/dev/null
out=$(expect 200 "GET ?versions (ListObjectVersions)" GET "$vb?versions=")
versions=$(grep -o "<VersionId>[^<]*</VersionId>" <<<"$out" | sed 's:</\{0,1\}VersionId>::g')
[ "$(wc -l <<<"$versions")" = 2 ] || fail "not two versions of key: $out"
grep -q "<Version><Key>key</Key><VersionId>[^<]*</VersionId><IsLatest>true</IsLatest>" <<<"$out" || fail "no latest version: $out"
old=$(tail -n 1 <<<"$versions")
S3_OUT=$tmp/old expect 200 "GET ?versionId" GET "$vb/key?versionId=$old" >/dev/null
cmp -s "$tmp/v1" "$tmp/old" || fail "the older version does not read back as the first PUT"
for v in $versions; do expect 204 "DELETE version $v" DELETE "$vb/key?versionId=$v" >/dev/null; done
expect 204 "DELETE bucket $vb" DELETE "$vb" >/dev/null
echo "versioning enabled, two versions listed by GET ?versions, the older one read back: OK"

expect 204 "DELETE object" DELETE "$b/$p/obj" >/dev/null
expect 204 "DELETE small object" DELETE "$b/$p/small" >/dev/null
expect 404 "GET after DELETE" GET "$b/$p/obj" >/dev/null
echo "radosgw fixture OK at $STRATA_S3_ENDPOINT"

[ -n "$own_dir" ] || exit 0
# The server of our own: stopped, nothing of it left.
trap 'rm -rf "$tmp"' EXIT
t0=$EPOCHREALTIME
"$HERE/rgw.sh" stop "$own_dir" || fail "rgw.sh stop failed"
echo "rgw.sh stop: $(( (${EPOCHREALTIME/[.,]/} - ${t0/[.,]/}) / 1000 )) ms"
if left=$(pgrep -a -f -- "$own_dir/ceph.conf"); then fail "daemons left after stop: $left"; fi
extra=$(cd "$own_dir" && find . -mindepth 1 -not -path './log' -not -path './log/*')
[ -z "$extra" ] || fail "left in $own_dir after stop: $extra"
"$HERE/rgw.sh" stop "$own_dir" || fail "a second rgw.sh stop failed"
[ "$(cd "$own_dir" && find . -mindepth 1 -not -path './log' -not -path './log/*')" = "" ] || fail "second stop left files"
echo "stopped: no daemon left, $own_dir holds only log/, a second stop is harmless: OK"
[ -z "$own_tmp" ] || rm -rf "$own_dir"
