#!/usr/bin/env bash
# Names as people type them (issue 27): `strata cp report.txt "s3://b/report 100%.pdf"`
# stores "report 100%.pdf", as aws-cli and s5cmd do. In a storage URI's path only a valid
# %XX escape is decoded; any other '%' and every '#' belong to the name. Checked on local
# folders, S3 (s3rver) and WebDAV (lighttpd): the stored name is exactly what was typed,
# ls shows it as stored, cat reads it back, rm removes it and nothing else.
#
# Usage: names_test.sh /path/to/strata  (STRATA_S3_ENVFILE, STRATA_WEBDAV_ENVFILE: fixtures)
set -u
STRATA=$(readlink -f "$1")
work=$(mktemp -d /tmp/strata-names-XXXXXX)
export STRATA_STATE_DIR="$work/.state" QT_QPA_PLATFORM=offscreen
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"

printf 'report body\n' >"$work/report.txt"
# name as typed in the URI | name stored
names=(
  "report 100%.pdf|report 100%.pdf"
  "a#b.txt|a#b.txt"
  "50%off#2|50%off#2"
  "%zz%4|%zz%4"
  "%41-encoded|A-encoded"
  "%2541|%41"
)

# round_trip WHERE BASE [SUFFIX]: BASE is a folder URI ("scheme://…/dir", no trailing
# slash), SUFFIX its query ("?endpoint=…"), added after each name.
round_trip() {
  local where=$1 base=$2 suffix=${3:-} entry typed stored listing
  for entry in "${names[@]}"; do
    typed=${entry%%|*} stored=${entry#*|}
    expect 0 "$where: cp to '$typed'" -- "$STRATA" cp "$work/report.txt" "$base/$typed$suffix" || continue
    expect 0 "$where: cat '$typed'" -- "$STRATA" cat "$base/$typed$suffix"
    [ "$out" = "report body" ] && pass || fail "$where: cat '$typed' gave '$out'"
  done
  expect 0 "$where: ls" -- "$STRATA" ls "$base/$suffix"
  listing=$(LC_ALL=C sort <<<"$out")
  local want
  want=$(for entry in "${names[@]}"; do echo "${entry#*|}"; done | LC_ALL=C sort)
  [ "$listing" = "$want" ] && pass || { fail "$where: ls shows other names"; diff <(echo "$listing") <(echo "$want") | head; }
  # rm of the name with '#' removes that object alone.
  expect 0 "$where: rm 'a#b.txt'" -- "$STRATA" rm "$base/a#b.txt$suffix"
  expect 0 "$where: ls after rm" -- "$STRATA" ls "$base/$suffix"
  [ "$(wc -l <<<"$out")" -eq $((${#names[@]} - 1)) ] && lacks "$where: a#b.txt gone" "$out" "a#b.txt" \
    || fail "$where: rm left $(wc -l <<<"$out") names: $out"
  contains "$where: the % name kept" "$out" "report 100%.pdf"
}

# Local: the files on disk carry exactly the stored names.
mkdir "$work/local"
round_trip local "file://$work/local"
for entry in "${names[@]}"; do
  stored=${entry#*|}
  [ "$stored" = "a#b.txt" ] && continue
  [ -f "$work/local/$stored" ] && pass || fail "local: no file named '$stored' on disk: $(ls "$work/local")"
done
# A file:// URI printed back (cp -v names its destination) reads back as the same file.
expect 0 "local: a name with % and # as a source" -- "$STRATA" cp "file://$work/local/50%off#2" "$work/copy"
cmp -s "$work/copy" "$work/report.txt" && pass || fail "local: the copy from '50%off#2' differs"
# A NUL is still no character of a name.
expect 1 "encoded NUL refused" -- "$STRATA" cp "$work/report.txt" "file://$work/local/a%00b"
contains "encoded NUL: says why" "$err" "NUL"

if [ -f "${STRATA_S3_ENVFILE:-}" ]; then
  set -a; source "$STRATA_S3_ENVFILE"; set +a
  base="s3://$STRATA_S3_BUCKET/names-$$"
  round_trip s3 "$base" "?endpoint=$STRATA_S3_ENDPOINT"
  "$STRATA" rm -r "$base?endpoint=$STRATA_S3_ENDPOINT" >/dev/null 2>&1
else
  fail "no STRATA_S3_ENVFILE: run through CTest (fixture s3rver)"
fi

if [ -f "${STRATA_WEBDAV_ENVFILE:-}" ]; then
  set -a; source "$STRATA_WEBDAV_ENVFILE"; set +a
  base="webdav://${STRATA_WEBDAV_ENDPOINT#http://}/auth/names-$$"
  expect 0 "webdav: mkdir" -- "$STRATA" mkdir "$base"
  round_trip webdav "$base"
  "$STRATA" rm -r "$base" >/dev/null 2>&1
else
  fail "no STRATA_WEBDAV_ENVFILE: run through CTest (fixture lighttpd)"
fi
finish
