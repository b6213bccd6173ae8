#!/usr/bin/env bash
# Benchmarks from many hosts (issue 44) on real OpenSSH: three hosts made here as network
# namespaces (`ip netns`, a veth pair each, 10.231.N.2 inside, 10.231.N.1 outside, nothing
# routed further), each running its own sshd with a host key and an authorized key made
# here. `strata bench --hosts` starts `strata bench --agent` on each through ssh -F (this
# test's config and known_hosts only) and:
# 1. merges exactly: each merged run's histogram is the sum of the hosts' bucket for bucket
#    (and its timeline, --timeline, the sum of theirs interval by interval),
#    its count the operations they ran; the start skew is reported; on an nbdkit export
#    answering each read 2 ms late, the merged p50 and p99 fall just above 2 ms and the
#    hosts start within 5 ms of each other (the median of three runs);
#    another launcher than ssh (here ip netns exec) gets the command as separate words;
# 2. refuses, by name and before anything runs, a host whose key is unknown, one without
#    strata, and one whose strata is another version;
# 3. names an agent killed mid-run: `--on-host-failure stop` fails, `continue` finishes
#    with the others and says which host left;
# 4. after Ctrl+C no agent is left in any namespace;
# 5. a secret in the environment reaches no command line (ps) of any process.
# Usage: bench_hosts_test.sh STRATA
set -uo pipefail
strata=$(realpath "$1") # the remote shell starts in its own home
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/checks.sh
source "$here/../lib/checks.sh"
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! [ -x /usr/sbin/sshd ]; then
  echo "FAIL: this test makes network namespaces and runs sshd: it needs root, iproute2 and openssh-server"
  exit 1
fi
work=$(mktemp -d)
tag=$$
# shellcheck source=../lib/netns_hosts.sh
source "$here/../lib/netns_hosts.sh"
cleanup() {
  netns_hosts_down
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/home"
netns_hosts_up "$work" 3 2 || { echo "FAIL: the hosts could not be made"; exit 1; }
export HOME=$work/home
two=${hosts[0]},${hosts[1]}
bench() { "$strata" bench memory://bench/ --ssh "$ssh_cmd" --strata-path "$strata" --sizes 4KiB "$@"; }

# 2a. Host 3's key is in no known_hosts: refused by name before anything runs.
expect 1 "an unknown host key" -- bench --hosts "$two,${hosts[2]}" --duration 200ms --count 1
contains "unknown key: named" "$err" "${hosts[2]}"
contains "unknown key: ssh's reason" "$err" "Host key verification failed"
lacks "unknown key: the others are not blamed" "$err" "${hosts[0]}:"
netns_known 3
all=$two,${hosts[2]}

# 1. Three hosts, two cases, two runs each: the merge is the sum of the hosts.
expect 0 "three hosts" -- bench --hosts "$all" --ops write,read --duration 300ms --count 2 --concurrency 2 --json \
  --timeline "$work/three.csv" --interval 100ms
echo "$out" >"$work/three.json"
# The timeline streamed by the agents: a line per interval for each host and for all, whose
# operations are the hosts' added up, and add up to each merged run's.
if python3 - "$work/three.json" "$work/three.csv" <<'EOF'; then pass; else fail "the timeline of all hosts (above)"; fi
import csv, json, sys, collections
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
names = {h["host"] for h in d["hosts"]}
assert {r["target"] for r in rows} == names | {"all"}, {r["target"] for r in rows}
ops = collections.defaultdict(int)
for r in rows:
    ops[(r["target"] == "all", r["benchmark"], r["run"])] += int(r["ops"])
for (total, bench, run), n in list(ops.items()):
    if total:
        assert n == ops[(False, bench, run)], (bench, run, n, ops[(False, bench, run)])
per = collections.defaultdict(list)
for m in d["runs"]:
    per["Benchmark" + m["name"]].append(m["iterations"])
for bench, counts in per.items():
    got = [ops[(True, bench, str(i))] for i in range(len(counts))]
    assert got == counts, (bench, got, counts)
EOF
if python3 - "$work/three.json" <<'EOF'; then pass; else fail "the merged runs are not the sum of the hosts' (above)"; fi
import json, sys, collections
d = json.load(open(sys.argv[1]))
runs, hosts = d["runs"], d["hosts"]
assert len(hosts) == 3 and all(not h["failure"] for h in hosts), hosts
assert len(runs) == 4, len(runs)
for i, m in enumerate(runs):
    own = [h["runs"][i] for h in hosts]
    assert all(o["name"] == m["name"] for o in own), (m["name"], [o["name"] for o in own])
    assert m["iterations"] == sum(o["iterations"] for o in own) > 0, m["name"]
    summed = collections.Counter()
    for o in own:
        for f, w, c in o["histogram"]:
            summed[(f, w)] += c
    merged = collections.Counter({(f, w): c for f, w, c in m["histogram"]})
    assert merged == summed, m["name"]
    assert sum(merged.values()) == m["iterations"], m["name"]
    rate = sum(1e9 / o["ns_per_op"] for o in own)
    assert abs(1e9 / m["ns_per_op"] - rate) < 1e-6 * rate
    assert m["latency"]["max"] == max(o["latency"]["max"] for o in own)
print("start skew %.2f ms over %d runs" % (d["start_skew_ns"] / 1e6, len(runs)))
EOF
skew=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["start_skew_ns"])' "$work/three.json")
echo "start skew: $((skew / 1000)) us"
# Each agent starts within a few hundred microseconds of the moment asked (start_late_ns),
# but three agents busy on the memory store share this machine's two cores: the third to
# wake may wait a scheduler slice or more (measured alone: 0.5-14 ms; 25 ms beside other
# tests). The 5 ms goal is checked below, on a target the agents wait for; here 50 ms
# catches only a start that missed its moment by a whole margin (100 ms).
[ "$skew" -le 50000000 ] && pass || fail "start skew $((skew / 1000)) us, wanted at most 50 ms"
# 1b. A known latency: one nbdkit export (on a unix socket, which the namespaces share
# with the filesystem) answering each read 2 ms late, filled with data first; the three
# hosts read it side by side. The merged p50 and p99 fall just above 2 ms, and with the
# agents waiting on the server rather than the CPU, they start within 5 ms of each other.
nbd_uri=$(bash "$here/../servers/nbdkit.sh" start "$work/nbd" slow --filter=delay memory 16M delay-read=2ms \
  2>"$work/nbdkit.err") || { fail "nbdkit did not start: $(cat "$work/nbdkit.err")"; nbd_uri=; }
if [ -n "$nbd_uri" ]; then
  head -c $((16 << 20)) /dev/urandom | nbdcopy - "$nbd_uri" 2>"$work/nbdcopy.err" || fail "nbdcopy: $(cat "$work/nbdcopy.err")"
  expect 0 "three hosts on a slow export" -- "$strata" bench "$nbd_uri" --ssh "$ssh_cmd" --strata-path "$strata" \
    --hosts "$all" --ops read --sizes 4KiB --region 16MiB --duration 400ms --count 3 --concurrency 2 --json
  echo "$out" >"$work/slow.json"
  if python3 - "$work/slow.json" <<'EOF2'; then pass; else fail "a known latency: see above"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["runs"]) == 3, len(d["runs"])
