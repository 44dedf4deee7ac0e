#!/usr/bin/env bash
# Installs the peers that `npm run bench:plan` compares standup with, all OUTSIDE the repository:
#   - GNU time (/usr/bin/time -v: wall time and max RSS), from Debian's packages if missing;
#   - a standalone kustomize, built from the Go module proxy at the version kubectl bundles (v5.5.0),
#     because flux-local shells out to `kustomize` and only kubectl is installed here;
#   - the flux CLI (flux-local runs `flux build ks` for every Kustomization), built from the flux2 module on the
#     Go module proxy; `go install .../cmd/flux@v` refuses it (its go.mod has a replace directive) and the
#     module zip lacks the generated cmd/flux/manifests/ that `flux install` embeds, so we build a copy of the
#     module with a placeholder manifest there (`flux install` would not work; `flux build` does not use it);
#   - flux-local (PyPI) in its own venv;
#   - flate (github.com/home-operations/flate, Go module proxy), built with the go1.27.3 toolchain from the proxy.
# Every step is independent: a step that fails is reported and the others still run. Re-running is cheap
# (already-installed peers are skipped unless FORCE=1).
#
# Where: $STANDUP_BENCH_HOME (default ~/.cache/standup-bench): bin/ (kustomize, flate), venv/ (flux-local),
# logs/ (each step's full output).
set -uo pipefail

HOME_DIR="${STANDUP_BENCH_HOME:-$HOME/.cache/standup-bench}"
BIN="$HOME_DIR/bin"
VENV="$HOME_DIR/venv"
LOGS="$HOME_DIR/logs"
KUSTOMIZE_VERSION="${KUSTOMIZE_VERSION:-v5.5.0}"   # what `kubectl version --client` reports here
FLUX_LOCAL_VERSION="${FLUX_LOCAL_VERSION:-8.4.0}"
FLATE_VERSION="${FLATE_VERSION:-v0.6.5}"
FLUX_VERSION="${FLUX_VERSION:-v2.9.5}"
FORCE="${FORCE:-0}"
mkdir -p "$BIN" "$LOGS"

# flux-local 8.x needs Python >= 3.13 (the system python3 here is 3.11); take $PYTHON, else the newest
# python3.13+ found on PATH or under pyenv.
find_python() {
  if [ -n "${PYTHON:-}" ]; then echo "$PYTHON"; return; fi
  local c
  for c in python3.14 python3.13 "$HOME"/.pyenv/versions/3.14*/bin/python3 "$HOME"/.pyenv/versions/3.13*/bin/python3 python3; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 13) else 1)' 2>/dev/null; then
      command -v "$c"; return
    fi
  done
}
# The module version a Go binary was built from ("" if none): `kustomize version` prints "(devel)" for go install builds.
go_mod_version() { go version -m "$1" 2>/dev/null | awk '$1 == "mod" { print $3; exit }'; }

status=0
step() { printf '\n== %s\n' "$*"; }
ok() { printf '   ok: %s\n' "$*"; }
fail() { printf '   FAILED: %s (full log: %s)\n' "$1" "$2"; status=1; }

