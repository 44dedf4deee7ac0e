#!/usr/bin/env bash
# LEGACY hand-written cold-start script, kept as the seeds had it. `standup` replaces it: it derives
# the order from the dependsOn graph in git instead of this hand-maintained list.
#
# KNOWN FOLLOW-UP (never done): TIER_ORDER does not include platform-config-cdi, so `resume` does not
# wait on it. `standup check --legacy-order examples/homelab/bootstrap/standup.sh` reports exactly that.
#
#   standup.sh crds     apply the CRD fallback (bootstrap/crds) server-side, wait for Established
#   standup.sh resume   wait on every tier in TIER_ORDER, reconciling each in turn
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NS=flux-system
TIMEOUT=${TIMEOUT:-10m}

TIER_ORDER=(
  crds
  platform
  platform-config
  oauth2-proxy
  headlamp
  apps
  apps-vms
)

crds() {
  kubectl apply --server-side --field-manager=standup-sh -f "$HERE/crds/"
  kubectl wait --for=condition=Established --timeout=60s \
    crd/storageprofiles.cdi.kubevirt.io crd/datavolumes.cdi.kubevirt.io
}

resume() {
  local tier
  flux reconcile kustomization flux-system -n "$NS" --with-source --timeout="$TIMEOUT"
  for tier in "${TIER_ORDER[@]}"; do
    echo "==> $tier"
    flux reconcile kustomization "$tier" -n "$NS" --timeout="$TIMEOUT"
    kubectl -n "$NS" wait "kustomization/$tier" --for=condition=Ready --timeout="$TIMEOUT"
  done
}

case "${1:-}" in
  crds) crds ;;
  resume) resume ;;
  *) echo "usage: $0 crds|resume" >&2; exit 2 ;;
esac
