#!/usr/bin/env bash
# Strata's S3 backend against rclone and aws-cli on the same s3rver (issue #4):
#   small   200 x 4 KiB    upload, download    goal: <= 0.70x rclone
#   medium   20 x 4 MiB    upload, download    goal: <= 1.00x rclone
#   large     4 x 16 MiB   upload, download    goal: <= 1.00x rclone
#   listing  10 000 keys under 1 000 prefixes, one recursive listing per tool
#                                              goal: <= 1.00x rclone
# Every run goes into a fresh prefix / a fresh local directory; each download is compared
# with its source (diff -r). Tools take turns: the order rotates every round.
# Prints every run, then medians and the ratios strata/rclone and strata/aws.
#
# Usage: tests/perf/s3_vs_peers.sh [RUNS=5]
# Env:   PERF_DIR (/var/tmp), STRATA (the release binary), STRATA_SKIP_BUILD=1,
#        STRATA_JOBS (strata's --jobs; unset: its default), AWS_CLI (/usr/bin/aws, Debian's),
#        SETS (which transfer sets: "small medium large"; the listing always runs).
#
# All traffic stays on 127.0.0.1: the server is our own s3rver, every tool gets the endpoint
# explicitly, proxies are off, the EC2 metadata service is disabled, aws and rclone read no
# config of the user's, and one traced run per tool fails the script if it reached for any
# other address.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-5}
[ -n "${STRATA_STATE_DIR:-}" ] && own_state=0 || own_state=1
perf_setup
"$perf_root/tests/servers/s3rver.sh" install
perf_workdir s3perf # HOME in it: no config of the user's
s3_peer_env "$work/aws"
perf_server_start s3rver "$work/server"
[[ $endpoint =~ ^http://127\.0\.0\.1:[0-9]+$ ]] || { echo "unexpected endpoint '$endpoint'" >&2; exit 1; }
bucket=strata-test

peers_s3

echo "strata: $STRATA ($("$STRATA" --version 2>&1 | head -1))"
echo "rclone: $(rcl version 2>/dev/null | head -1) (default --transfers 4, --checkers 8)"
echo "aws:    $AWS_CLI ($("$AWS_CLI" --version 2>&1))"
echo "s3rver: $endpoint, bucket $bucket, data in $work (page cache: $PERF_CACHE), $runs runs each"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

# --- data (random bytes) on local disk
declare -A set_files=([small]=200 [medium]=20 [large]=4) set_kib=([small]=4 [medium]=4096 [large]=16384)
read -ra sets <<<"${SETS-small medium large}"
make_set_data small medium large # all three: the loopback check uses the small one

# The cache is dropped before each run, then every tool is loaded once (aws-cli is a Python
# program: paging its modules in would otherwise count against its first transfer).
warm() { drop_caches; "$AWS_CLI" --version >/dev/null 2>&1 || true; }

tools=(strata rclone aws)
declare -A results

purge() { rcl purge "s3r:$bucket/$1"; }

# --- no tool talks to anything but 127.0.0.1: one traced upload and download each
check_tools_loopback

# --- upload and download of each set
time_transfer_sets "$runs" "${sets[@]}"

# --- listing: 10 000 keys under 1 000 prefixes, uploaded once, untimed, by the quickest way
# here: rclone with 16 requests in flight (s3rver's best). Not strata: its cp -r also writes
# a zero-byte marker "dir/" for each directory, 1 001 keys more than the set of the issue.
med() { printf '%s\n' ${results["$1"]} | median; }
mkdir -p "$work/data/listing"
for ((p = 0; p < 1000; p++)); do
  d=$(printf '%s/data/listing/p%03d' "$work" "$p"); mkdir "$d"
  for ((k = 0; k < 10; k++)); do printf 'p%03d/k%02d\n' "$p" "$k" >"$d/k$k"; done
done
t=$(time_cmd rcl copy --transfers 16 --checkers 16 --no-check-dest "$work/data/listing" "s3r:$bucket/tree/listing")
keys=$(awss3 ls --recursive "s3://$bucket/tree/listing/" | wc -l)
[ "$keys" = 10000 ] || { echo "the listing set holds $keys keys, not 10000" >&2; exit 1; }
printf 'listing: 10000 keys in 1000 prefixes uploaded once by rclone --transfers 16 in %.1f s (not in the table)\n' "$t"

# strata ls -R lists the whole tree, flat (pages of 1000 keys, no delimiter), like the peers.
list_strata() { "$STRATA" ls -R "$(uri tree/listing/)"; }
list_rclone() { rcl lsf -R "s3r:$bucket/tree/listing"; }
list_aws()    { awss3 ls --recursive "s3://$bucket/tree/listing/"; }
echo "listing commands (one recursive listing each):"
echo "  strata: strata ls -R '$(uri tree/listing/)'  (flat: pages of 1000 keys, no delimiter)"
echo "  rclone: rclone --config /dev/null lsf -R s3r:$bucket/tree/listing  (rclone lists flat here: pages of 1000 keys, no delimiter)"
echo "  aws:    aws --endpoint-url $endpoint s3 ls --recursive s3://$bucket/tree/listing/  (flat, pages of 1000 keys)"
# Each must see all 10 000 keys (rclone -R also prints the 1 000 directories, ending in /).
n_strata=$(list_strata 2>/dev/null | grep -vc '/$' || true)
n_rclone=$(list_rclone | grep -vc '/$' || true)
n_aws=$(list_aws | wc -l)
echo "  keys seen: strata $n_strata, rclone $n_rclone, aws $n_aws"
for n in "$n_strata" "$n_rclone" "$n_aws"; do
  [ "$n" = 10000 ] || { echo "a listing did not see the 10000 keys" >&2; exit 1; }
done
for ((i = 1; i <= runs; i++)); do
  for tool in $(rotated "$i"); do
    warm; t=$(time_cmd "list_$tool")
    results["listing,$tool"]+="$t "
    printf '%-7s run %d %-7s %7.3f s\n' listing "$i" "$tool" "$t"
  done
done

# --- table
echo
echo "== medians over $runs runs (seconds, lower is better)"
printf '%-16s %9s %9s %9s   %13s %10s   %s\n' case strata rclone aws strata/rclone strata/aws "goal (vs rclone)"
declare -A goal=([small-up]=0.70 [small-down]=0.70)
for row in $(for set in "${sets[@]}"; do echo "$set-up $set-down"; done) listing; do
  s=$(med "$row,strata"); r=$(med "$row,rclone"); a=$(med "$row,aws")
  g=${goal[$row]:-1.00} q=$(ratio "$s" "$r")
  verdict=$( [ "$(echo "$q <= $g" | bc -l)" = 1 ] && echo met || echo MISSED )
  printf '%-16s %9.3f %9.3f %9.3f   %13s %10s   <= %s  %s\n' "$row" "$s" "$r" "$a" "$q" "$(ratio "$s" "$a")" "$g" "$verdict"
done
echo
echo "sets: small = 200 x 4 KiB, medium = 20 x 4 MiB, large = 4 x 16 MiB, listing = 10 000 keys / 1 000 prefixes"
echo "goals (issue #4): <= 0.7x rclone on the small-file set, <= 1.0x on the rest"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
