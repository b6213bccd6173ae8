#!/usr/bin/env bash
# Checks the s3rver fixture: the env file is there, the bucket exists, an object written with
# PUT comes back byte-identical, a paged listing (continuation token) works, DELETE removes it.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -n "${STRATA_S3_ENVFILE:-}" ] || fail "STRATA_S3_ENVFILE is not set (test not wired with strata_with_s3)"
[ -f "$STRATA_S3_ENVFILE" ] || fail "$STRATA_S3_ENVFILE is missing (s3rver_start did not run?)"
set -a; source "$STRATA_S3_ENVFILE"; set +a
case "$STRATA_S3_ENDPOINT" in http://127.0.0.1:[0-9]*) ;; *) fail "endpoint $STRATA_S3_ENDPOINT is not on 127.0.0.1" ;; esac
b=$STRATA_S3_ENDPOINT/$STRATA_S3_BUCKET
c=(curl -s --noproxy "*" --max-time 10) # never through a proxy: loopback only

code=$("${c[@]}" -o /dev/null -w '%{http_code}' -I "$b") || fail "no answer from $STRATA_S3_ENDPOINT"
[ "$code" = 200 ] || fail "HEAD bucket $STRATA_S3_BUCKET: HTTP $code"

tmp=$(mktemp -d /tmp/strata-s3smoke-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
head -c 100000 /dev/urandom >"$tmp/data"
prefix=smoke-$$-$RANDOM
code=$("${c[@]}" -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$tmp/data" "$b/$prefix/obj")
[ "$code" = 200 ] || fail "PUT: HTTP $code"
"${c[@]}" -f -o "$tmp/back" "$b/$prefix/obj" || fail "GET failed"
cmp -s "$tmp/data" "$tmp/back" || fail "object did not round-trip"

for k in 1 2 3; do "${c[@]}" -f -o /dev/null -X PUT --data-binary "$k" "$b/$prefix/k$k" || fail "PUT k$k"; done
page=$("${c[@]}" -f "$b?list-type=2&prefix=$prefix/k&max-keys=2") || fail "list page 1"
token=$(sed -n 's:.*<NextContinuationToken>\([^<]*\)</NextContinuationToken>.*:\1:p' <<<"$page")
[ -n "$token" ] || fail "no continuation token in a truncated listing: $page"
page=$("${c[@]}" -f -G "$b" --data list-type=2 --data "prefix=$prefix/k" --data max-keys=2 \
  --data-urlencode "continuation-token=$token") || fail "list page 2 (legacy OpenSSL provider missing?)"
grep -q "<Key>$prefix/k3</Key>" <<<"$page" || fail "page 2 lacks k3: $page"

for k in obj k1 k2 k3; do "${c[@]}" -f -o /dev/null -X DELETE "$b/$prefix/$k" || fail "DELETE $k"; done
code=$("${c[@]}" -o /dev/null -w '%{http_code}' "$b/$prefix/obj")
[ "$code" = 404 ] || fail "GET after DELETE: HTTP $code"
echo "s3rver fixture OK at $STRATA_S3_ENDPOINT"
