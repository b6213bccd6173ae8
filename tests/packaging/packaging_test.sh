#!/usr/bin/env bash
# The installers checked as a user gets them (issue #11).
# Usage: packaging_test.sh files|deb|rpm|tgz BUILD_DIR
#   files  installed desktop entry, metainfo, MIME type, icons, man page and completions
#   deb    the DEB: its metadata, unpacked into a throw-away root and run from there, then
#          (as root, when dpkg is free) installed with dpkg -i and removed with dpkg -r
#          leaving no file behind
#   rpm    the RPM: its file list and computed requirements
#   tgz    the TGZ: unpacked anywhere, strata finds libstrata.so and strata-gui.so relative to itself
set -euo pipefail
mode=$1
build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
app_id=io.github.strata.Strata
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() { "$@" || fail "$*"; }

# The files every package carries, relative to the prefix.
expected_files=(
  bin/strata lib/strata/libstrata.so lib/strata/strata-gui.so
  share/applications/$app_id.desktop share/metainfo/$app_id.metainfo.xml
  share/mime/packages/$app_id.xml share/icons/hicolor/scalable/apps/$app_id.svg
  share/man/man1/strata.1.gz share/bash-completion/completions/strata share/doc/strata/copyright
  share/zsh/vendor-completions/_strata share/zsh/site-functions/_strata
)
for size in 16 22 24 32 48 64 128 256; do
  expected_files+=("share/icons/hicolor/${size}x${size}/apps/$app_id.png")
done

cpack_build() { # cpack_build GENERATOR: builds one package into $work/out, prints its path
  cpack --config "$build/CPackConfig.cmake" -G "$1" -B "$work/out" >"$work/cpack-$1.log" 2>&1 \
    || { cat "$work/cpack-$1.log" >&2; return 1; }
  find "$work/out" -maxdepth 1 -name "strata*.${2:-${1,,}}" | head -n1
}

