# shellcheck shell=bash
# Hosts made on this machine for tests and perf scripts that need several (issue 44): each
# a network namespace of its own (`ip netns`), joined to this one by a veth pair
# (10.231.N.1 here, 10.231.N.2 inside, nothing routed further), running its own OpenSSH
# sshd with one host key and one authorized key made here. Needs root.
#
# netns_hosts_up WORK N [KNOWN]: makes hosts 1..N with state in WORK; the first KNOWN
#   (default N) go into WORK/known_hosts. Sets namespaces (names), hosts (root@10.231.N.2),
#   ssh_cmd ("ssh -F WORK/ssh_config": that key, that known_hosts, nothing of the user's).
# netns_known HOST_INDEX: adds host N's key to known_hosts.
# netns_hosts_down: stops every process in the namespaces and removes them (an EXIT trap).
namespaces=() hosts=() netns_links=() netns_sshd=()
netns_work=
netns_hosts_up() {
  netns_work=$1
  local n=$2 known=${3:-$2} tag=$$ i ns out in
  mkdir -p /run/sshd
  ssh-keygen -q -t ed25519 -N '' -f "$netns_work/client" >/dev/null
  ssh-keygen -q -t ed25519 -N '' -f "$netns_work/host_key" >/dev/null
  cp "$netns_work/client.pub" "$netns_work/authorized_keys"
  chmod 600 "$netns_work/authorized_keys"
  : >"$netns_work/known_hosts"
  for ((i = 1; i <= n; i++)); do
    ns=strata-bh-$tag-$i out=sbh${tag: -6}o$i in=sbh${tag: -6}i$i
    ip netns add "$ns" || { echo "netns_hosts: cannot make namespace $ns" >&2; return 1; }
    namespaces+=("$ns")
    ip link add "$out" type veth peer name "$in" || { echo "netns_hosts: cannot make veth $out" >&2; return 1; }
    netns_links+=("$out")
    ip link set "$in" netns "$ns"
    ip addr add "10.231.$i.1/30" dev "$out" && ip link set "$out" up
    ip netns exec "$ns" ip addr add "10.231.$i.2/30" dev "$in"
    ip netns exec "$ns" ip link set "$in" up
    ip netns exec "$ns" ip link set lo up
    cat >"$netns_work/sshd_$i.conf" <<CONF
ListenAddress 10.231.$i.2:22
HostKey $netns_work/host_key
PidFile $netns_work/sshd_$i.pid
AuthorizedKeysFile $netns_work/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AcceptEnv none
CONF
    ip netns exec "$ns" /usr/sbin/sshd -f "$netns_work/sshd_$i.conf" -E "$netns_work/sshd_$i.log" ||
      { echo "netns_hosts: sshd $i did not start: $(cat "$netns_work/sshd_$i.log")" >&2; return 1; }
    for _ in $(seq 50); do [ -s "$netns_work/sshd_$i.pid" ] && break; sleep 0.1; done
    netns_sshd+=("$(cat "$netns_work/sshd_$i.pid")")
    ((i <= known)) && netns_known "$i"
    hosts+=("root@10.231.$i.2")
  done
  cat >"$netns_work/ssh_config" <<CONF
Host *
  IdentityFile $netns_work/client
  IdentitiesOnly yes
  UserKnownHostsFile $netns_work/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  ConnectTimeout 5
CONF
  ssh_cmd="ssh -F $netns_work/ssh_config"
}
netns_known() { echo "10.231.$1.2 $(cut -d' ' -f1-2 "$netns_work/host_key.pub")" >>"$netns_work/known_hosts"; }
netns_hosts_down() {
  local pid ns l
  for pid in "${netns_sshd[@]}"; do kill "$pid" 2>/dev/null; done
  for ns in "${namespaces[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null
  done
  for l in "${netns_links[@]}"; do ip link del "$l" 2>/dev/null; done
}
