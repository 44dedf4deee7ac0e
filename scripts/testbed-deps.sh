#!/usr/bin/env bash
# Installs the host packages the testbed's node needs (containerd, runc, the CNI plugins, iptables, conntrack)
# from Debian when any is missing. Idempotent: prints "present" and does nothing when all are there.
#
# The node runs its own containerd (own socket, root and state dir, see test/testbed/node/containerd.ts), so the
# system containerd service that the package ships is never needed: starting it is refused during the install
# (policy-rc.d), and nothing here enables it.
#
# Usage: testbed-deps.sh [--check]   (--check: exit 1 and list what is missing, install nothing)
set -euo pipefail

# command -> Debian package
declare -A need=(
  [containerd]=containerd
  [runc]=runc
  [/usr/lib/cni/bridge]=containernetworking-plugins
  [iptables]=iptables
  [conntrack]=conntrack
  [nsenter]=util-linux
  [ip]=iproute2
)
# Sets `missing` to the packages of the commands not found; exits 0 when none is.
find_missing() {
  missing=()
  for cmd in "${!need[@]}"; do
    if [[ $cmd == /* ]]; then [[ -x $cmd ]] && continue; else command -v "$cmd" >/dev/null 2>&1 && continue; fi
    missing+=("${need[$cmd]}")
  done
  if ((${#missing[@]} == 0)); then
    echo "[testbed-deps] containerd, runc, CNI plugins, iptables, conntrack: present" >&2
    exit 0
  fi
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
}
find_missing
if [[ ${1:-} == --check ]]; then
  echo "[testbed-deps] missing: ${missing[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "[testbed-deps] missing: ${missing[*]}; this machine has no apt-get." >&2
  echo "[testbed-deps] Install them with your package manager (containerd 1.6+, runc, the CNI reference plugins in /usr/lib/cni, iptables, conntrack), or run the testbed without a node (node: false)." >&2
  exit 1
fi
sudo=()
if ((EUID != 0)); then
  if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "[testbed-deps] missing: ${missing[*]}; installing needs root (or sudo)." >&2
    exit 1
  fi
fi
# One install at a time: the integration suite's shards each start a testbed at once, and two apt-gets would fight
# over dpkg's lock (and over policy-rc.d below). The one that waited finds the packages there and does nothing.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${TMPDIR:-/tmp}/standup-testbed-deps.lock"
  flock 9
  find_missing
fi
echo "[testbed-deps] installing ${missing[*]} (apt-get)" >&2
# Refuse service starts during the install (the Debian containerd package would start a system containerd), unless
# the machine already has its own policy.
policy=/usr/sbin/policy-rc.d made_policy=
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
  "${sudo[@]}" chmod 755 "$policy"
  made_policy=1
fi
cleanup() { if [[ -n $made_policy ]]; then "${sudo[@]}" rm -f "$policy"; fi; }
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive
# A stale package list makes the install fail with 404s; refresh it once when it is older than a day.
if [[ -z $(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n1) ]]; then
  "${sudo[@]}" apt-get update -qq
fi
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
echo "[testbed-deps] installed ${missing[*]}" >&2