# Runs the installed strata the way a user would, from PREFIX.
check_runs() { # check_runs PREFIX
  local out
  out=$("$1/bin/strata" --version) || fail "$1/bin/strata --version failed"
  [[ $out == "strata "[0-9]* ]] || fail "strata --version printed '$out'"
  out=$("$1/bin/strata" ls memory://demo/) || fail "strata ls memory://demo/ failed"
  [ -n "$out" ] || fail "strata ls memory://demo/ printed nothing"
  # S3 (libcurl, libxml2): the command fails on the dead port (loopback, nothing listens on
  # port 1).
  out=$(AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test "$1/bin/strata" ls "s3://bucket/?endpoint=http://127.0.0.1:1" 2>&1) \
    && fail "strata ls on a dead S3 endpoint succeeded"
  [[ $out == *127.0.0.1* ]] || fail "strata ls on a dead S3 endpoint said: $out"
  # The command line: libstrata.so from its own lib/strata, and no Qt.
  local libs
  libs=$(ldd "$1/bin/strata")
  [[ $libs == *"$1/lib/strata/libstrata.so"* || $libs == *"$1/bin/../lib/strata/libstrata.so"* ]] \
    || fail "$1/bin/strata does not load $1/lib/strata/libstrata.so: $libs"
  ! grep -qi "qt" <<<"$libs" || fail "$1/bin/strata loads Qt: $libs"
  # No display: the window cannot open, but the module must be found and loaded.
  if QT_QPA_PLATFORM=offscreen STRATA_SCREENSHOT="$work/shot.png" STRATA_SECRETS=file XDG_CONFIG_HOME="$work/config" \
    XDG_DATA_HOME="$work/data" STRATA_STATE_DIR="$work/state" timeout 60 "$1/bin/strata" 2>"$work/gui.err"; then
    [ -s "$work/shot.png" ] || fail "the installed desktop app drew no window"
    echo "$1/bin/strata: commands run, the desktop app drew its window"
  else
    ! grep -q "cannot open the desktop app" "$work/gui.err" || fail "installed strata did not find strata-gui.so: $(cat "$work/gui.err")"
  fi
}

check_tree() { # check_tree ROOT/PREFIX: every expected file is there
  local f
  for f in "${expected_files[@]}"; do
    [ -e "$1/$f" ] || fail "missing $f"
  done
}

case $mode in
files)
  root=$work/root
  DESTDIR=$root cmake --install "$build" --prefix /usr >/dev/null
  check_tree "$root/usr"
  # One copy of core: no strata function or variable (compiler clones of inline code aside)
  # is defined in more than one of the binaries (installed unstripped here).
  for bin in bin/strata lib/strata/libstrata.so lib/strata/strata-gui.so; do
    nm -C --defined-only "$root/usr/$bin" | awk '$2 ~ /^[TtDdBbRr]$/ { $1 = ""; $2 = ""; print substr($0, 3) }' \
      | grep '^strata::' | grep -v '\[clone ' | sort -u
  done | sort | uniq -d >"$work/twice"
  [ ! -s "$work/twice" ] || fail "defined in more than one binary: $(head -5 "$work/twice")"
  [ "$(nm -C --defined-only "$root/usr/lib/strata/libstrata.so" | grep -c ' T strata::Registry::')" -gt 0 ] \
    || fail "libstrata.so defines no strata::Registry"
  check desktop-file-validate "$root/usr/share/applications/$app_id.desktop"
  check appstreamcli validate --no-net --pedantic "$root/usr/share/metainfo/$app_id.metainfo.xml"
  check xmllint --noout "$root/usr/share/mime/packages/$app_id.xml"
  # Each screenshot the metainfo shows is one tests/gui/screenshots.sh makes.
  shots=$(grep -oE '<image>[^<]+</image>' "$root/usr/share/metainfo/$app_id.metainfo.xml" | sed -E 's#.*/([^/<]+)</image>#\1#')
  [ -n "$shots" ] || fail "the metainfo has no screenshots"
  for shot in $shots; do
    [ -f "$(dirname "$0")/../../resources/screenshots/$shot" ] || fail "no resources/screenshots/$shot"
  done
  # Each PNG is the size its folder names (bytes 16-23 of a PNG: width and height).
  for size in 16 22 24 32 48 64 128 256; do
    png=$root/usr/share/icons/hicolor/${size}x${size}/apps/$app_id.png
    dims=$(od -An -tu1 -j16 -N8 "$png" | awk '{print $3*256+$4 "x" $7*256+$8}')
    [ "$dims" = "${size}x${size}" ] || fail "$png is $dims"
  done
  # The man page renders cleanly and names every option of every command.
  man_page=$root/usr/share/man/man1/strata.1.gz
  LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$man_page" >"$work/man.txt" 2>"$work/man.err" \
    || fail "man -l failed"
  [ ! -s "$work/man.err" ] || fail "man page warnings: $(cat "$work/man.err")"
  strata=$root/usr/bin/strata
  commands=$("$strata" --help | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1} /^$/{on=0}')
  [ -n "$commands" ] || fail "no commands in strata --help"
  # open is the window's command (not in the table of --help): it has its own section.
  for cmd in $commands open; do
    grep -q "^ *strata $cmd \[OPTIONS\]" "$work/man.txt" || fail "man page lacks the command $cmd"
    # Each option of the command, long and short, in that command's section (the text up
    # to the next command's heading).
    section=$(awk -v h="strata $cmd [OPTIONS]" 'index($0, h) {on = 1; print; next} on && /^ +strata [a-z]+ \[OPTIONS\]/ {exit} on' "$work/man.txt")
    help=$("$strata" "$cmd" --help 2>&1)
    # (-h/--help, -v/--verbose and --accept-new-host-key are global options, described once below.)
    for opt in $(grep -oE '^ +(-[A-Za-z], )?--[a-z-]+' <<<"$help" | grep -oE -- '--[a-z-]+' | grep -vxE -- '--help|--verbose|--accept-new-host-key') \
               $(grep -oE '^ +-[A-Za-z][, ]' <<<"$help" | grep -oE -- '-[A-Za-z]' | grep -vxE -- '-h|-v'); do
      grep -qF -- "$opt" <<<"$section" || fail "man page lacks $cmd $opt in its section"
    done
  done
  global=$(awk '/^GLOBAL OPTIONS/ {on = 1; next} on && /^[A-Z]/ {exit} on' "$work/man.txt")
  for opt in "-h, --help" "-v, --verbose" "--accept-new-host-key"; do
    grep -qF -- "$opt" <<<"$global" || fail "man page lacks the global option $opt"
  done
  # The desktop entry's command line: files and folders open in the window, they are not
  # read as a command (Exec=strata open %F; the actions add --benchmarks, --usage); file:// and
  # storage URIs open too.
  grep -qx 'Exec=strata open %F' "$root/usr/share/applications/$app_id.desktop" || fail "unexpected Exec line"
  printf 'goos: linux\nBenchmarkRead/size=4KiB-8 \t 1000\t 2000 ns/op\n' >"$work/run.bench"
  for args in "open $work $work/run.bench" "open --benchmarks" "open --usage" "open file://$work memory://demo/"; do
    # shellcheck disable=SC2086 # the words of $args are separate arguments
    QT_QPA_PLATFORM=offscreen STRATA_SCREENSHOT="$work/open.png" STRATA_SECRETS=file XDG_CONFIG_HOME="$work/config" \
      XDG_DATA_HOME="$work/data" STRATA_STATE_DIR="$work/state" timeout 60 "$strata" $args 2>"$work/open.err" \
      || fail "strata $args: $(cat "$work/open.err")"
    [ -s "$work/open.png" ] || fail "strata $args drew no window"
    rm -f "$work/open.png"
  done
  # Bash completes commands and a command's options from the generated script.
  completion=$root/usr/share/bash-completion/completions/strata
  check bash -n "$completion"
  got=$(bash -c 'source "$1"; COMP_WORDS=(strata l); COMP_CWORD=1; _strata; echo "${COMPREPLY[*]}"' _ "$completion")
  [ "$got" = ls ] || fail "bash completion of 'strata l' gave '$got'"
  got=$(bash -c 'source "$1"; COMP_WORDS=(strata cp --veri); COMP_CWORD=2; _strata; echo "${COMPREPLY[*]}"' _ "$completion")
  [ "$got" = --verify ] || fail "bash completion of 'strata cp --veri' gave '$got'"
  # Locations: the registered schemes while no '/' is typed, a scheme's own ?options after
  # '?' or '&' (bash splits the word at ':' and '=': the line is what counts).
  got=$(cd "$work" && bash -c 'source "$1"; COMP_WORDS=(strata ls s); COMP_CWORD=2; _strata; echo "${COMPREPLY[*]}"' _ "$completion")
  [[ " $got " == *" s3:// "* && " $got " == *" sftp:// "* && $got != *memory* ]] \
    || fail "bash completion of 'strata ls s' gave '$got'"
  line='strata ls s3://b?region=x&end'
  got=$(bash -c 'source "$1"; COMP_LINE=$2; COMP_POINT=${#2}; COMP_WORDS=(strata ls s3 : "//b?region" = x "&" end); COMP_CWORD=8; _strata; echo "${COMPREPLY[*]}"' \
    _ "$completion" "$line")
  [ "$got" = "endpoint=" ] || fail "bash completion of '$line' gave '$got'"
  got=$(bash -c 'source "$1"; COMP_WORDS=(strata cp "sftp://h/?con"); COMP_CWORD=2; _strata; echo "${COMPREPLY[*]}"' _ "$completion")
  [ "$got" = "sftp://h/?connections=" ] || fail "bash completion of 'strata cp sftp://h/?con' gave '$got'"
  got=$(bash -c 'source "$1"; COMP_WORDS=(strata ls "memory://x?a"); COMP_CWORD=2; _strata; echo "${COMPREPLY[*]}"' _ "$completion")
  [ -z "$got" ] || fail "bash completion of an option memory:// does not take gave '$got'"
  for zsh_file in "$root"/usr/share/zsh/{vendor-completions,site-functions}/_strata; do
    [ -f "$zsh_file" ] || fail "no $zsh_file"
    if [ -f "$zsh_file" ] && command -v zsh >/dev/null; then check zsh -n "$zsh_file"; fi
  done
  ;;
