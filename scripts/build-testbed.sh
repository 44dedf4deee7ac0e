#!/usr/bin/env bash
# Builds the testbed's binaries from the Go modules under test/testbed/go into a cache outside the repository, and
# prints the bin dir: etcd, kube-apiserver, kube-controller-manager, kubelet, kube-scheduler, kube-proxy, the Flux
# source-, kustomize- and helm-controller, helm, flux-operator, CoreDNS, sops and age-keygen, and the testbed's own small
# programs (go/apps: the pause and app images, the CDI-like operator).
#
# Cache keys are per module: sha256 of `go version` and every go.mod/go.sum/*.go file of that module, so adding or
# bumping one module rebuilds only its binaries. Each module builds into <cache>/m/<module>-<key>/bin; the bin dir
# printed is <cache>/<combined key>/bin, symlinks to those (the combined key hashes the module keys).
# The keys are computed here only: test/testbed/paths.ts asks this script (--print-bin-dir, --print-keys).
#
# Usage: build-testbed.sh [--print-bin-dir | --print-keys]
# Env: STANDUP_TESTBED_CACHE (default ~/.cache/standup-testbed),
#      TESTBED_BUILD_ONLY="etcd kube-apiserver" to build a subset.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mods="$root/test/testbed/go"
# GOTOOLCHAIN=local: a dependency with a newer `go` line must fail, not fetch a toolchain.
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -modcacherw"
export LC_ALL=C

# The order matters for the combined key.
modules=(etcd k8s flux-source flux-kustomize flux-helm apps coredns sops flux-operator)
gov=$(go version)
declare -A modkey
for m in "${modules[@]}"; do
  modkey[$m]=$({
    echo "$gov"
    (cd "$mods" && find "$m" -type f \( -name go.mod -o -name go.sum -o -name '*.go' \) | sort) | while read -r f; do
      printf '%s %s\n' "$f" "$(sha256sum <"$mods/$f" | cut -d' ' -f1)"
    done
  } | sha256sum | cut -c1-16)
done
key=$(for m in "${modules[@]}"; do printf '%s %s\n' "$m" "${modkey[$m]}"; done | sha256sum | cut -c1-16)

cacheroot="${STANDUP_TESTBED_CACHE:-$HOME/.cache/standup-testbed}"
cache="$cacheroot/$key"
bin="$cache/bin"
# --print-bin-dir: where the binaries are (or would be); --print-keys: "<module> <key>" lines. Both build nothing.
if [[ "${1:-}" == --print-bin-dir ]]; then echo "$bin"; exit 0; fi
if [[ "${1:-}" == --print-keys ]]; then for m in "${modules[@]}"; do echo "$m ${modkey[$m]}"; done; exit 0; fi
mkdir -p "$bin" "$cache/crds" "$cache/logs"
times="$cache/build-times.txt"

log() { printf '[build-testbed] %s\n' "$*" >&2; }
moddir() { echo "$cacheroot/m/$1-${modkey[$1]}"; }

# build <binary> <module> <package> [ldflags [go build flags...]]
build() {
  local name=$1 mod=$2 pkg=$3 ld=${4:-}
  local extra=("${@:5}")
  if [[ -n "${TESTBED_BUILD_ONLY:-}" && " $TESTBED_BUILD_ONLY " != *" $name "* ]]; then return; fi
  local out
  out="$(moddir "$mod")/bin"
  mkdir -p "$out" "$(moddir "$mod")/logs"
  if [[ -x "$out/$name" ]]; then
    log "$name: cached"
  else
    local blog
    blog="$(moddir "$mod")/logs/$name.build.log"
    log "$name: building $pkg (log: $blog)"
    local t0=$SECONDS
    # -p 2: the reference machine has 2 cores; more parallelism only adds peak RSS.
    # Write to a temp name and rename, so an interrupted build never looks cached.
    local tmp="$out/.$name.tmp.$$" timer=()
    # GNU time gives the peak RSS figure; the build works without it.
    [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -v)
    if ! (cd "$mods/$mod" && "${timer[@]}" go build -p 2 -trimpath -ldflags "-s -w $ld" \
        "${extra[@]}" -o "$tmp" "$pkg") >"$blog" 2>&1; then
      tail -n 40 "$blog" >&2
      rm -f "$tmp"
      log "$name: build FAILED"
      exit 1
    fi
    mv -f "$tmp" "$out/$name"
    local rss
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$blog")
    printf '%s\t%ss\tpeak_rss_kb=%s\t%s\n' "$name" "$((SECONDS - t0))" "$rss" "$(date -u +%FT%TZ)" >>"$times"
    log "$name: built in $((SECONDS - t0))s, peak RSS ${rss} KB"
  fi
  ln -sfn "$out/$name" "$bin/$name"
}

modver() { (cd "$mods/$1" && go list -m -f '{{.Version}}' "$2"); }
# A module's source directory: `go list -m` says nothing (an empty Dir) for a module not yet in GOMODCACHE, which is
# the case on a cold cache when nothing built from it yet, so it is downloaded first; an empty answer is an error.
srcdir() {
  local dir
  dir=$(cd "$mods/$1" && go mod download "$2" && go list -m -f '{{.Dir}}' "$2")
  [[ -n "$dir" && -d "$dir" ]] || { log "$2: no source directory in the module cache (go list -m said '$dir')"; return 1; }
  echo "$dir"
}

