#!/usr/bin/env bash
# What radosgw keeps about an object, through strata: stat --versions lists every version
# newest first; cp of s3://…?versionId= reads that version; a pinned URI refuses writes and
# rm of it deletes that version only; tag sets, shows and clears tags; presign makes a link
# radosgw accepts (it checks the signature), that stops working once tampered with or
# expired; stat shows the content type and class. s3rver keeps tags too.
#
# Usage: s3_object_cli.sh /path/to/strata   (STRATA_S3_ENVFILE: rgw.env; STRATA_S3RVER_ENVFILE)
set -u
STRATA=$(readlink -f "$1")
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
equal() { if [ "$2" = "$3" ]; then pass; else fail "$1: '$2', wanted '$3'"; fi; }
work=$(mktemp -d /tmp/strata-object-XXXXXX)
export STRATA_STATE_DIR="$work/.state" QT_QPA_PLATFORM=offscreen
trap 'rm -rf "$work"' EXIT
[ -f "${STRATA_S3_ENVFILE:-}" ] || { echo "FAIL: no rgw.env (run through CTest, fixture rgw)"; exit 1; }
set -a; source "$STRATA_S3_ENVFILE"; set +a
obj() { echo "s3://$STRATA_S3_VERSIONED_BUCKET/obj-$$/$1?endpoint=$STRATA_S3_ENDPOINT${2:+&versionId=$2}"; }

# Three versions: 1000, 2000, 3000 bytes.
for n in 1 2 3; do
  head -c $((n * 1000)) /dev/urandom >"$work/v$n"
  "$STRATA" cp --overwrite "$work/v$n" "$(obj a.bin)" >/dev/null 2>"$work/err" || fail "cp v$n: $(cat "$work/err")"
done
expect 0 "stat --versions --json" -- "$STRATA" stat --versions --json "$(obj a.bin)"
equal "three versions" "$(jq '.versions | length' <<<"$out")" 3
equal "newest first" "$(jq -c '[.versions[].size]' <<<"$out")" "[3000,2000,1000]"
equal "the latest flagged" "$(jq -c '[.versions[].latest]' <<<"$out")" "[true,false,false]"
first=$(jq -r '.versions[2].versionId' <<<"$out") second=$(jq -r '.versions[1].versionId' <<<"$out")
equal "details: the version read" "$(jq -r '.details.versionId' <<<"$out")" "$(jq -r '.versions[0].versionId' <<<"$out")"
expect 0 "stat --versions text" -- "$STRATA" stat --versions "$(obj a.bin)"
contains "versions listed" "$out" "Versions:  3, newest first"
contains "first version" "$out" "$first"

# An older version, read by its id.
expect 0 "cp ?versionId=" -- "$STRATA" cp "$(obj a.bin "$first")" "$work/got"
cmp -s "$work/got" "$work/v1" && pass || fail "the version read is not the first upload"
expect 0 "stat of a version" -- "$STRATA" stat --json "$(obj a.bin "$second")"
equal "its size" "$(jq .size <<<"$out")" 2000
# A version is read-only; deleting it deletes that version alone.
expect 1 "writing a version refused" -- "$STRATA" cp --overwrite "$work/v1" "$(obj a.bin "$second")"
contains "why" "$err" "names one stored version"
expect 1 "a bad version id" -- "$STRATA" stat "$(obj a.bin 'a b')" && contains "says what it wants" "$err" "takes a version id"
expect 0 "rm of a version" -- "$STRATA" rm "$(obj a.bin "$second")"
expect 0 "versions after rm" -- "$STRATA" stat --versions --json "$(obj a.bin)"
equal "two left" "$(jq -c '[.versions[].size]' <<<"$out")" "[3000,1000]"
"$STRATA" cp "$(obj a.bin)" "$work/latest" >/dev/null 2>&1 && cmp -s "$work/latest" "$work/v3" && pass \
  || fail "the object no longer reads as its latest version"

# Tags: set exactly these, shown by tag and stat; cleared.
expect 0 "tag set" -- "$STRATA" tag "$(obj a.bin)" project=atlas "team=storage ops"
equal "tags printed" "$out" "$(printf 'project=atlas\nteam=storage ops')"
expect 0 "stat shows tags" -- "$STRATA" stat --json "$(obj a.bin)"
equal "stat tags" "$(jq -c '.details.tags' <<<"$out")" '{"project":"atlas","team":"storage ops"}'
expect 0 "tag replace" -- "$STRATA" tag "$(obj a.bin)" only=this
equal "replaced" "$out" "only=this"
expect 0 "tag --clear" -- "$STRATA" tag --clear "$(obj a.bin)"
equal "cleared" "$out" ""
expect 2 "tag needs KEY=VALUE" -- "$STRATA" tag "$(obj a.bin)" nonsense
expect 1 "a folder has no tags" -- "$STRATA" tag "s3://$STRATA_S3_VERSIONED_BUCKET/obj-$$?endpoint=$STRATA_S3_ENDPOINT"