deb)
  deb=$(cpack_build DEB deb)
  [ -f "$deb" ] || { echo "FAIL: no .deb built" >&2; exit 1; }
  info=$(dpkg-deb --info "$deb")
  echo "$deb: $(du -h "$deb" | cut -f1)"
  echo "$info" | grep -E '^ (Depends|Maintainer|Homepage|Section):'
  # Dependencies computed from the binaries by dpkg-shlibdeps, not written by hand.
  echo "$info" | grep -qE '^ Depends:.*libqt6core6' || fail "Depends lacks libqt6core6 (shlibdeps)"
  echo "$info" | grep -qE '^ Depends:.*libc6' || fail "Depends lacks libc6 (shlibdeps)"
  echo "$info" | grep -qE '^ Homepage: https://' || fail "no Homepage"
  # Debian's own checks: no error (warnings are printed, not failed).
  if lint=$(lintian --fail-on error "$deb" 2>&1); then
    [ -z "$lint" ] || printf 'lintian:\n%s\n' "$lint"
  else
    fail "lintian finds errors in the DEB: $lint"
  fi
  dpkg-deb -x "$deb" "$work/root"
  [ -f "$work/root/usr/share/doc/strata/changelog.gz" ] || fail "the DEB has no changelog.gz"
  zcat "$work/root/usr/share/doc/strata/changelog.gz" | head -1 | grep -q "^strata (" || fail "changelog.gz is not a Debian changelog"
  check_tree "$work/root/usr"
  check_runs "$work/root/usr"

  # The real install, only where it cannot hurt: as root, the package not installed already.
  if [ "$(id -u)" -ne 0 ] || [ -n "${STRATA_TEST_NO_SYSTEM_INSTALL:-}" ]; then
    echo "dpkg -i/-r round trip skipped (needs root; STRATA_TEST_NO_SYSTEM_INSTALL unset)"
  elif dpkg-query -W -f='${Status}' strata 2>/dev/null | grep -q 'ok installed'; then
    echo "dpkg -i/-r round trip skipped: a strata package is installed already"
  else
    # What the package and the caches its triggers rebuild (MIME database) could leave in
    # the folders it writes to; other software installed meanwhile does not count.
    dirs=(/usr/bin /usr/lib /usr/share/applications /usr/share/metainfo /usr/share/mime
          /usr/share/icons/hicolor /usr/share/man/man1 /usr/share/bash-completion/completions
          /usr/share/zsh /usr/share/doc)
    snapshot() { find "${dirs[@]}" 2>/dev/null | grep -iE 'strata|x-go-benchmark' | sort || true; }
    dpkg_retry() { # another apt or dpkg may hold the lock for a while
      local i
      for i in $(seq 1 30); do
        "$@" >"$work/dpkg.log" 2>&1 && return 0
        grep -q 'lock' "$work/dpkg.log" || { cat "$work/dpkg.log" >&2; return 1; }
        sleep 2
      done
      cat "$work/dpkg.log" >&2
      return 1
    }
    snapshot >"$work/before"
    if dpkg_retry dpkg -i "$deb"; then
      check_runs /usr
      snapshot >"$work/during"
      [ -s "$work/during" ] || fail "the file list does not see the installed package"
      [ "$(command -v strata)" = /usr/bin/strata ] || fail "strata is not on PATH after dpkg -i"
      dpkg -L strata | grep -qx /usr/share/man/man1/strata.1.gz || fail "dpkg -L lacks the man page"
      dpkg_retry dpkg -r strata || fail "dpkg -r strata failed"
      snapshot >"$work/after"
      # -r keeps a record of the package (its state: config-files); purge forgets it too.
      dpkg_retry dpkg -P strata || fail "dpkg -P strata failed"
      if ! diff -u "$work/before" "$work/after" >"$work/diff"; then
        fail "dpkg -r left the file list changed:"
        cat "$work/diff" >&2
      fi
      [ ! -e /usr/share/mime/application/x-go-benchmark.xml ] || fail "the MIME database still has x-go-benchmark"
      echo "dpkg -i / dpkg -r round trip done; files before, installed, after: $(wc -l <"$work/before"), $(wc -l <"$work/during"), $(wc -l <"$work/after")"
    else
      # Installing was not possible (dpkg busy or a dependency missing): not a package fault.
      echo "dpkg -i round trip skipped: dpkg -i did not run"
      dpkg -r strata >/dev/null 2>&1 || true
    fi
  fi
  ;;
