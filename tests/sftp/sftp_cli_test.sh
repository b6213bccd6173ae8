#!/usr/bin/env bash
# The command line on OpenSSH's sshd (fixture sshd, chrooted): logins through a
# ~/.ssh/config alias, host keys as ssh checks them (unknown refused unless
# --accept-new-host-key, then known to ssh too; a changed key always refused with the
# offending line), the file operations, scp-style names, a name with a newline, wrong
# keys and dead servers. HOME is a scratch folder: the user's own ~/.ssh is never read.
# Usage: sftp_cli_test.sh STRATA
set -uo pipefail
strata=$1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/checks.sh
source "$here/../lib/checks.sh"
fixture_env STRATA_SFTP_ENVFILE sshd
export STRATA_SFTP_HOST # the fixture's server (127.0.0.1): STRATA_SFTP_PASSWORD below is given for it
work=$(mktemp -d)
trap 'rm -rf "$work" "${server_root:-/nonexistent}"' EXIT
export HOME=$work/home
unset SSH_AUTH_SOCK STRATA_SFTP_PASSWORD
mkdir -p "$HOME/.ssh" && chmod 700 "$HOME/.ssh"
cat >"$HOME/.ssh/config" <<CONF
# A comment, then an alias the way people write them.
Host other-host
    User nobody
Host strata-test !nothing-here
    HostName $STRATA_SFTP_HOST
    Port $STRATA_SFTP_PORT
    User $STRATA_SFTP_USER
    IdentityFile $STRATA_SFTP_KEY
    IdentitiesOnly yes
CONF
known=$HOME/.ssh/known_hosts
run=run-$$-$RANDOM # a folder of this run's own: the server may hold others'
server_root=$STRATA_SFTP_ROOT/upload/$run
mkdir -p "$server_root"
hostkey=$(dirname "$STRATA_SFTP_KEY")/host_ed25519.pub
print=$(ssh-keygen -lf "$hostkey" | awk '{print $2}')
label="[$STRATA_SFTP_HOST]:$STRATA_SFTP_PORT"
remote=sftp://strata-test/upload/$run

# 1. A server never seen: refused, its fingerprint shown as ssh shows it, nothing written.
expect 1 "unknown host key refused" -- "$strata" ls "$remote"
contains "unknown key: which host" "$err" "host key of $label is not known"
contains "unknown key: OpenSSH's fingerprint" "$err" "$print"
contains "unknown key: the way out" "$err" "--accept-new-host-key"
one_line "unknown key" "$err"
[ ! -e "$known" ] && pass || fail "a refused key was written to known_hosts"

# 2. Accepted once: said on stderr, one line added that OpenSSH's own client then trusts.
expect 0 "--accept-new-host-key" -- "$strata" --accept-new-host-key ls "$remote"
contains "accepted key announced" "$err" "added the ED25519 key $print of $label to $known"
[ "$(wc -l <"$known")" -eq 1 ] && pass || fail "known_hosts should hold one line: $(cat "$known")"
ssh-keygen -F "$label" -f "$known" >/dev/null && pass || fail "ssh-keygen -F does not find the added key"
if echo "ls /upload" | sftp -q -b - -F "$HOME/.ssh/config" -o StrictHostKeyChecking=yes -o BatchMode=yes \
  -o UserKnownHostsFile="$known" strata-test >/dev/null 2>&1; then pass; else fail "OpenSSH's sftp does not trust the line strata added"; fi
expect 0 "a known key needs no flag" -- "$strata" ls "$remote"

# 3. Files through the alias: copy up and down, list, stat, mkdir, rename, remove.
head -c 300000 /dev/urandom >"$work/data.bin"
expect 0 "cp up" -- "$strata" cp "$work/data.bin" "$remote/data.bin"
cmp -s "$work/data.bin" "$server_root/data.bin" && pass || fail "the uploaded bytes differ"
ls -a "$server_root" | grep -q '\.strata-' && fail "a temporary file was left: $(ls -a "$server_root")" || pass
expect 0 "cp down" -- "$strata" cp "$remote/data.bin" "$work/back.bin"
cmp -s "$work/data.bin" "$work/back.bin" && pass || fail "the downloaded bytes differ"
expect 0 "stat" -- "$strata" stat --json "$remote/data.bin"
[ "$(jq -r .size <<<"$out")" = 300000 ] && pass || fail "stat size: $out"
[ "$(jq -r .kind <<<"$out")" = file ] && pass || fail "stat kind: $out"
expect 0 "mkdir" -- "$strata" mkdir "$remote/folder"
[ -d "$server_root/folder" ] && pass || fail "mkdir made no folder"
expect 0 "mv into the folder" -- "$strata" mv "$remote/data.bin" "$remote/folder/moved.bin"
[ -f "$server_root/folder/moved.bin" ] && [ ! -e "$server_root/data.bin" ] && pass || fail "mv did not move"
echo "old" >"$server_root/keep.txt"
expect 1 "cp never replaces unasked" -- "$strata" cp "$work/data.bin" "$remote/keep.txt"
[ "$(cat "$server_root/keep.txt")" = old ] && pass || fail "keep.txt was replaced without --overwrite"
expect 0 "cp --overwrite replaces" -- "$strata" cp --overwrite "$work/data.bin" "$remote/keep.txt"
cmp -s "$work/data.bin" "$server_root/keep.txt" && pass || fail "--overwrite did not replace"
expect 0 "rm" -- "$strata" rm "$remote/keep.txt"
[ ! -e "$server_root/keep.txt" ] && pass || fail "rm left the file"