# Share links: radosgw checks their signature and their age.
expect 0 "presign" -- "$STRATA" presign --expires 10m "$(obj a.bin)"
link=$out
contains "signed" "$link" "X-Amz-Signature="
lacks "no secret in the link" "$link" "$AWS_SECRET_ACCESS_KEY"
curl -sf -o "$work/shared" "$link" && cmp -s "$work/shared" "$work/v3" && pass || fail "the link does not download the object"
bad=${link%?}0; [ "$bad" = "$link" ] && bad=${link%?}1
equal "a tampered link refused" "$(curl -s -o /dev/null -w '%{http_code}' "$bad")" 403
expect 0 "presign a version" -- "$STRATA" presign "$(obj a.bin "$first")"
curl -sf -o "$work/shared1" "$out" && cmp -s "$work/shared1" "$work/v1" && pass || fail "a version's link"
expect 0 "presign 1s" -- "$STRATA" presign --expires 1s "$(obj a.bin)"
sleep 2
equal "an expired link refused" "$(curl -s -o /dev/null -w '%{http_code}' "$out")" 403
expect 2 "presign beyond 7 days" -- "$STRATA" presign --expires 8x "$(obj a.bin)"
expect 1 "presign 8 days refused" -- "$STRATA" presign --expires 8d "$(obj a.bin)" && contains "limit" "$err" "seven days"
# The content type is shown.
expect 0 "stat text" -- "$STRATA" stat "$(obj a.bin)"
contains "type shown" "$out" "Type:"
contains "class shown" "$out" "Class:     STANDARD"

# Object lock: a bucket created with it, an object under GOVERNANCE retention and a legal
# hold (set with curl's SigV4: strata shows them, it does not set them). stat shows both,
# and a delete of that version is refused by the server with a clear error, the version kept.
# signed METHOD PATH?QUERY [BODY [HEADER...]]: the HTTP status of a signed request (curl 7.88
# signs the query as given: sorted, each with an "=").
signed() {
  local method=$1 path=$2 body=${3:-} hash
  shift 3 2>/dev/null || shift $#
  hash=$(printf '%s' "$body" | sha256sum | cut -d' ' -f1)
  printf '%s' "$body" | curl -s --noproxy "*" --max-time 20 -o "$work/answer" -w '%{http_code}' -X "$method" \
    --aws-sigv4 "aws:amz:${AWS_REGION:-us-east-1}:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
    -H "x-amz-content-sha256: $hash" "$@" ${body:+--data-binary @-} "$STRATA_S3_ENDPOINT/$path"
}
locked=strata-locked-$$
equal "bucket with object lock" "$(signed PUT "$locked" "" -H "x-amz-bucket-object-lock-enabled: true")" 200
lu="s3://$locked/held.bin?endpoint=$STRATA_S3_ENDPOINT"
expect 0 "cp into the locked bucket" -- "$STRATA" cp "$work/v2" "$lu"
until=$(date -u -d "+2 days" +%Y-%m-%dT%H:%M:%SZ)
ns='xmlns="http://s3.amazonaws.com/doc/2006-03-01/"'
body="<Retention $ns><Mode>GOVERNANCE</Mode><RetainUntilDate>$until</RetainUntilDate></Retention>"
md5=$(printf '%s' "$body" | openssl dgst -md5 -binary | base64)
equal "retention set" "$(signed PUT "$locked/held.bin?retention=" "$body" -H "Content-MD5: $md5")" 200
body="<LegalHold $ns><Status>ON</Status></LegalHold>"
md5=$(printf '%s' "$body" | openssl dgst -md5 -binary | base64)
equal "legal hold set" "$(signed PUT "$locked/held.bin?legal-hold=" "$body" -H "Content-MD5: $md5")" 200
expect 0 "stat of a held object" -- "$STRATA" stat "$lu"
contains "retention shown" "$out" "Retention: GOVERNANCE until ${until%Z}"
contains "legal hold shown" "$out" "Legal hold: on"
expect 0 "stat --json of a held object" -- "$STRATA" stat --json "$lu"
equal "retention in JSON" "$(jq -r '.details.retention.mode' <<<"$out")" GOVERNANCE
equal "legal hold in JSON" "$(jq -r '.details.legalHold' <<<"$out")" true
held=$(jq -r '.details.versionId' <<<"$out")
expect 1 "rm of a held version refused" -- "$STRATA" rm "s3://$locked/held.bin?endpoint=$STRATA_S3_ENDPOINT&versionId=$held"
one_line "held: one line" "$err"
echo "rm of a held version: $err"
lacks "held: no secret" "$err" "$AWS_SECRET_ACCESS_KEY"
"$STRATA" cat "$lu" >"$work/held" 2>"$work/err"
cmp -s "$work/held" "$work/v2" && pass || fail "the held object is gone or changed: $(cat "$work/err")"

# s3rver: tags work there as well.
if [ -f "${STRATA_S3RVER_ENVFILE:-}" ]; then
  (
    set -a; source "$STRATA_S3RVER_ENVFILE"; set +a
    u="s3://$STRATA_S3_BUCKET/obj-$$.bin?endpoint=$STRATA_S3_ENDPOINT"
    "$STRATA" cp "$work/v1" "$u" >/dev/null 2>&1
    "$STRATA" tag "$u" a=b >"$work/out" 2>"$work/err"; echo "rc=$?" >>"$work/out"
    "$STRATA" rm "$u" >/dev/null 2>&1
  )
  equal "s3rver: tags" "$(cat "$work/out")" "$(printf 'a=b\nrc=0')"
else
  fail "no STRATA_S3RVER_ENVFILE"
fi
"$STRATA" rm -r "s3://$STRATA_S3_VERSIONED_BUCKET/obj-$$?endpoint=$STRATA_S3_ENDPOINT" >/dev/null 2>&1
finish
