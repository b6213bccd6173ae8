#!/bin/sh
# Writes the package's Debian-format changelog to stdout from the release notes of the
# AppStream metainfo (one entry per <release>, newest first, as the metainfo lists them):
#   changelog.sh METAINFO.xml.in VERSION DATE "NAME <EMAIL>"
# @PROJECT_VERSION@ and @STRATA_RELEASE_DATE@ in the template stand for VERSION and DATE.
set -eu
metainfo=$1 version=$2 date=$3 maintainer=$4
sed -e "s/@PROJECT_VERSION@/$version/g" -e "s/@STRATA_RELEASE_DATE@/$date/g" "$metainfo" |
  tr '\n' ' ' | sed -e 's/<release /\n<release /g' | grep '^<release ' |
  while IFS= read -r release; do
    v=$(printf '%s' "$release" | sed -n 's/^<release version="\([^"]*\)".*/\1/p')
    d=$(printf '%s' "$release" | sed -n 's/^<release [^>]*date="\([^"]*\)".*/\1/p')
    printf 'strata (%s) unstable; urgency=medium\n\n' "$v"
    # Each paragraph of the description a bullet, wrapped to lintian's 80 columns.
    printf '%s' "$release" | sed -e 's:</release>.*::' | grep -o '<p>[^<]*</p>' | sed -e 's:</*p>::g' -e 's/  */ /g' |
      while IFS= read -r p; do printf '%s\n' "$p" | fold -s -w 74 | sed -e '1s/^/  * /' -e '2,$s/^/    /' -e 's/ *$//'; done
    printf '\n -- %s  %s\n\n' "$maintainer" "$(LC_ALL=C date -u -R -d "$d")"
  done | sed -e '$d'
