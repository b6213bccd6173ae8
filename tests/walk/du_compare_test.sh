#!/usr/bin/env bash
# strata du --save / --compare: a tree scanned, changed (grown, shrunk, new, removed
# entries, a folder added and one removed), scanned again; the comparison reports each
# change once with its exact byte delta, largest first, from a live walk and from two
# saved scans alike. Damaged and foreign files are refused with a clear error.
# Usage: du_compare_test.sh /path/to/strata
set -u
STRATA=$(readlink -f "$1")
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-ducmp-XXXXXX")
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"

t=$work/tree
mkdir -p "$t/docs" "$t/media/old" "$t/keep"
head -c 10000 /dev/urandom >"$t/docs/grow.txt"
head -c 50000 /dev/urandom >"$t/docs/shrink.bin"
head -c 7000 /dev/urandom >"$t/media/gone.jpg"
head -c 3000 /dev/urandom >"$t/media/old/a.dat"
head -c 4000 /dev/urandom >"$t/media/old/b.dat"
head -c 1234 /dev/urandom >"$t/keep/same.txt"
printf 'x' >"$t/$(printf 'odd\tname')"

expect 0 "du --save" -- "$STRATA" du --save "$work/before.scan" --apparent "$t"
[ -s "$work/before.scan" ] && pass || fail "du --save wrote nothing"
contains "du --save still prints the usage" "$out" "docs"
ls "$work"/before.scan.* >/dev/null 2>&1 && fail "du --save left a temporary file" || pass

# the changes
head -c 2500 /dev/urandom >>"$t/docs/grow.txt"  # +2500
truncate -s 20000 "$t/docs/shrink.bin"           # -30000
rm "$t/media/gone.jpg"                            # -7000
rm -r "$t/media/old"                              # -7000 (a folder, and what was in it)
mkdir -p "$t/new/deep"
head -c 9000 /dev/urandom >"$t/new/deep/n.bin"    # +9000 (a folder)
head -c 600 /dev/urandom >"$t/docs/added.txt"     # +600

expect 0 "du --compare (live)" -- "$STRATA" du --compare "$work/before.scan" --apparent --json "$t"
live=$out
# change PATH: "change before after delta" of one entry
change() { jq -r --arg p "$1" '.changes[] | select(.path == $p) | "\(.change) \(.before) \(.after) \(.delta)"' <<<"$2"; }
check_changes() { # WHAT JSON
  local what=$1 j=$2
  [ "$(change docs/grow.txt "$j")" = "grew 10000 12500 2500" ] && pass || fail "$what: grow.txt: $(change docs/grow.txt "$j")"
  [ "$(change docs/shrink.bin "$j")" = "shrank 50000 20000 -30000" ] && pass \
    || fail "$what: shrink.bin: $(change docs/shrink.bin "$j")"
  [ "$(change media/gone.jpg "$j")" = "vanished 7000 0 -7000" ] && pass || fail "$what: gone.jpg: $(change media/gone.jpg "$j")"
  [ "$(change media/old "$j")" = "vanished 7000 0 -7000" ] && pass || fail "$what: media/old: $(change media/old "$j")"
  [ "$(change new "$j")" = "appeared 0 9000 9000" ] && pass || fail "$what: new/: $(change new "$j")"
  [ "$(change docs/added.txt "$j")" = "appeared 0 600 600" ] && pass || fail "$what: added.txt: $(change docs/added.txt "$j")"
  # folders add up what changed below them
  [ "$(change docs "$j")" = "shrank 60000 33100 -26900" ] && pass || fail "$what: docs/: $(change docs "$j")"
  [ "$(change media "$j")" = "shrank 14000 0 -14000" ] && pass || fail "$what: media/: $(change media "$j")"
  # nothing inside what appeared or vanished, nothing unchanged
  for p in media/old/a.dat new/deep new/deep/n.bin keep keep/same.txt; do
    [ -z "$(change "$p" "$j")" ] && pass || fail "$what: $p listed: $(change "$p" "$j")"
  done
  # largest change first
  local order
  order=$(jq -r '[.changes[] | (if .delta < 0 then -.delta else .delta end)] | . == (sort | reverse)' <<<"$j")
  [ "$order" = true ] && pass || fail "$what: not largest first: $(jq -c '[.changes[].delta]' <<<"$j")"
  [ "$(jq -r '"\(.appeared) \(.vanished) \(.grown) \(.shrunk) \(.delta)"' <<<"$j")" = "2 2 1 3 -31900" ] && pass \
    || fail "$what: counts: $(jq -c '{appeared, vanished, grown, shrunk, delta}' <<<"$j")"
}
check_changes "live" "$live"