# 4. scp's form: user@host:/path, with the alias as the host.
expect 0 "scp-style cp" -- "$strata" cp "$work/data.bin" "$STRATA_SFTP_USER@strata-test:/upload/$run/scp.bin"
cmp -s "$work/data.bin" "$server_root/scp.bin" && pass || fail "scp-style upload differs"

# 5. A name with a newline is one entry, shown escaped; it cannot forge a second one.
printf 'x' >"$server_root/$(printf 'two\nlines')"
expect 0 "ls --json with a newline name" -- "$strata" ls --json "$remote"
[ "$(jq -r '[.entries[] | select(.name == "two\nlines")] | length' <<<"$out")" = 1 ] && pass || fail "newline name not listed once: $out"
[ "$(jq -r '[.entries[] | select(.name == "lines" or .name == "two")] | length' <<<"$out")" = 0 ] && pass || fail "a newline forged entries: $out"

# 6. A changed host key: refused whatever the flags, with the offending line; the file unchanged.
ssh-keygen -q -t ed25519 -N '' -f "$work/impostor"
echo "$label $(cut -d' ' -f1-2 "$work/impostor.pub")" >"$known"
cp "$known" "$work/known.before"
expect 1 "changed key refused" -- "$strata" --accept-new-host-key ls "$remote"
contains "changed key: OpenSSH's warning" "$err" "REMOTE HOST IDENTIFICATION HAS CHANGED"
contains "changed key: the offending line" "$err" "$known:1"
contains "changed key: the server's fingerprint" "$err" "$print"
cmp -s "$known" "$work/known.before" && pass || fail "known_hosts changed after a refused key"

# 7. A key the server does not know, and a password never printed.
ssh-keygen -F "$label" -f "$known" >/dev/null && ssh-keygen -q -R "$label" -f "$known" >/dev/null 2>&1
cat "$(dirname "$STRATA_SFTP_KNOWN_HOSTS")/known_hosts" >"$known"
ssh-keygen -q -t ed25519 -N '' -f "$work/stranger"
STRATA_SFTP_PASSWORD=hunter2-secret expect 1 "unknown key refused" -- "$strata" ls "sftp://$STRATA_SFTP_USER@$STRATA_SFTP_HOST:$STRATA_SFTP_PORT/upload/$run?identity=$work/stranger&known-hosts=$known"
contains "wrong key: who" "$err" "refused the login"
contains "wrong key: what was tried" "$err" "$work/stranger"
lacks "wrong key: no password shown" "$err" "hunter2-secret"
one_line "wrong key" "$err"
expect 1 "a password in the URI" -- "$strata" ls "sftp://u:pw@$STRATA_SFTP_HOST:$STRATA_SFTP_PORT/upload"
contains "password in URI: said" "$err" "never goes in an sftp:// URI"
lacks "password in URI not echoed" "$err" ":pw@"

