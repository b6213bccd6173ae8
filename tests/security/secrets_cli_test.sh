#!/usr/bin/env bash
# Secrets never leave the places they were given in (issue 12): every `strata` command runs
# with known, distinctive secrets, through every way the command line accepts them, against
# the real servers of the tests (s3rver, lighttpd with its Basic and Digest areas), in
# success and failure cases (wrong password or key, a dead server, bad URIs, -v, --json,
# --progress, --progress-fd, a transfer killed with kill -9 and resumed, a crash, bench
# history). Then every output, log, journal, settings and data file is searched for each
# secret, its URL-encoded and base64 forms and the Basic auth header's base64: zero hits,
# else each file:line is printed. The same run checks that the secrets did work (the
# right one lists, the wrong one is refused), so a broken setup cannot pass.
#
# Usage: secrets_cli_test.sh /path/to/strata CASE
#   leaks  the commands above (shared s3rver and lighttpd: strata_with_s3, strata_with_webdav)
#   tls    ?insecure=1 warns on every command and only then; certificates are checked by
#          default (a loopback HTTPS server with a self-signed certificate)
#
# Only 127.0.0.1 is ever contacted. Every process started here is stopped by PID.
set -u
STRATA=$(readlink -f "$1")
CASE=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export QT_QPA_PLATFORM=offscreen
work=$(mktemp -d /tmp/strata-secrets-XXXXXX)
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do { kill -KILL "$p" && wait "$p"; } 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=../lib/checks.sh
source "$HERE/../lib/checks.sh"
ulimit -c 0 # the crash below leaves no core file

# A fresh home and XDG directories: whatever strata writes anywhere lands under $work.
# The secrets' inputs (~/.netrc, ~/.aws) are in $inputs; everything else is searched.
home=$work/home
inputs=$work/inputs
mkdir -p "$home" "$inputs" "$work/xdg/config" "$work/xdg/data" "$work/xdg/state" "$work/xdg/cache" "$work/log"
export HOME=$home XDG_CONFIG_HOME=$work/xdg/config XDG_DATA_HOME=$work/xdg/data XDG_STATE_HOME=$work/xdg/state \
  XDG_CACHE_HOME=$work/xdg/cache STRATA_STATE_DIR=$work/xdg/strata-state TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_PROFILE AWS_SHARED_CREDENTIALS_FILE AWS_CONFIG_FILE \
  AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 STRATA_WEBDAV_HOST STRATA_WEBDAV_USER STRATA_WEBDAV_PASSWORD NETRC