step "GNU time"
if [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
  ok "/usr/bin/time present"
elif command -v apt-get >/dev/null; then
  if (apt-get update && apt-get install -y time) >"$LOGS/time.log" 2>&1; then ok "installed time"; else fail "apt-get install time" "$LOGS/time.log"; fi
else
  fail "no /usr/bin/time and no apt-get" "-"
fi

step "kustomize $KUSTOMIZE_VERSION -> $BIN/kustomize"
if [ "$FORCE" != 1 ] && [ -x "$BIN/kustomize" ] && [ "$(go_mod_version "$BIN/kustomize")" = "$KUSTOMIZE_VERSION" ]; then
  ok "already installed: $(go_mod_version "$BIN/kustomize")"
elif GOTOOLCHAIN=local GOBIN="$BIN" go install "sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION}" >"$LOGS/kustomize.log" 2>&1; then
  ok "built $(go_mod_version "$BIN/kustomize") with $(go env GOVERSION)"
else
  tail -5 "$LOGS/kustomize.log" | sed 's/^/   /'
  fail "go install kustomize" "$LOGS/kustomize.log"
fi

step "flux CLI $FLUX_VERSION -> $BIN/flux"
if [ "$FORCE" != 1 ] && [ -x "$BIN/flux" ] && "$BIN/flux" version --client 2>/dev/null | grep -qx "flux: ${FLUX_VERSION}"; then
  ok "already installed: $("$BIN/flux" version --client)"
elif (
  set -e
  export GOTOOLCHAIN=local GOFLAGS=-mod=mod
  mod_dir="$(cd "$HOME_DIR" && go mod download -json "github.com/fluxcd/flux2/v2@${FLUX_VERSION}" | awk -F'"' '$2 == "Dir" { print $4 }')"
  src="$HOME_DIR/src/flux2-${FLUX_VERSION}"
  rm -rf "$src"; mkdir -p "$src"; cp -r "$mod_dir"/. "$src"; chmod -R u+w "$src"
  mkdir -p "$src/cmd/flux/manifests"
  printf '# placeholder: the release build generates these (make); flux install is not used by the benchmark\n' >"$src/cmd/flux/manifests/placeholder.yaml"
  cd "$src" && go build -trimpath -ldflags "-s -w -X main.VERSION=${FLUX_VERSION#v}" -o "$BIN/flux" ./cmd/flux
) >"$LOGS/flux.log" 2>&1; then
  ok "$("$BIN/flux" version --client 2>/dev/null | head -1)"
else
  tail -5 "$LOGS/flux.log" | sed 's/^/   /'
  fail "build flux CLI (flux-local cannot run without it)" "$LOGS/flux.log"
fi

step "flux-local $FLUX_LOCAL_VERSION -> $VENV"
if [ "$FORCE" != 1 ] && [ -x "$VENV/bin/flux-local" ] && "$VENV/bin/pip" show flux-local 2>/dev/null | grep -q "^Version: ${FLUX_LOCAL_VERSION}$"; then
  ok "already installed"
elif PY="$(find_python)"; [ -z "$PY" ]; then
  echo "no Python >= 3.13 found (flux-local 8.x requires it); set PYTHON=/path/to/python3.13" >"$LOGS/flux-local.log"
  fail "flux-local: no Python >= 3.13" "$LOGS/flux-local.log"
elif { [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 13) else 1)' \
       || { rm -rf "$VENV" && "$PY" -m venv "$VENV"; }; } >"$LOGS/flux-local.log" 2>&1 \
  && "$VENV/bin/pip" install --disable-pip-version-check "flux-local==${FLUX_LOCAL_VERSION}" >>"$LOGS/flux-local.log" 2>&1; then
  ok "flux-local $("$VENV/bin/pip" show flux-local | awk '/^Version/ {print $2}') on $("$VENV/bin/python" --version)"
else
  tail -5 "$LOGS/flux-local.log" | sed 's/^/   /'
  fail "pip install flux-local" "$LOGS/flux-local.log"
fi

step "flate $FLATE_VERSION -> $BIN/flate"
if [ "$FORCE" != 1 ] && [ -x "$BIN/flate" ]; then
  ok "already installed"
# flate v0.6.5 needs Go >= 1.27; this machine has 1.26. The Go module proxy serves the go1.27.3 toolchain as a module
# (about 76 MB, fetched once into the module cache), so only this build uses it; the testbed stays on the local Go.
elif GOTOOLCHAIN="${FLATE_GOTOOLCHAIN:-go1.27.3}" GOBIN="$BIN" go install "github.com/home-operations/flate/cmd/flate@${FLATE_VERSION}" >"$LOGS/flate.log" 2>&1; then
  ok "installed $BIN/flate"
else
  # Typically: "go: github.com/home-operations/flate@vX requires go >= 1.NN (running go 1.NN; GOTOOLCHAIN=local)".
  tail -5 "$LOGS/flate.log" | sed 's/^/   /'
  fail "go install flate (the benchmark skips it)" "$LOGS/flate.log"
fi

echo
[ "$status" = 0 ] && echo "all peers installed under $HOME_DIR" || echo "some peers did not install (see above); bench:plan skips them"
exit "$status"