# two saved scans: the same answer, nothing walked
expect 0 "du --save after" -- "$STRATA" du --save "$work/after.scan" --apparent "$t"
expect 0 "du --compare two scans" -- "$STRATA" du --compare "$work/before.scan" --apparent --json "$work/after.scan"
check_changes "saved" "$out"
# a scan decompressed by zstd reads the same
zstd -q -d "$work/before.scan" -o "$work/before.jsonl"
expect 0 "du --compare plain JSON lines" -- "$STRATA" du --compare "$work/before.jsonl" --apparent --json \
  "$work/after.scan"
check_changes "plain" "$out"
# the name with a tab survives the round trip
head -1 "$work/before.jsonl" | jq -e '.format == "strata-scan" and .entries == 11' >/dev/null && pass \
  || fail "scan header: $(head -1 "$work/before.jsonl")"
grep -q '"p":"odd\\tname"' "$work/before.jsonl" && pass || fail "the odd name is not in the scan as itself"

# text: signed sizes, largest first, a total line
expect 0 "du --compare text" -- "$STRATA" du --compare "$work/before.scan" --apparent "$work/after.scan"
head -1 <<<"$out" | grep -qE '^ *-29 KiB +shrank +docs/shrink.bin' && pass || fail "text: first line: $(head -1 <<<"$out")"
contains "text: total" "$out" "total -31 KiB"
contains "text: a folder ends in /" "$out" "appeared   new/"
# --top and --depth
expect 0 "du --compare --top 2" -- "$STRATA" du --compare "$work/before.scan" --apparent --json --top 2 "$work/after.scan"
[ "$(jq '.changes | length' <<<"$out")" = 2 ] && pass || fail "--top 2: $(jq -c '.changes' <<<"$out")"
expect 0 "du --compare --depth 1" -- "$STRATA" du --compare "$work/before.scan" --apparent --json --depth 1 \
  "$work/after.scan"
[ "$(jq -r '[.changes[].path] | sort | join(" ")' <<<"$out")" = "docs media new" ] && pass \
  || fail "--depth 1: $(jq -c '[.changes[].path]' <<<"$out")"

# bad input: a missing scan, a file that is no scan, a damaged one, one cut short
expect 1 "compare: missing file" -- "$STRATA" du --compare "$work/nope.scan" "$t"
contains "missing file: why" "$err" "nope.scan"
printf 'hello\n' >"$work/foreign.txt"
expect 1 "compare: not a scan" -- "$STRATA" du --compare "$work/foreign.txt" "$t"
contains "not a scan: why" "$err" "not a readable strata scan"
head -c 40 "$work/before.scan" >"$work/damaged.scan"
expect 1 "compare: damaged" -- "$STRATA" du --compare "$work/damaged.scan" "$t"
head -n 5 "$work/before.jsonl" >"$work/short.jsonl"
expect 1 "compare: cut short" -- "$STRATA" du --compare "$work/short.jsonl" "$t"
contains "cut short: why" "$err" "cut short: 4 of 11 entries"
# --save into a folder that does not exist: an error, nothing left behind
expect 1 "save: no such folder" -- "$STRATA" du --save "$work/no/such/x.scan" "$t"
contains "save: why" "$err" "no/such/x.scan"

finish
