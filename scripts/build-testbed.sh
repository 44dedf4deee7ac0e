#!/usr/bin/env bash
# Builds the testbed's binaries (etcd, kube-apiserver, kube-controller-manager,
# Flux source-controller and kustomize-controller) from the Go modules under
# test/testbed/go into a cache outside the repository, and prints the bin dir.
#
# The cache key is a hash of every go.mod/go.sum there plus `go version`
# (test/testbed/paths.ts computes the same key), so a cached build costs
# nothing and a version bump builds into a fresh directory.
#
# Usage: build-testbed.sh [--print-bin-dir]
# Env: STANDUP_TESTBED_CACHE (default ~/.cache/standup-testbed),
#      TESTBED_BUILD_ONLY="etcd kube-apiserver" to build a subset.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mods="$root/test/testbed/go"
# GOTOOLCHAIN=local: a dependency with a newer `go` line must fail, not fetch a toolchain.
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -modcacherw"

# Keep in sync with testbedKey() in test/testbed/paths.ts.
key_files=(etcd/go.mod etcd/go.sum flux-kustomize/go.mod flux-kustomize/go.sum
  flux-source/go.mod flux-source/go.sum k8s/go.mod k8s/go.sum)
key=$({
  go version
  for f in "${key_files[@]}"; do printf '%s %s\n' "$f" "$(sha256sum <"$mods/$f" | cut -d' ' -f1)"; done
} | sha256sum | cut -c1-16)

cache="${STANDUP_TESTBED_CACHE:-$HOME/.cache/standup-testbed}/$key"
bin="$cache/bin"
# --print-bin-dir: where the binaries are (or would be); builds nothing.
if [[ "${1:-}" == --print-bin-dir ]]; then echo "$bin"; exit 0; fi
mkdir -p "$bin" "$cache/crds" "$cache/logs"
times="$cache/build-times.txt"

log() { printf '[build-testbed] %s\n' "$*" >&2; }

# build <binary> <module dir> <package> [ldflags...]
build() {
  local name=$1 dir=$2 pkg=$3 ld=${4:-}
  if [[ -n "${TESTBED_BUILD_ONLY:-}" && " $TESTBED_BUILD_ONLY " != *" $name "* ]]; then return; fi
  if [[ -x "$bin/$name" ]]; then log "$name: cached"; return; fi
  log "$name: building $pkg (log: $cache/logs/$name.build.log)"
  local t0=$SECONDS
  # -p 2: the reference machine has 2 cores; more parallelism only adds peak RSS.
  # Write to a temp name and rename, so an interrupted build never looks cached.
  local tmp="$bin/.$name.tmp.$$" timer=()
  # GNU time gives the peak RSS figure; the build works without it.
  [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -v)
  if ! (cd "$mods/$dir" && "${timer[@]}" go build -p 2 -trimpath -ldflags "-s -w $ld" \
      -o "$tmp" "$pkg") >"$cache/logs/$name.build.log" 2>&1; then
    tail -n 40 "$cache/logs/$name.build.log" >&2
    rm -f "$tmp"
    log "$name: build FAILED"
    exit 1
  fi
  mv -f "$tmp" "$bin/$name"
  local rss
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$cache/logs/$name.build.log")
  printf '%s\t%ss\tpeak_rss_kb=%s\t%s\n' "$name" "$((SECONDS - t0))" "$rss" "$(date -u +%FT%TZ)" >>"$times"
  log "$name: built in $((SECONDS - t0))s, peak RSS ${rss} KB"
}

modver() { (cd "$mods/$1" && go list -m -f '{{.Version}}' "$2"); }

kv=$(modver k8s k8s.io/kubernetes)
kminor=${kv#v1.}; kminor=${kminor%%.*}
# Without these /version reports v0.0.0-master; they are cosmetic but help logs.
kld="-X k8s.io/component-base/version.gitVersion=$kv -X k8s.io/component-base/version.gitMajor=1"
kld+=" -X k8s.io/component-base/version.gitMinor=$kminor -X k8s.io/component-base/version.gitTreeState=clean"

# Smallest first, so a failure in a big one still leaves the small ones usable.
build etcd etcd go.etcd.io/etcd/server/v3
build kube-apiserver k8s k8s.io/kubernetes/cmd/kube-apiserver "$kld"
build kube-controller-manager k8s k8s.io/kubernetes/cmd/kube-controller-manager "$kld"
build kustomize-controller flux-kustomize github.com/fluxcd/kustomize-controller
build source-controller flux-source github.com/fluxcd/source-controller

# The Flux CRDs live in the controller modules' zips (only api/ is a separate
# module); copy them next to bin so the harness needs no Go at run time.
for m in flux-source:github.com/fluxcd/source-controller flux-kustomize:github.com/fluxcd/kustomize-controller; do
  src=$(cd "$mods/${m%%:*}" && go list -m -f '{{.Dir}}' "${m#*:}")
  cp -f "$src"/config/crd/bases/*.yaml "$cache/crds/"
done
chmod -R u+w "$cache/crds"

echo "$bin"