rpm)
  rpm_file=$(cpack_build RPM rpm)
  [ -f "$rpm_file" ] || { echo "FAIL: no .rpm built" >&2; exit 1; }
  echo "$rpm_file: $(du -h "$rpm_file" | cut -f1)"
  rpm -qpl "$rpm_file" >"$work/list" 2>/dev/null
  for f in "${expected_files[@]}"; do
    grep -qx "/usr/$f" "$work/list" || fail "rpm -qpl lacks /usr/$f"
  done
  # System folders belong to their own packages (filesystem, hicolor-icon-theme…).
  for d in /usr/share/applications /usr/share/icons/hicolor /usr/share/man/man1 /usr/bin; do
    ! grep -qx "$d" "$work/list" || fail "the RPM claims the system folder $d"
  done
  requires=$(rpm -qpR "$rpm_file" 2>/dev/null)
  echo "Requires:" $requires
  grep -q 'libQt6Core.so.6' <<<"$requires" || fail "Requires lacks libQt6Core.so.6 (automatic requires)"
  grep -q 'libc.so.6' <<<"$requires" || fail "Requires lacks libc.so.6 (automatic requires)"
  license=$(rpm -qp --queryformat '%{LICENSE} %{URL}' "$rpm_file" 2>/dev/null)
  [[ $license == "MIT https://"* ]] || fail "RPM license/URL: $license"
  ;;
tgz)
  tgz=$(cpack_build TGZ tar.gz)
  [ -f "$tgz" ] || { echo "FAIL: no .tar.gz built" >&2; exit 1; }
  echo "$tgz: $(du -h "$tgz" | cut -f1)"
  mkdir "$work/unpacked"
  tar -xzf "$tgz" -C "$work/unpacked"
  prefix=$(find "$work/unpacked" -mindepth 1 -maxdepth 1 -type d | head -n1)
  check_tree "$prefix"
  check_runs "$prefix"
  ;;
*)
  echo "usage: $0 files|deb|rpm|tgz BUILD_DIR" >&2
  exit 2
  ;;
esac

[ "$failures" -eq 0 ] || { echo "$failures check(s) failed" >&2; exit 1; }
echo "packaging $mode: ok"
