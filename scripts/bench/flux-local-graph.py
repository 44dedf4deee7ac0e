"""Print the Flux Kustomization graph that flux-local derives for a path, as JSON on stdout.

bench:plan times flux-local's stock CLI, whose outputs list Kustomizations but not their dependsOn
(flux-local's Kustomization model marks depends_on "serialize: omit"). This driver makes the same calls
as one CLI command and prints every Kustomization with the dependsOn flux-local parsed, so the benchmark
can compare nodes AND edges with standup's. It runs flux-local's own code only:

  ks        what `flux-local get ks` runs: git_repo.build_manifest with the ks selector (HelmReleases off)
  cluster   what `flux-local get cluster` runs: git_repo.build_manifest with the cluster selector
  ks-new    what `flux-local get ks-new` runs: the experimental Orchestrator (tool.get_common.bootstrap)

Usage (cwd = a git work tree, as flux-local requires):
  python flux-local-graph.py ENGINE [the same flags as the CLI command, e.g. -A --path ENTRY]
Output: [{"namespace", "name", "path", "dependsOn": ["ns/name", ...]}, ...]
"""

import argparse
import asyncio
import json
import logging
import pathlib
import sys
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

from flux_local import git_repo  # noqa: E402
from flux_local.manifest import KUSTOMIZE_KIND, Kustomization  # noqa: E402
from flux_local.tool import get_common, selector  # noqa: E402


def row(ks: Kustomization) -> dict:
    return {"namespace": ks.namespace, "name": ks.name, "path": ks.path, "dependsOn": list(ks.depends_on or [])}


async def ks(argv: list[str]) -> list[dict]:
    # tool/get.py GetKustomizationAction.run
    p = argparse.ArgumentParser()
    selector.add_ks_selector_flags(p)
    kwargs = vars(p.parse_args(argv))
    query = selector.build_ks_selector(**kwargs)
    query.helm_release.enabled = False
    query.helm_repo.enabled = False
    manifest = await git_repo.build_manifest(selector=query, options=selector.options(**kwargs))
    return [row(k) for c in manifest.clusters for k in c.kustomizations]


async def cluster(argv: list[str]) -> list[dict]:
    # tool/get.py GetClusterAction.run (-o yaml)
    p = argparse.ArgumentParser()
    selector.add_cluster_selector_flags(p)
    kwargs = vars(p.parse_args(argv))
    query = selector.build_cluster_selector(**kwargs)
    query.helm_release.enabled = True
    manifest = await git_repo.build_manifest(selector=query, options=selector.options(**kwargs))
    return [row(k) for c in manifest.clusters for k in c.kustomizations]


async def ks_new(argv: list[str]) -> list[dict]:
    # tool/get_kustomization.py: the Orchestrator
    p = argparse.ArgumentParser()
    p.add_argument("--path", default=".")
    a, _ = p.parse_known_args(argv)
    store = await get_common.bootstrap(pathlib.Path(a.path), enable_oci=False)
    return [row(o) for o in store.list_objects(kind=KUSTOMIZE_KIND) if isinstance(o, Kustomization)]


def main() -> None:
    engines = {"ks": ks, "cluster": cluster, "ks-new": ks_new}
    if len(sys.argv) < 2 or sys.argv[1] not in engines:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(engines)}}} [CLI flags]")
    rows = asyncio.run(engines[sys.argv[1]](sys.argv[2:]))
    print(json.dumps(sorted(rows, key=lambda r: (r["namespace"] or "", r["name"])), indent=1))


if __name__ == "__main__":
    main()
