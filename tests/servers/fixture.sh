# Shared by the server scripts of tests/servers (lighttpd.sh, s3rver.sh, sshd.sh,
# pureftpd.sh): each sets FIXTURE (the name of its env file, DIR/$FIXTURE.env) and
# USAGE_LINES (the lines of its header comment that show its usage), defines die() and
# its cmd_* functions, and ends with `fixture_main "$@"`.

# cmd_env DIR: prints DIR/$FIXTURE.env, the shell lines tests read.
cmd_env() {
  [ -f "$1/$FIXTURE.env" ] || die "no server running for $1 (no $1/$FIXTURE.env)"
  cat "$1/$FIXTURE.env"
}

usage() { sed -n "${USAGE_LINES}p" "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# fixture_main ARGS...: check|install, or start|stop|env|crash|revive DIR.
fixture_main() {
  case "${1:-}" in
    check | install) [ $# -eq 1 ] && declare -F "cmd_$1" >/dev/null || usage; "cmd_$1" ;;
    start) [ $# -eq 2 ] || usage; cmd_start "$2" ;;
    stop) [ $# -eq 2 ] || usage; [ -d "$2" ] || exit 0; cmd_stop "$(cd "$2" && pwd)" ;;
    env) [ $# -eq 2 ] || usage; cmd_env "$2" ;;
    crash) [ $# -eq 2 ] || usage; cmd_crash "$(cd "$2" && pwd)" ;;
    revive) [ $# -eq 2 ] || usage; cmd_revive "$(cd "$2" && pwd)" ;;
    *) usage ;;
  esac
}