# 7b. A password login (the fixture offers one when it runs as root): no key anywhere, the
#     password as STRATA_SFTP_PASSWORD; a file goes up and comes back byte-exact; a wrong
#     password is refused and said so; neither password is ever printed, -v included.
if [ -n "${STRATA_SFTP_LOGIN_PASSWORD:-}" ]; then
  pw_uri="sftp://$STRATA_SFTP_USER@$STRATA_SFTP_HOST:$STRATA_SFTP_PORT/upload/$run"
  head -c 300000 /dev/urandom >"$work/pw.bin"
  STRATA_SFTP_PASSWORD=$STRATA_SFTP_LOGIN_PASSWORD expect 0 "password login: upload" -- "$strata" -v cp "$work/pw.bin" "$pw_uri/pw.bin"
  lacks "password login: not printed" "$err$out" "$STRATA_SFTP_LOGIN_PASSWORD"
  cmp -s "$work/pw.bin" "$server_root/pw.bin" && pass || fail "password login: the upload differs on the server"
  STRATA_SFTP_PASSWORD=$STRATA_SFTP_LOGIN_PASSWORD expect 0 "password login: download" -- "$strata" cp "$pw_uri/pw.bin" "$work/pw.back"
  cmp -s "$work/pw.bin" "$work/pw.back" && pass || fail "password login: the download differs"
  STRATA_SFTP_PASSWORD='not-the-password' expect 1 "a wrong password" -- "$strata" ls "$pw_uri"
  contains "wrong password: who" "$err" "refused the login"
  contains "wrong password: what was tried" "$err" "tried a password"
  lacks "wrong password: not printed" "$err$out" "not-the-password"
  one_line "wrong password" "$err"
  [ -f "$work/pw.back" ] && [ ! -e "$work/pw.back.strata-partial" ] && pass || fail "a refused login touched the local side"
  # The same password asked the way PAM asks it (keyboard-interactive, no "password").
  if [ -n "${STRATA_SFTP_KBD_PORT:-}" ]; then
    kbd_uri="sftp://$STRATA_SFTP_USER@$STRATA_SFTP_HOST:$STRATA_SFTP_KBD_PORT/upload/$run"
    cat "$STRATA_SFTP_KNOWN_HOSTS" >>"$known"
    STRATA_SFTP_PASSWORD=$STRATA_SFTP_LOGIN_PASSWORD expect 0 "keyboard-interactive: download" -- "$strata" cp "$kbd_uri/pw.bin" "$work/kbd.back"
    cmp -s "$work/pw.bin" "$work/kbd.back" && pass || fail "keyboard-interactive: the download differs"
    STRATA_SFTP_PASSWORD='not-the-password' expect 1 "keyboard-interactive: a wrong password" -- "$strata" ls "$kbd_uri"
    contains "keyboard-interactive: what the server takes" "$err" "keyboard-interactive"
    contains "keyboard-interactive: what was tried" "$err" "tried a password"
    lacks "keyboard-interactive: not printed" "$err$out" "not-the-password"
  else
    skip "keyboard-interactive: the sshd fixture found no PAM service file for sshd to stand in for"
  fi
else
  skip "password logins: the sshd fixture offers them only when run as root with mount namespaces"
fi

# 8. Keys found the way ssh finds them: ~/.ssh/id_ed25519 with no IdentityFile, a key in
#    ssh-agent, and a key with a passphrase (given as STRATA_SFTP_PASSWORD, never printed).
cat "$(dirname "$STRATA_SFTP_KNOWN_HOSTS")/known_hosts" >"$known"
authorized=$(dirname "$STRATA_SFTP_KEY")/authorized_keys
plain_uri="sftp://$STRATA_SFTP_USER@$STRATA_SFTP_HOST:$STRATA_SFTP_PORT/upload/$run"
cp "$STRATA_SFTP_KEY" "$HOME/.ssh/id_ed25519" && chmod 600 "$HOME/.ssh/id_ed25519"
expect 0 "the default key ~/.ssh/id_ed25519" -- "$strata" ls "$plain_uri"
rm -f "$HOME/.ssh/id_ed25519"
expect 1 "no key at all" -- "$strata" ls "$plain_uri"
contains "no key: said" "$err" "no key found and no password given"
if command -v ssh-agent >/dev/null && command -v ssh-add >/dev/null; then
  eval "$(ssh-agent -s)" >/dev/null
  ssh-add -q "$STRATA_SFTP_KEY" 2>/dev/null
  expect 0 "a key in ssh-agent" -- "$strata" ls "$plain_uri"
  ssh-agent -k >/dev/null 2>&1
  unset SSH_AUTH_SOCK SSH_AGENT_PID
else
  skip "ssh-agent is not installed"
fi
ssh-keygen -q -t ed25519 -N 'correct horse' -f "$HOME/.ssh/id_ed25519"
cat "$HOME/.ssh/id_ed25519.pub" >>"$authorized"
expect 1 "a key with a passphrase, none given" -- "$strata" ls "$plain_uri"
contains "passphrase: said" "$err" "it needs a passphrase"
STRATA_SFTP_PASSWORD='wrong one' expect 1 "a wrong passphrase" -- "$strata" ls "$plain_uri"
contains "wrong passphrase: said" "$err" "a wrong passphrase"
lacks "wrong passphrase: not printed" "$err" "wrong one"
STRATA_SFTP_PASSWORD='correct horse' expect 0 "the passphrase given" -- "$strata" ls "$plain_uri"
lacks "passphrase not printed" "$err$out" "correct horse"

# 9. Nobody listening: a clear error, at once.
port=$(( STRATA_SFTP_PORT + 1 ))
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
start=$EPOCHREALTIME
expect 1 "dead server" -- "$strata" ls "sftp://$STRATA_SFTP_USER@127.0.0.1:$port/?known-hosts=$known"
contains "dead server: said" "$err" "cannot connect to 127.0.0.1:$port"
secs=$(echo "$EPOCHREALTIME - $start" | bc)
(( $(echo "$secs < 20" | bc) )) && pass || fail "a refused connection took $secs s"

finish