kv=$(modver k8s k8s.io/kubernetes)
kminor=${kv#v1.}; kminor=${kminor%%.*}
# Without these /version reports v0.0.0-master; kubelet registers the node with this version.
kld="-X k8s.io/component-base/version.gitVersion=$kv -X k8s.io/component-base/version.gitMajor=1"
kld+=" -X k8s.io/component-base/version.gitMinor=$kminor -X k8s.io/component-base/version.gitTreeState=clean"

fo_mod=github.com/controlplaneio-fluxcd/flux-operator
# flux-operator's web/ package embeds `dist/*`, the npm-built UI that is git-ignored upstream and so absent from the
# module zip (`pattern dist/*: no matching files found`); files under GOMODCACHE cannot be overlaid. So the module's
# source is copied to a fixed directory (its path lands in the binary's build info: a fixed one keeps rebuilds
# byte-identical), given a one-line placeholder page, and built through a copy of go.mod that replaces the module
# with that directory. main.go refuses to run unless FIPS 140 mode is on: GOFIPS140=latest, as upstream builds it.
build_flux_operator() {
  local d src work
  d=$(moddir flux-operator)
  if [[ -x "$d/bin/flux-operator" ]] || [[ -n "${TESTBED_BUILD_ONLY:-}" && " $TESTBED_BUILD_ONLY " != *" flux-operator "* ]]; then
    build flux-operator flux-operator "$fo_mod/cmd/operator"
    return
  fi
  src=$(srcdir flux-operator "$fo_mod")
  work="$d/src"
  rm -rf "$work" && mkdir -p "$work"
  cp -r "$src" "$work/flux-operator" && chmod -R u+w "$work/flux-operator"
  mkdir -p "$work/flux-operator/web/dist"
  printf '<!doctype html><title>flux-operator</title><p>web UI not built\n' >"$work/flux-operator/web/dist/index.html"
  cp "$mods/flux-operator/go.mod" "$work/go.build.mod" && cp "$mods/flux-operator/go.sum" "$work/go.build.sum"
  (cd "$mods/flux-operator" && go mod edit -modfile="$work/go.build.mod" -replace "$fo_mod=$work/flux-operator")
  GOFIPS140=latest build flux-operator flux-operator "$fo_mod/cmd/operator" "-X main.VERSION=$(modver flux-operator "$fo_mod")" \
    -modfile="$work/go.build.mod"
  rm -rf "$work"
}

# Smallest first, so a failure in a big one still leaves the small ones usable.
build testbed-pause apps ./testbed-pause
build testbed-app apps ./testbed-app
build cdi-operator apps ./cdi-operator
build etcd etcd go.etcd.io/etcd/server/v3
build kube-apiserver k8s k8s.io/kubernetes/cmd/kube-apiserver "$kld"
build kube-controller-manager k8s k8s.io/kubernetes/cmd/kube-controller-manager "$kld"
build kube-scheduler k8s k8s.io/kubernetes/cmd/kube-scheduler "$kld"
build kube-proxy k8s k8s.io/kubernetes/cmd/kube-proxy "$kld"
build kubelet k8s k8s.io/kubernetes/cmd/kubelet "$kld"
build kustomize-controller flux-kustomize github.com/fluxcd/kustomize-controller
build source-controller flux-source github.com/fluxcd/source-controller
build helm-controller flux-helm github.com/fluxcd/helm-controller
# helm itself, for `up` rendering a flux-operator chart (bootstrap.install.operator naming a chart): from the
# helm.sh/helm/v4 version helm-controller already requires, so it reuses that build's compiled packages.
build helm flux-helm helm.sh/helm/v4/cmd/helm
build coredns coredns github.com/coredns/coredns
build_flux_operator
build sops sops github.com/getsops/sops/v3/cmd/sops
build age-keygen sops filippo.io/age/cmd/age-keygen

# The Flux CRDs live in the controller modules' zips (only api/ is a separate module); copy them next to bin so the
# harness needs no Go at run time.
for m in flux-source:github.com/fluxcd/source-controller flux-kustomize:github.com/fluxcd/kustomize-controller \
  flux-helm:github.com/fluxcd/helm-controller; do
  src=$(srcdir "${m%%:*}" "${m#*:}")
  cp -f "$src"/config/crd/bases/*.yaml "$cache/crds/"
done
chmod -R u+w "$cache/crds"
# flux-operator's install (config/default: namespace, CRDs, RBAC, Deployment) and the Flux distribution manifests it
# builds FluxInstances from (config/data, served as /data in its image: no registry is reachable).
fo_src=$(srcdir flux-operator "$fo_mod")
rm -rf "$cache/flux-operator" && mkdir -p "$cache/flux-operator"
cp -r "$fo_src/config/data" "$cache/flux-operator/data"
cp -r "$fo_src/config" "$cache/flux-operator/config"
chmod -R u+w,go+rX "$cache/flux-operator"
rm -rf "$cache/flux-operator/config/data"
# Which upstream version each binary is, for the images' upstream names (test/testbed/images.ts).
{
  printf 'source-controller %s\n' "$(modver flux-source github.com/fluxcd/source-controller)"
  printf 'kustomize-controller %s\n' "$(modver flux-kustomize github.com/fluxcd/kustomize-controller)"
  printf 'helm-controller %s\n' "$(modver flux-helm github.com/fluxcd/helm-controller)"
  printf 'kubernetes %s\n' "$kv"
  printf 'coredns %s\n' "$(modver coredns github.com/coredns/coredns)"
  printf 'sops %s\n' "$(modver sops github.com/getsops/sops/v3)"
  printf 'flux-operator %s\n' "$(modver flux-operator "$fo_mod")"
} >"$cache/versions.txt"

echo "$bin"
