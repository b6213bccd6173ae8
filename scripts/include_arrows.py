#!/usr/bin/env python3
"""The include graph against the allowed arrows of docs/ARCHITECTURE.md.

The arrows are the lines of the ```include-arrows block there: "FROM -> TO TO ...", where a
part is a folder of the tree (core/io, backends/s3, ui, app) or a family of them
(backends/*: every backend folder); a TO may also name one header (core/storage/error.h).
A file of part FROM may include headers of its own part and of the parts and headers listed; any other include of the tree (core/, backends/, ui/, app/) is a
finding. The part of a file is its first two folders under core/ and backends/, its first
one elsewhere; a file directly in backends/ (the list of built-in backends) is part
"backends". Files outside those four folders (tests, packaging, resources) are not checked.

Usage: include_arrows.py [FILE...]   (default: every C++ file git knows)
Exits 1 on a finding, 2 when the arrows cannot be read.
"""
import fnmatch
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHECKED = ("core", "backends", "ui", "app")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def part_of(path):
    names = path.split("/")
    if names[0] not in CHECKED:
        return None
    if names[0] in ("core", "backends"):
        return "/".join(names[:2]) if len(names) > 2 else names[0]
    return names[0]


def read_arrows():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = re.search(r"^```include-arrows\n(.*?)^```", text, re.S | re.M)
    if not block:
        sys.exit("include_arrows: docs/ARCHITECTURE.md has no ```include-arrows block")
    arrows = {}
    for number, line in enumerate(block.group(1).splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if "->" not in line:
            print(f"include_arrows: arrow line {number} has no '->': {line}", file=sys.stderr)
            sys.exit(2)
        source, targets = line.split("->", 1)
        arrows.setdefault(source.strip(), []).extend(targets.split())
    return arrows


def allowed(arrows, source, target, header):
    if source == target:
        return True
    for pattern, targets in arrows.items():
        if fnmatch.fnmatchcase(source, pattern) and any(
                fnmatch.fnmatchcase(target, t) or header == t for t in targets):
            return True
    return False


def main(files):
    arrows = read_arrows()
    if not files:
        listed = subprocess.run(["git", "ls-files", "*.cpp", "*.h"], cwd=ROOT, capture_output=True, text=True,
                                check=True)
        files = listed.stdout.split()
    findings = 0
    for name in files:
        source = part_of(name)
        if source is None:
            continue
        path = ROOT / name
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            target = part_of(match.group(1)) if match else None
            if target is None or allowed(arrows, source, target, match.group(1)):
                continue
            print(f"{name}:{number}: {source} may not include {match.group(1)} ({target}): "
                  "no such arrow in docs/ARCHITECTURE.md")
            findings += 1
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