for m in d["runs"]:
    p50, p99 = m["latency"]["p50"] / 1e6, m["latency"]["p99"] / 1e6
    print("%s: %d reads, p50 %.3f ms, p99 %.3f ms" % (m["name"], m["iterations"], p50, p99))
    assert 2.0 <= p50 <= 2.6, "p50 %.3f ms" % p50
    assert 2.0 <= p99 <= 6.0, "p99 %.3f ms" % p99
    assert m["iterations"] == sum(h["runs"][d["runs"].index(m)]["iterations"] for h in d["hosts"])
skews = sorted(d["start_skews_ns"])
print("start skew %.2f ms (runs: %s ms)" % (d["start_skew_ns"] / 1e6, ", ".join("%.2f" % (x / 1e6) for x in skews)))
# The median run within 5 ms (the goal); none past 20 ms (one run on this 2-core machine
# may lose a scheduler slice to the coordinator or nbdkit).
assert skews[len(skews) // 2] <= 5e6, "median start skew %.2f ms" % (skews[len(skews) // 2] / 1e6)
assert d["start_skew_ns"] <= 20e6, "start skew %.2f ms" % (d["start_skew_ns"] / 1e6)
EOF2
  bash "$here/../servers/nbdkit.sh" stop "$work/nbd" slow
fi

expect 0 "three hosts, text" -- bench --hosts "$all" --ops write --duration 200ms --count 1
contains "text: the merged lines" "$out" "host: all"
for h in "${hosts[@]}"; do contains "text: $h's own lines" "$out" "host: $h"; done
contains "text: the skew" "$out" "# start skew: at most"
# Kept in the history the window reads, and benchstat reads it, host by host.
kept=$(grep -l "^host: ${hosts[2]}" "$HOME"/.local/share/strata/bench/*.txt 2>/dev/null | tail -1)
[ -n "$kept" ] && pass || fail "history: no file holds the hosts' runs ($(ls "$HOME"/.local/share/strata/bench 2>&1))"
if [ -n "$kept" ]; then
  expect 0 "history: benchstat reads it" -- "$strata" benchstat "$kept"
  contains "history: benchstat tells the hosts apart" "$out" "${hosts[2]}"
fi

# 1c. Another launcher than ssh (as srun -w or kubectl exec -i would be): it gets the
# host and the command's words as its own arguments; here `ip netns exec`, hosts named by
# their namespace.
printf '#!/bin/sh\nhost=$1; shift\nexec ip netns exec "$host" "$@"\n' >"$work/in-ns"
chmod +x "$work/in-ns"
expect 0 "another launcher" -- "$strata" bench memory://bench/ --ssh "$work/in-ns" --strata-path "$strata" \
  --hosts "${namespaces[0]},${namespaces[1]}" --sizes 4KiB --ops write --duration 200ms --count 1
contains "another launcher: both hosts' lines" "$out" "host: ${namespaces[1]}"

# 1d. A secret in the URI (a query value named like one): no backend takes one (each
# reads secrets from the environment or a saved connection, case 5), so the option is
# refused by name here, before any host is asked, and its value is printed nowhere.
expect 1 "a secret in the URI" -- "$strata" bench "memory://bench/?secret_key=pw-$tag" --ssh "$ssh_cmd" \
  --strata-path "$strata" --hosts "${hosts[0]}" --sizes 4KiB --ops write --duration 200ms --count 1
contains "secret: the option named" "$err" "unknown memory:// option 'secret_key'"
lacks "secret: no host asked" "$err" "${hosts[0]}"
lacks "secret: not printed" "$out$err" "pw-$tag"
lacks "secret: not kept" "$(cat "$HOME"/.local/share/strata/bench/*.txt)" "pw-$tag"

# 2b. A host without strata, and one with another version: named, nothing runs.
expect 1 "no strata there" -- bench --hosts "$all" --strata-path /nonexistent/strata --duration 200ms --count 1
contains "no strata: a host named" "$err" "${hosts[1]}"
contains "no strata: the shell's reason" "$err" "/nonexistent/strata: No such file"
printf '#!/bin/sh\necho %s\nsleep 5\n' "'{\"type\":\"hello\",\"protocol\":1,\"version\":\"0.0.1-other\",\"host\":\"x\"}'" >"$work/other"
chmod +x "$work/other"
expect 1 "another version" -- "$strata" bench memory://bench/ --ssh "$ssh_cmd" --strata-path "$work/other" \
  --hosts "${hosts[0]}" --duration 200ms --count 1
contains "another version: named" "$err" "${hosts[0]}: it runs strata 0.0.1-other"

# 3. An agent killed mid-run (the one in host 3's namespace).
agent_in() { # agent_in N: the PID of the agent running in namespace N
  for pid in $(ip netns pids "${namespaces[$(($1 - 1))]}"); do
    grep -qa -- "--agent" "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"
  done
}
kill_agent_later() {
  for _ in $(seq 100); do
    pid=$(agent_in 3)
    [ -n "$pid" ] && sleep 2.5 && kill -9 "$pid" && return # the others' logins done, runs under way
    sleep 0.05
  done
}
for policy in stop continue; do
  kill_agent_later &
  killer=$!
  code=$([ $policy = stop ] && echo 1 || echo 0)
  expect "$code" "an agent killed, $policy" -- bench --hosts "$all" --on-host-failure $policy --ops write \
    --duration 300ms --count 16
  wait "$killer"
  contains "killed ($policy): named" "$out$err" "${hosts[2]}"
  if [ $policy = continue ]; then
    contains "killed (continue): said it left" "$out" "# left: ${hosts[2]}"
    [ "$(grep -c '^BenchmarkWrite' <<<"$(sed -n '/^host: all/,/^host: root/p' <<<"$out")")" = 16 ] && pass ||
      fail "killed (continue): the others did not finish their 16 runs"
  fi
done

# 4 and 5. Ctrl+C in the middle; a secret in the environment is on no command line.
STRATA_TEST_SECRET=never-on-a-command-line-$tag "$strata" bench memory://bench/ --ssh "$ssh_cmd" \
  --strata-path "$strata" --sizes 4KiB --hosts "$all" --ops write --duration 300ms --count 50 \
  >/dev/null 2>"$work/int.err" & # strata itself, not a function's subshell, gets the signal
coordinator=$!
for _ in $(seq 100); do [ -n "$(agent_in 1)" ] && [ -n "$(agent_in 3)" ] && break; sleep 0.05; done
sleep 1
lacks "no secret on a command line" "$(ps -eo args)" "never-on-a-command-line-$tag"
kill -TERM "$coordinator" # as Ctrl+C (a background job of a script ignores SIGINT)
wait "$coordinator"
code=$?
[ "$code" = 130 ] && pass || fail "Ctrl+C: exit $code, wanted 130 ($(cat "$work/int.err"))"
sleep 2
left=""
for i in 1 2 3; do left+=$(agent_in "$i"); done
[ -z "$left" ] && pass || fail "Ctrl+C: agents still running: $left"
finish
