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
servers=$perf_root/tests/servers/s3rver.sh
"$servers" install
work=$(mktemp -d "${PERF_DIR:-/var/tmp}/strata-s3perf-XXXXXX")
cleanup() {
  "$servers" stop "$work/server" || true
  rm -rf "$work"
  if [ "$own_state" = 1 ]; then
    case "$STRATA_STATE_DIR" in /tmp/strata-perf-state-*) rm -rf "$STRATA_STATE_DIR" ;; esac
  fi
}
trap cleanup EXIT

# --- only 127.0.0.1, and none of the user's settings
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy=127.0.0.1,localhost NO_PROXY=127.0.0.1,localhost
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_SECURITY_TOKEN AWS_ENDPOINT_URL \
  AWS_ENDPOINT_URL_S3 AWS_CA_BUNDLE AWS_ROLE_ARN AWS_WEB_IDENTITY_TOKEN_FILE \
  AWS_CONTAINER_CREDENTIALS_RELATIVE_URI AWS_CONTAINER_CREDENTIALS_FULL_URI
export AWS_EC2_METADATA_DISABLED=true
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
export AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1
export AWS_PAGER="" AWS_CLI_AUTO_PROMPT=off
mkdir -p "$work/aws"
export AWS_CONFIG_FILE=$work/aws/config AWS_SHARED_CREDENTIALS_FILE=$work/aws/credentials
: >"$AWS_SHARED_CREDENTIALS_FILE"
# Prefer Debian's aws-cli (scripts/bootstrap perf installs it) over one earlier on PATH.
AWS_CLI=${AWS_CLI:-$( [ -x /usr/bin/aws ] && echo /usr/bin/aws || command -v aws )}
[ -n "$AWS_CLI" ] || { echo "aws-cli is missing: scripts/bootstrap perf installs it" >&2; exit 1; }
"$AWS_CLI" configure set default.s3.addressing_style path # s3rver answers path style only

endpoint=$("$servers" start "$work/server" 2>"$work/server-start.log") \
  || { cat "$work/server-start.log" >&2; exit 1; }
[[ $endpoint =~ ^http://127\.0\.0\.1:[0-9]+$ ]] || { echo "unexpected endpoint '$endpoint'" >&2; exit 1; }
bucket=strata-test

# rclone: a remote named s3r from the environment alone; --config /dev/null reads no file.
export RCLONE_CONFIG_S3R_TYPE=s3 RCLONE_CONFIG_S3R_PROVIDER=Other RCLONE_CONFIG_S3R_ENDPOINT=$endpoint
export RCLONE_CONFIG_S3R_ACCESS_KEY_ID=S3RVER RCLONE_CONFIG_S3R_SECRET_ACCESS_KEY=S3RVER
export RCLONE_CONFIG_S3R_FORCE_PATH_STYLE=true RCLONE_CONFIG_S3R_REGION=us-east-1
export RCLONE_CONFIG_S3R_ENV_AUTH=false
rcl() { rclone --config /dev/null "$@"; }
awss3() { "$AWS_CLI" --endpoint-url "$endpoint" s3 "$@"; }
suri() { echo "s3://$bucket/$1?endpoint=$endpoint"; } # strata's URI of a key or prefix

echo "strata: $STRATA ($("$STRATA" --version 2>&1 | head -1))"
echo "rclone: $(rcl version 2>/dev/null | head -1) (default --transfers 4, --checkers 8)"
echo "aws:    $AWS_CLI ($("$AWS_CLI" --version 2>&1))"
echo "s3rver: $endpoint, bucket $bucket, data in $work (page cache: $PERF_CACHE), $runs runs each"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

# --- data (random bytes) on local disk
declare -A set_files=([small]=200 [medium]=20 [large]=4) set_kib=([small]=4 [medium]=4096 [large]=16384)
read -ra sets <<<"${SETS-small medium large}"
make_set_data small medium large # all three: the loopback check uses the small one

# Each tool's upload of DIR into PREFIX leaves the objects at PREFIX/<basename DIR>/...;
# its download of PREFIX/<set> makes the local directory OUT/<set>.
up_strata() { "$STRATA" cp -r ${STRATA_JOBS:+--jobs "$STRATA_JOBS"} "$1" "$(suri "$2/")"; }
up_rclone() { rcl copy "$1" "s3r:$bucket/$2/$(basename "$1")"; }
up_aws()    { awss3 cp --recursive --only-show-errors "$1" "s3://$bucket/$2/$(basename "$1")/"; }
down_strata() { "$STRATA" cp -r ${STRATA_JOBS:+--jobs "$STRATA_JOBS"} "$(suri "$1")" "$2/"; }
down_rclone() { rcl copy "s3r:$bucket/$1" "$2/$(basename "$1")"; }
down_aws()    { awss3 cp --recursive --only-show-errors "s3://$bucket/$1/" "$2/$(basename "$1")/"; }
# loopback_only runs them in a child shell.
export STRATA AWS_CLI endpoint bucket
export -f rcl awss3 suri up_strata up_rclone up_aws down_strata down_rclone down_aws
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
list_strata() { "$STRATA" ls -R "$(suri tree/listing/)"; }
list_rclone() { rcl lsf -R "s3r:$bucket/tree/listing"; }
list_aws()    { awss3 ls --recursive "s3://$bucket/tree/listing/"; }
echo "listing commands (one recursive listing each):"
echo "  strata: strata ls -R '$(suri tree/listing/)'  (flat: pages of 1000 keys, no delimiter)"
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
  order=("${tools[@]:$(( (i - 1) % 3 ))}" "${tools[@]:0:$(( (i - 1) % 3 ))}")
  for tool in "${order[@]}"; do
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
