#!/usr/bin/env bash
# Listings no key can block (issue 42): keys holding a control character (\x01), and '%',
# '+' and spaces, put with curl's SigV4 beside a plain one; strata ls, cp -r both ways and rm
# handle each byte-exact, checked against what the server holds (signed HEAD). On radosgw
# (it checks signatures, and honours encoding-type=url) and on s3rver (which ignores
# encoding-type and writes the control character into its XML as it is).
#
# Usage: s3_encoded_keys_cli.sh /path/to/strata   (STRATA_S3_ENVFILE: rgw.env; STRATA_S3RVER_ENVFILE)
set -u
STRATA=$(readlink -f "$1")
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
work=$(mktemp -d /tmp/strata-enckeys-XXXXXX)
export STRATA_STATE_DIR="$work/.state" QT_QPA_PLATFORM=offscreen
trap 'rm -rf "$work"' EXIT

# signed METHOD PATH [BODY]: the HTTP status of a signed request (PATH percent-encoded).
signed() {
  local method=$1 path=$2 body=${3:-} hash
  hash=$(printf '%s' "$body" | sha256sum | cut -d' ' -f1)
  printf '%s' "$body" | curl -s --noproxy "*" --max-time 20 -o "$work/answer" -w '%{http_code}' -X "$method" \
    --aws-sigv4 "aws:amz:${AWS_REGION:-us-east-1}:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
    -H "x-amz-content-sha256: $hash" ${body:+--data-binary @-} "$STRATA_S3_ENDPOINT/$path"
}
head_code() { curl -s --noproxy "*" --max-time 20 -o /dev/null -w '%{http_code}' -I \
  --aws-sigv4 "aws:amz:${AWS_REGION:-us-east-1}:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
  -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" "$STRATA_S3_ENDPOINT/$1"; }

ctl=$'ctl\x01.txt' odd='100% a+b c.txt'
# Each key as a URL path wants it, and as strata's URIs take it (only %XX is decoded).
declare -A url=([$ctl]='ctl%01.txt' [$odd]='100%25%20a%2Bb%20c.txt' [plain.txt]='plain.txt')
declare -A uri=([$ctl]='ctl%01.txt' [$odd]='100%25 a+b c.txt' [plain.txt]='plain.txt')

run_on() { # run_on NAME ENVFILE
  local name=$1 k
  # shellcheck disable=SC1090
  set -a; source "$2"; set +a
  local bucket=$STRATA_S3_BUCKET prefix=enc-$$-$name
  s3() { echo "s3://$bucket/$1?endpoint=$STRATA_S3_ENDPOINT"; }
  for k in "$ctl" "$odd" plain.txt; do
    [ "$(signed PUT "$bucket/$prefix/${url[$k]}" "bytes of $k")" = 200 ] && pass || fail "$name: PUT of $(printf %q "$k")"
  done
  [ "$(head_code "$bucket/$prefix/${url[$ctl]}")" = 200 ] && pass || fail "$name: the server does not hold the \\x01 key"

  # ls: every key listed under its exact name; the listing is not blocked by one of them.
  expect 0 "$name: ls" -- "$STRATA" ls --json "$(s3 "$prefix/")"
  local listed wanted
  listed=$(jq -r '.. | objects | select(has("name")) | .name' <<<"$out" | LC_ALL=C sort | od -c)
  wanted=$(printf '%s\n' "$ctl" "$odd" plain.txt | LC_ALL=C sort | od -c)
  [ "$listed" = "$wanted" ] && pass || fail "$name: ls --json names differ:
$listed
wanted:
$wanted"
  expect 0 "$name: ls (text)" -- "$STRATA" ls "$(s3 "$prefix/")"
  contains "$name: the control character shown escaped" "$out" 'ctl\x01.txt'
  [[ $out == *$'\x01'* ]] && fail "$name: a raw control character reached the terminal" || pass

  # cp -r down: each file under its exact name with its bytes; and up again under a new prefix.
  expect 0 "$name: cp -r down" -- "$STRATA" cp -r "$(s3 "$prefix")" "$work/$name"
  for k in "$ctl" "$odd" plain.txt; do
    [ "$(cat "$work/$name/$k" 2>/dev/null)" = "bytes of $k" ] && pass || fail "$name: $(printf %q "$k") not copied down exactly: $(ls "$work/$name" | od -c | head -3)"
  done
  expect 0 "$name: cp -r up" -- "$STRATA" cp -r "$work/$name" "$(s3 "$prefix-up")"
  for k in "$ctl" "$odd" plain.txt; do
    [ "$(head_code "$bucket/$prefix-up/${url[$k]}")" = 200 ] && pass || fail "$name: $(printf %q "$k") not uploaded under its exact key"
  done

  # rm by URI: that key goes, the others stay.
  expect 0 "$name: rm the \\x01 key" -- "$STRATA" rm "$(s3 "$prefix/${uri[$ctl]}")"
  expect 0 "$name: rm the '%' key" -- "$STRATA" rm "$(s3 "$prefix/${uri[$odd]}")"
  [ "$(head_code "$bucket/$prefix/${url[$ctl]}")" = 404 ] && pass || fail "$name: the \\x01 key is still there"
  [ "$(head_code "$bucket/$prefix/${url[$odd]}")" = 404 ] && pass || fail "$name: the '%' key is still there"
  [ "$(head_code "$bucket/$prefix/plain.txt")" = 200 ] && pass || fail "$name: rm took another key"
  expect 0 "$name: rm -r the rest" -- "$STRATA" rm -r "$(s3 "$prefix-up")"
  [ "$(head_code "$bucket/$prefix-up/${url[$ctl]}")" = 404 ] && pass || fail "$name: rm -r left the \\x01 key"
}

[ -f "${STRATA_S3_ENVFILE:-}" ] || { echo "FAIL: no rgw.env (run through CTest, fixture rgw)"; exit 1; }
[ -f "${STRATA_S3RVER_ENVFILE:-}" ] || { echo "FAIL: no s3rver.env (fixture s3rver)"; exit 1; }
run_on rgw "$STRATA_S3_ENVFILE"
run_on s3rver "$STRATA_S3RVER_ENVFILE"
finish