# run LABEL WANT -- COMMAND…: runs it with its stdout and stderr kept in $work/log/N-LABEL.*
# (searched at the end); checks the exit status; $out and $err hold them.
n=0
run() {
  local label=$1 want=$2; shift 3
  n=$((n + 1))
  local base
  base=$work/log/$(printf '%03d' "$n")-${label//[^A-Za-z0-9_.-]/_}
  printf '%s\n' "$*" >"$base.cmd"
  "$@" >"$base.out" 2>"$base.err"
  local rc=$?
  out=$(cat "$base.out"); err=$(cat "$base.err")
  if [ "$want" != any ] && [ "$rc" -ne "$want" ]; then
    fail "$label: exit $rc, wanted $want"; echo "  stdout: ${out:0:300}"; echo "  stderr: ${err:0:300}"
    return 1
  fi
  pass
}

# secret_forms SECRET…: each secret, URL-encoded (as curl or a URI would carry it) and base64.
secret_forms() {
  local s
  for s in "$@"; do
    printf '%s\n' "$s"
    jq -rn --arg s "$s" '$s|@uri'
    printf '%s' "$s" | base64 -w0; echo
  done
}

# search_leaks FORM…: every file of the run (outputs, logs, journals, settings, data, bench
# history), the inputs excepted, searched for each form; each hit is printed and fails.
search_leaks() {
  local form hits
  for form in "$@"; do
    [ ${#form} -ge 8 ] || { fail "secret form '$form' is too short to search for"; continue; }
    hits=$(grep -rnaF --exclude='*.cmd' --exclude-dir=inputs -- "$form" "$work" 2>/dev/null)
    if [ -n "$hits" ]; then
      fail "a secret leaked (form ${form:0:4}…): $(wc -l <<<"$hits") line(s)"
      cut -d: -f1-2 <<<"$hits" | head -40 | sed 's/^/  LEAK at /' # file:line, not the secret
    else
      pass
    fi
  done
}

finish() {
  echo "secrets_cli_test $CASE: $checks checks passed, $failures failed, $n commands"
  [ "$failures" -eq 0 ]
  exit
}

load_fixtures() {
  [ -f "${STRATA_S3_ENVFILE:-}" ] || { echo "FAIL: no s3rver env file (run through CTest, fixture s3rver)"; exit 1; }
  [ -f "${STRATA_WEBDAV_ENVFILE:-}" ] || { echo "FAIL: no lighttpd env file (run through CTest, fixture lighttpd)"; exit 1; }
  # Read, not exported: each command gets exactly the secrets it is meant to.
  s3_endpoint=$(sed -n 's/^STRATA_S3_ENDPOINT=//p' "$STRATA_S3_ENVFILE")
  s3_bucket=$(sed -n 's/^STRATA_S3_BUCKET=//p' "$STRATA_S3_ENVFILE")
  s3_key=$(sed -n 's/^AWS_ACCESS_KEY_ID=//p' "$STRATA_S3_ENVFILE")
  dav_endpoint=$(sed -n 's/^STRATA_WEBDAV_ENDPOINT=//p' "$STRATA_WEBDAV_ENVFILE")
  dav_user=$(sed -n 's/^STRATA_WEBDAV_USER=//p' "$STRATA_WEBDAV_ENVFILE")
  dav_password=$(sed -n 's/^STRATA_WEBDAV_PASSWORD=//p' "$STRATA_WEBDAV_ENVFILE")
  local e
  for e in "$s3_endpoint" "$dav_endpoint"; do
    case "$e" in http://127.0.0.1:[0-9]*) ;; *) echo "FAIL: $e is not on 127.0.0.1"; exit 1 ;; esac
  done
  [ -n "$dav_password" ] && [ -n "$s3_key" ] || { echo "FAIL: the env files lack credentials"; exit 1; }
  dav_host=${dav_endpoint#http://}
}

# The commands a user runs on one location BASE (a fresh directory, made here), with the
# credentials of the environment ENV… (an `env` prefix). Successes and failures alike.
every_command() {
  local tag=$1 base=$2 q=$3; shift 3
  local -a S=(env "$@" "$STRATA")
  local src=$work/tmp/src-$tag
  mkdir -p "$src/tree/sub"
  head -c 200000 /dev/urandom >"$src/tree/a.bin"
  printf 'hello\n' >"$src/tree/sub/b.txt"
  run "$tag-mkdir" 0 -- "${S[@]}" -v mkdir -p "$base/d$q"
  run "$tag-cp-up" 0 -- "${S[@]}" -v cp -r --json "$src/tree" "$base/d/$q"
  run "$tag-cp-progress" 0 -- "${S[@]}" cp --progress --progress-fd 3 --verify "$src/tree/a.bin" "$base/d/p.bin$q" \
    3>"$work/log/$n-$tag-progress-fd.txt"
  run "$tag-ls" 0 -- "${S[@]}" -v ls -l "$base/d/tree/$q"
  contains "$tag ls lists what was copied" "$out" "a.bin"
  run "$tag-ls-json" 0 -- "${S[@]}" ls -R --json "$base/d/$q"
  run "$tag-stat" 0 -- "${S[@]}" -v stat --json "$base/d/tree/a.bin$q"
  run "$tag-cat" 0 -- "${S[@]}" cat --length 3 "$base/d/tree/sub/b.txt$q"
  run "$tag-extents" 0 -- "${S[@]}" -v extents --json "$base/d/tree/a.bin$q"
  run "$tag-walk" 0 -- "${S[@]}" -v walk --json "$base/d/$q"
  run "$tag-du" 0 -- "${S[@]}" du --json "$base/d/$q"
  run "$tag-sync" 0 -- "${S[@]}" -v sync --json "$src/tree" "$base/d/synced$q"
  run "$tag-sync-dry" 0 -- "${S[@]}" sync --dry-run --delete "$base/d/tree$q" "$work/tmp/sync-$tag"
  run "$tag-cp-down" 0 -- "${S[@]}" cp -r --progress --json "$base/d/tree$q" "$work/tmp/down-$tag"
  run "$tag-mv" 0 -- "${S[@]}" -v mv "$base/d/p.bin$q" "$base/d/q.bin$q"
  run "$tag-cp-exists" 1 -- "${S[@]}" -v cp "$src/tree/a.bin" "$base/d/q.bin$q"
  run "$tag-stat-missing" 1 -- "${S[@]}" -v stat "$base/d/no-such$q"
  run "$tag-cat-missing" 1 -- "${S[@]}" cat "$base/d/no-such$q"
  run "$tag-rm" 0 -- "${S[@]}" -v rm -r "$base/d$q"
  run "$tag-bench-dir" 0 -- "${S[@]}" mkdir -p "$base/bench$q"
  run "$tag-bench" 0 -- "${S[@]}" bench "$base/bench$q" --ops write,read,stat,list,delete --sizes 4KiB \
    --count 1 --benchtime 20ms --label "$tag"
  run "$tag-bench-json" 0 -- "${S[@]}" -v bench "$base/bench$q" --ops write --sizes 4KiB --count 1 --benchtime 10ms --json
}

case_leaks() {
  load_fixtures
  command -v jq >/dev/null || { echo "FAIL: jq is missing (scripts/bootstrap test installs it)"; exit 1; }
  # Distinctive secrets, with characters a URL must escape. s3rver checks only the access
  # key (S3RVER), so the secret keys below are all accepted, and a wrong access key is
  # what it refuses; the session token goes out in X-Amz-Security-Token.
  local s3_secret_env='Ae7/EnvSecretKey+Zq91xPq/Wv3LmNoP' s3_token_env='IQoJb3JpZ2lu/EnvSessionTok+en9Xy=='
  local s3_secret_file='Bf8/FileSecretKey+Kw22yRr/Ux4MnOpQ' s3_token_file='IQoJb3JpZ2lu/FileSessionTok+en7Ab=='
  local s3_secret_conf='Cg9/ConfSecretKey+Lx33zSs/Vy5NoPqR' s3_secret_default='Dh0/DefaultSecretKey+My44aTt/Wz6'
  local s3_secret_wrong='Ei1/WrongSecretKey+Nz55bUu/Xa7OpQr' s3_secret_uri='Fj2/UriSecretKey+Oa66cVv/Yb8PqRs'
  local s3_secret_plain='EndpointSecret9931xyz' dav_wrong='Wrong+Pass/word-8f2d19c4' dav_uri_password='Uri+Pass/word-51ab7e30'
  local secrets=("$s3_secret_env" "$s3_token_env" "$s3_secret_file" "$s3_token_file" "$s3_secret_conf"
    "$s3_secret_default" "$s3_secret_wrong" "$s3_secret_uri" "$s3_secret_plain" "$dav_password" "$dav_wrong" "$dav_uri_password")
  local -a forms
  mapfile -t forms < <(secret_forms "${secrets[@]}")
  # What an Authorization: Basic header carries.
  forms+=("$(printf '%s:%s' "$dav_user" "$dav_password" | base64 -w0)" "$(printf '%s:%s' "$dav_user" "$dav_wrong" | base64 -w0)")

  # Where the command line takes secrets from: the AWS files (named by the environment or in
  # the home), ~/.netrc; environment variables are given per command.
  mkdir -p "$inputs/aws" "$home/.aws"
  cat >"$inputs/aws/credentials" <<EOF
[sec]
aws_access_key_id = $s3_key
aws_secret_access_key = $s3_secret_file
aws_session_token = $s3_token_file
[wrong]
aws_access_key_id = WRONGKEY
aws_secret_access_key = $s3_secret_wrong
EOF
  cat >"$inputs/aws/config" <<EOF
[profile conf]
aws_access_key_id = $s3_key
aws_secret_access_key = $s3_secret_conf
EOF
  printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$s3_key" "$s3_secret_default" >"$inputs/aws/home-credentials"
  # ~/.aws and ~/.netrc are inputs: links into $inputs, which the search skips.
  ln -s "$inputs/aws/home-credentials" "$home/.aws/credentials"
  printf 'machine 127.0.0.1 login %s password %s\n' "$dav_user" "$dav_password" >"$inputs/netrc"
  chmod 600 "$inputs/netrc"

  local s3q="?endpoint=$s3_endpoint" s3="s3://$s3_bucket/sec-$$-$RANDOM"
  local files=(AWS_SHARED_CREDENTIALS_FILE="$inputs/aws/credentials" AWS_CONFIG_FILE="$inputs/aws/config")
  local s3env=(AWS_ACCESS_KEY_ID="$s3_key" AWS_SECRET_ACCESS_KEY="$s3_secret_env" AWS_SESSION_TOKEN="$s3_token_env")
  local davenv=(STRATA_WEBDAV_HOST="$dav_host" STRATA_WEBDAV_USER="$dav_user" STRATA_WEBDAV_PASSWORD="$dav_password")

  # Every command on S3 (keys and token from the environment), WebDAV Basic and Digest.
  every_command s3env "$s3/env" "$s3q" "${s3env[@]}"
  every_command basic "webdav://$dav_host/auth/sec-$$" "" "${davenv[@]}"
  every_command digest "webdav://$dav_user@$dav_host/digest/sec-$$" "" STRATA_WEBDAV_HOST="$dav_host" STRATA_WEBDAV_PASSWORD="$dav_password"

  # The other ways in: a profile in the file AWS_SHARED_CREDENTIALS_FILE names (by ?profile=
  # and by AWS_PROFILE), one in AWS_CONFIG_FILE, the default profile of ~/.aws/credentials;
  # ~/.netrc for the user the URI names.
  run s3-profile-uri 0 -- env "${files[@]}" "$STRATA" -v ls "$s3/$s3q&profile=sec"
  run s3-profile-uri-cp 0 -- env "${files[@]}" "$STRATA" -v cp --json "$HERE/secrets_cli_test.sh" "$s3/prof/x.sh$s3q&profile=sec"
  run s3-profile-env 0 -- env "${files[@]}" AWS_PROFILE=sec "$STRATA" -v stat "$s3/prof/x.sh$s3q"
  run s3-profile-config 0 -- env "${files[@]}" "$STRATA" -v ls -l "$s3/prof/$s3q&profile=conf"
  run s3-profile-default 0 -- "$STRATA" -v ls -R "$s3/$s3q"
  contains "the default profile lists what the named one wrote" "$out" "x.sh"
  run s3-profile-rm 0 -- env "${files[@]}" AWS_PROFILE=conf "$STRATA" -v rm "$s3/prof/x.sh$s3q"
  ln -s "$inputs/netrc" "$home/.netrc"
  run netrc-home-ls-auth 0 -- "$STRATA" -v ls "webdav://$dav_user@$dav_host/auth/"
  run netrc-home-ls 0 -- "$STRATA" -v ls "webdav://$dav_user@$dav_host/digest/"
  run netrc-home-cp 0 -- "$STRATA" -v cp --progress-fd 2 "$HERE/secrets_cli_test.sh" "webdav://$dav_user@$dav_host/auth/netrc-$$.sh"
  run netrc-home-rm 0 -- "$STRATA" rm "webdav://$dav_user@$dav_host/auth/netrc-$$.sh"
  rm -f "$home/.netrc"

  # The secrets do matter: without them, or with wrong ones, the same requests are refused.
  run s3-wrong-key 1 -- env AWS_ACCESS_KEY_ID=WRONGKEY AWS_SECRET_ACCESS_KEY="$s3_secret_wrong" "$STRATA" -v ls "$s3/$s3q"
  contains "a wrong S3 key is refused" "$err" "credentials"
  run s3-wrong-profile 1 -- env "${files[@]}" "$STRATA" -v cp --json "$HERE/secrets_cli_test.sh" "$s3/w.sh$s3q&profile=wrong"
  run s3-wrong-key-json 1 -- env AWS_ACCESS_KEY_ID=WRONGKEY AWS_SECRET_ACCESS_KEY="$s3_secret_wrong" AWS_SESSION_TOKEN="$s3_token_env" \
    "$STRATA" ls --json "$s3/$s3q"
  run dav-wrong-basic 1 -- env STRATA_WEBDAV_HOST="$dav_host" STRATA_WEBDAV_USER="$dav_user" STRATA_WEBDAV_PASSWORD="$dav_wrong" "$STRATA" -v ls "webdav://$dav_host/auth/"
  contains "a wrong WebDAV password is refused" "$err" "refused the user name or password"
  run dav-wrong-digest 1 -- env STRATA_WEBDAV_HOST="$dav_host" STRATA_WEBDAV_USER="$dav_user" STRATA_WEBDAV_PASSWORD="$dav_wrong" "$STRATA" -v cp --progress \
    "$HERE/secrets_cli_test.sh" "webdav://$dav_host/digest/w.sh"
  run dav-none 1 -- "$STRATA" -v ls "webdav://$dav_host/auth/"
  run dav-wrong-stat-json 1 -- env STRATA_WEBDAV_HOST="$dav_host" STRATA_WEBDAV_USER="$dav_user" STRATA_WEBDAV_PASSWORD="$dav_wrong" "$STRATA" stat --json "webdav://$dav_host/digest/"

  # Every Qt logging category on (strata has no log variable of its own; -v is above).
  run s3-qt-debug 0 -- env QT_LOGGING_RULES='*.debug=true' "${s3env[@]}" "$STRATA" -v ls -R "$s3/$s3q"
  run dav-qt-debug 0 -- env QT_LOGGING_RULES='*.debug=true' "${davenv[@]}" "$STRATA" -v ls -l "webdav://$dav_host/digest/"

  # A dead server (nothing listens on 127.0.0.1:1), with the right secrets.
  run s3-dead 1 -- env "${s3env[@]}" "$STRATA" -v ls "$s3/?endpoint=http://127.0.0.1:1&timeout=1"
  contains "a dead S3 endpoint is named" "$err" "127.0.0.1:1"
  run dav-dead 1 -- env "${davenv[@]}" "$STRATA" -v cp --json "$HERE/secrets_cli_test.sh" "webdav://127.0.0.1:1/x?timeout=1"
  contains "a dead WebDAV server is named" "$err" "127.0.0.1:1"

  # Secrets where they do not belong: in the URI (percent-encoded, as a URI carries them).
  # Refused, and the URI printed back redacted.
  local s3_uri_enc dav_uri_enc
  s3_uri_enc=$(jq -rn --arg s "$s3_secret_uri" '$s|@uri')
  dav_uri_enc=$(jq -rn --arg s "$dav_uri_password" '$s|@uri')
  run s3-uri-userinfo 1 -- "$STRATA" -v ls "s3://$s3_key:$s3_uri_enc@$s3_bucket/$s3q"
  contains "an s3 URI with credentials is printed redacted" "$err" "s3://REDACTED@$s3_bucket"
  run s3-uri-query 1 -- "$STRATA" stat --json "$s3/x$s3q&aws_secret_access_key=$s3_uri_enc&x-amz-security-token=$(jq -rn --arg s "$s3_token_env" '$s|@uri')"
  contains "secret query values are printed redacted" "$err" "aws_secret_access_key=REDACTED"
  run s3-uri-endpoint-userinfo 1 -- env "${s3env[@]}" "$STRATA" -v ls "$s3/?endpoint=http://$s3_key:$s3_uri_enc@${s3_endpoint#http://}"
  contains "credentials in the endpoint are printed redacted" "$err" "endpoint=http://REDACTED@"
  run s3-uri-endpoint-plain 1 -- env "${s3env[@]}" "$STRATA" -v ls "$s3/?endpoint=http://$s3_key:$s3_secret_plain@${s3_endpoint#http://}"
  contains "credentials in the endpoint are refused" "$err" "credentials never go in the endpoint"
  contains "credentials in the endpoint are printed redacted (plain)" "$err" "endpoint=http://REDACTED@"
  run s3-uri-endpoint-raw 1 -- env "${s3env[@]}" "$STRATA" -v ls "$s3/?endpoint=http://$s3_key:$s3_secret_uri@${s3_endpoint#http://}"
  run dav-uri-password 1 -- "$STRATA" -v ls "webdav://$dav_user:$dav_uri_enc@$dav_host/auth/"
  contains "a webdav URI with a password is printed redacted" "$err" "webdav://REDACTED@$dav_host/auth/"
  run dav-uri-password-cp 1 -- "$STRATA" cp --json "$HERE/secrets_cli_test.sh" "webdav://$dav_user:$dav_uri_enc@$dav_host/auth/x"
  run dav-uri-query 1 -- "$STRATA" ls "webdav://$dav_host/auth/?password=$dav_uri_enc"
  run bad-uri 2 -- env "${davenv[@]}" "$STRATA" ls
  run bad-uri-2 any -- env "${s3env[@]}" "$STRATA" -v ls "s3://$s3_key:$s3_uri_enc@/?endpoint=%zz"

  # A transfer killed with kill -9 mid-way leaves its journal; the same command resumes it.
  # The journal is kept aside before the resumed run removes it. Then a crash (SIGSEGV and
  # SIGABRT) of a running transfer: what it prints on its way out.
  head -c 6M /dev/urandom >"$work/tmp/big.bin"
  local kind target
  for kind in s3 dav; do
    if [ $kind = s3 ]; then target=(env "${s3env[@]}" "$STRATA" cp --progress --part-size 5M --bwlimit 2M "$work/tmp/big.bin" "$s3/big.bin$s3q")
    else target=(env "${davenv[@]}" "$STRATA" cp --progress --bwlimit 2M "$work/tmp/big.bin" "webdav://$dav_host/auth/big-$$.bin"); fi
    "${target[@]}" >"$work/log/killed-$kind.out" 2>"$work/log/killed-$kind.err" &
    local pid=$!
    pids+=("$pid")
    # Killed once its journal exists and some data moved (the copy takes ~3 s at 2 MB/s).
    local i
    for ((i = 0; i < 200; i++)); do
      compgen -G "$STRATA_STATE_DIR/transfers/*.transfer.log" >/dev/null && grep -q ' of ' "$work/log/killed-$kind.err" && break
      sleep 0.05
    done
    sleep 0.3
    kill -KILL "$pid"; wait "$pid" 2>/dev/null
    if [ -n "$(ls -A "$STRATA_STATE_DIR/transfers" 2>/dev/null)" ]; then pass; else fail "$kind: kill -9 left no journal in $STRATA_STATE_DIR/transfers"; fi
    cp -a "$STRATA_STATE_DIR" "$work/log/journal-after-kill-$kind"
    run "resumed-$kind" 0 -- "${target[@]/2M/1G}"
    local sig
    for sig in SEGV ABRT; do
      "${target[@]}" --overwrite >"$work/log/crash-$kind-$sig.out" 2>"$work/log/crash-$kind-$sig.err" &
      pid=$!
      pids+=("$pid")
      # Crashed once the copy is under way (its journal and progress written): a crash
      # before anything was printed or written would leave nothing to search.
      for ((i = 0; i < 200; i++)); do
        compgen -G "$STRATA_STATE_DIR/transfers/*.transfer.log" >/dev/null && grep -q ' of ' "$work/log/crash-$kind-$sig.err" 2>/dev/null && break
        sleep 0.05
      done
      kill -"$sig" "$pid"; wait "$pid" 2>/dev/null
      cp -a "$STRATA_STATE_DIR" "$work/log/journal-after-$sig-$kind" 2>/dev/null
    done
    rm -rf "$STRATA_STATE_DIR/transfers"
  done
  run cleanup-s3 0 -- env "${s3env[@]}" "$STRATA" rm -r -f "$s3$s3q"
  run cleanup-dav 0 -- env "${davenv[@]}" "$STRATA" rm -f "webdav://$dav_host/auth/big-$$.bin"

  # The bench history: kept, readable by benchstat, and the runs above are in it.
  local history=$XDG_DATA_HOME/strata/bench
  if [ -n "$(ls -A "$history" 2>/dev/null)" ]; then pass; else fail "no bench history in $history"; fi
  local f
  for f in "$history"/*; do
    [ -f "$f" ] && { run benchstat 0 -- "$STRATA" benchstat "$f"; break; }
  done

  # The desktop app opened with the secrets in its environment, closed after a moment: its
  # settings and log are searched too.
  timeout -s TERM 4 env "${s3env[@]}" "${davenv[@]}" "$STRATA" open >"$work/log/open.out" 2>"$work/log/open.err"

  search_leaks "${forms[@]}"
  finish
}

# start_tls_server: a loopback HTTPS server (node) with a self-signed certificate (openssl)
# that answers every request 403; sets $tls_port.
start_tls_server() {
  command -v openssl >/dev/null || { echo "FAIL: openssl is missing (scripts/bootstrap test installs it)"; exit 1; }
  openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -days 2 -keyout "$inputs/key.pem" -out "$inputs/cert.pem" \
    >/dev/null 2>&1 || { echo "FAIL: openssl cannot make a certificate"; exit 1; }
  node -e '
    const fs = require("fs"), https = require("https");
    const server = https.createServer({key: fs.readFileSync(process.argv[1]), cert: fs.readFileSync(process.argv[2])},
      (req, res) => { req.resume(); res.writeHead(403, {"Content-Type": "text/plain"}); res.end("no\n"); });
    server.listen(0, "127.0.0.1", () => console.log(server.address().port));
  ' "$inputs/key.pem" "$inputs/cert.pem" >"$inputs/tls.port" 2>"$inputs/tls.err" &
  pids+=("$!")
  tls_port=$(first_line "$inputs/tls.port") && return 0
  echo "FAIL: the HTTPS server did not start: $(cat "$inputs/tls.err")"; exit 1
}

case_tls() {
  load_fixtures
  local warning="are NOT verified (?insecure=1)"
  local s3env=(AWS_ACCESS_KEY_ID="$s3_key" AWS_SECRET_ACCESS_KEY='Tls/SecretKey+Qq0' AWS_SESSION_TOKEN='Tls/Token+Rr1==')
  local davenv=(STRATA_WEBDAV_HOST="$dav_host" STRATA_WEBDAV_USER="$dav_user" STRATA_WEBDAV_PASSWORD="$dav_password")
  local s3="s3://$s3_bucket/tls-$$" dav="webdav://$dav_host/auth/tls-$$"

  # ?insecure=1 warns on every command that uses it (plain http here: the option is still
  # taken, and still said), and only then.
  local what uri kind
  for kind in s3 dav; do
    local -a E
    if [ $kind = s3 ]; then E=("${s3env[@]}"); uri="$s3"; q="?endpoint=$s3_endpoint&insecure=1"; plain="?endpoint=$s3_endpoint"
    else E=("${davenv[@]}"); uri="$dav"; q="?insecure=1"; plain=""; fi
    for what in "mkdir -p $uri$q" "cp $HERE/secrets_cli_test.sh $uri/f.sh$q" "ls -l $uri/$q" "stat $uri/f.sh$q" \
      "cat --length 1 $uri/f.sh$q" "walk $uri/$q" "du $uri/$q" "extents $uri/f.sh$q" "mv $uri/f.sh$q $uri/g.sh$q" \
      "sync $HERE $uri/s$q" "stat $uri/missing$q" "rm -r $uri$q"; do
      # shellcheck disable=SC2086 # the words are the command line
      run "$kind-insecure-${what%% *}" any -- env "${E[@]}" "$STRATA" $what
      contains "$kind ${what%% *} with ?insecure=1 warns" "$err" "$warning"
    done
    # shellcheck disable=SC2086
    run "$kind-secure-ls" any -- env "${E[@]}" "$STRATA" ls "$uri/$plain"
    lacks "$kind ls without ?insecure=1 does not warn" "$err" "NOT verified"
  done

  # Verification is on by default: a self-signed certificate is refused with a sentence
  # that says so; with ?insecure=1 the TLS handshake passes (the server is no WebDAV or S3
  # server, so the command still fails), with the warning.
  start_tls_server
  run webdavs-default 1 -- env "${davenv[@]}" "$STRATA" ls "webdavs://127.0.0.1:$tls_port/"
  contains "webdavs: a self-signed certificate is refused" "$err" "TLS certificate of 127.0.0.1:$tls_port could not be verified"
  lacks "webdavs: refused without the warning" "$err" "NOT verified"
  run s3-https-default 1 -- env "${s3env[@]}" "$STRATA" ls "s3://$s3_bucket/?endpoint=https://127.0.0.1:$tls_port"
  contains "s3 https: a self-signed certificate is refused" "$err" "TLS certificate of 127.0.0.1:$tls_port could not be verified"
  run webdavs-insecure any -- env "${davenv[@]}" "$STRATA" ls "webdavs://127.0.0.1:$tls_port/?insecure=1&timeout=2"
  contains "webdavs ?insecure=1 warns" "$err" "$warning"
  lacks "webdavs ?insecure=1 gets past TLS" "$err" "could not be verified"
  run s3-https-insecure any -- env "${s3env[@]}" "$STRATA" ls "s3://$s3_bucket/?endpoint=https://127.0.0.1:$tls_port&insecure=1&timeout=2"
  contains "s3 https ?insecure=1 warns" "$err" "$warning"
  lacks "s3 https ?insecure=1 gets past TLS" "$err" "could not be verified"

  local -a forms
  mapfile -t forms < <(secret_forms "$dav_password" 'Tls/SecretKey+Qq0' 'Tls/Token+Rr1==')
  forms+=("$(printf '%s:%s' "$dav_user" "$dav_password" | base64 -w0)")
  search_leaks "${forms[@]}"
  finish
}

case "$CASE" in
  leaks) case_leaks ;;
  tls) case_tls ;;
  *) echo "unknown case $CASE"; exit 2 ;;
esac
