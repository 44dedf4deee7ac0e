"""Print the Flux Kustomization graph that flux-local derives for a path, as JSON on stdout.

bench:plan times flux-local's stock CLI, whose outputs list Kustomizations but not their dependsOn
(flux-local's Kustomization model marks depends_on "serialize: omit"). This driver runs the same engine
as a CLI command and prints every Kustomization with the dependsOn flux-local parsed, so the benchmark
can compare nodes AND edges with standup's. It calls flux-local's own code only:

  --engine orchestrator   what `flux-local get ks` runs (tool.get_common.bootstrap: the Orchestrator
                          with its source- and kustomize-controller, every Kustomization `flux build`-ed)
  --engine classic        what `flux-local get cluster` runs (git_repo.build_manifest)

Usage (cwd = a git work tree, as flux-local requires): python flux-local-graph.py --engine E --path ENTRY
Output: [{"namespace", "name", "path", "dependsOn": ["ns/name", ...]}, ...]
"""

import argparse
import asyncio
import json
import logging
import pathlib
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

from flux_local import git_repo  # noqa: E402
from flux_local.manifest import KUSTOMIZE_KIND, Kustomization  # noqa: E402
from flux_local.tool import get_common, selector  # noqa: E402


def row(ks: Kustomization) -> dict:
    return {"namespace": ks.namespace, "name": ks.name, "path": ks.path, "dependsOn": list(ks.depends_on or [])}


async def orchestrator(path: str) -> list[dict]:
    store = await get_common.bootstrap(pathlib.Path(path), enable_oci=False)
    return [row(o) for o in store.list_objects(kind=KUSTOMIZE_KIND) if isinstance(o, Kustomization)]


async def classic(path: str) -> list[dict]:
    p = argparse.ArgumentParser()
    selector.add_cluster_selector_flags(p)
    kwargs = vars(p.parse_args(["--path", path]))
    query = selector.build_cluster_selector(**kwargs)
    manifest = await git_repo.build_manifest(selector=query, options=selector.options(**kwargs))
    return [row(ks) for cluster in manifest.clusters for ks in cluster.kustomizations]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--engine", choices=["orchestrator", "classic"], default="orchestrator")
    p.add_argument("--path", required=True)
    a = p.parse_args()
    rows = asyncio.run(orchestrator(a.path) if a.engine == "orchestrator" else classic(a.path))
    print(json.dumps(sorted(rows, key=lambda r: (r["namespace"] or "", r["name"])), indent=1))


if __name__ == "__main__":
    main()
