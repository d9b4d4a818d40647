#!/usr/bin/env python3
"""Static checks of the deployment files; deploy/check runs this after `docker compose config`.

- Kubernetes (check_k8s.py), in two directories applied one after the other: deploy/k8s (the
  base, namespace `mcpbench`) and deploy/k8s/engine (the workers for Docker-image agents,
  namespace `mcpbench-engine`).
  - Each directory: every YAML parses, every document has apiVersion, kind and metadata.name;
    its kustomization.yaml lists every manifest but the Secret example, only files of its own
    directory that exist; every namespaced object is in the directory's namespace, which it
    defines with its Pod Security labels (`mcpbench` enforces restricted; `mcpbench-engine`
    enforces privileged, warns and audits restricted). Each Deployment's pods run as a
    non-root uid with seccomp RuntimeDefault, no host namespaces, no service account token;
    each container has a read-only root, no privilege escalation, all capabilities dropped and
    none added, requests and limits, readiness and liveness probes on a declared port; every
    ConfigMap key they reference exists in their directory and every Secret key in
    secret.example.yaml; only the engine worker has hostPath volumes. Every Service and
    PodDisruptionBudget selects a Deployment's pods on ports they declare, and the workers'
    Services are headless. A default-deny NetworkPolicy, every other one selects a
    Deployment's pods with ingress on ports they declare, and an ipBlock of every address
    leaves the private ranges out.
  - The workers: MCPBENCH_DOCKER is "off" for mcpbench-worker and "on" for
    mcpbench-worker-engine; each one's grace period is longer than its time budget; each
    gateway admits the API pods alone (the engine's from namespace `mcpbench`), and the API's
    policy reaches both.
  - The engine worker: MCPBENCH_AGENT_RUNTIME, the sandbox and agent settings set, every other
    setting as the base worker's but MCPBENCH_DOCKER and MCPBENCH_WORKER_CONCURRENCY; hostPath
    volumes the docker socket (Socket) and MCPBENCH_SANDBOX_DIR alone, each mounted at the same
    path; the engine nodes' nodeSelector and toleration, one pod per node, supplementalGroups;
    the base worker's image, user and kustomize images entry; its policy egress the base
    worker's.
  - With kubectl installed, `kubectl kustomize` renders each directory into its files'
    objects, each in its namespace, the two workers on one image.
- the normalised compose file: nothing is published beyond 127.0.0.1; api and worker run
  read-only with all capabilities dropped; each build names deploy/Dockerfile and a stage in it;
  the worker's stop_grace_period is longer than its time budget.
- deploy/Dockerfile: base images pinned by a tag (not `latest`); each COPY source exists and is
  not excluded by .dockerignore; the packages it builds exist in the workspace with the binaries
  it copies out.

--root checks another copy of the repository (to see a check fail on a broken copy).
"""

import argparse
import fnmatch
import json
import re
import shlex
import sys
from pathlib import Path

import yaml

from check_k8s import check_kubernetes, error, errors, ok

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "deploy" / "Dockerfile"


def set_root(root: Path) -> None:
    global ROOT, DOCKERFILE
    ROOT, DOCKERFILE = root, root / "deploy" / "Dockerfile"


def seconds(value) -> float:
    """Compose durations: 150s, 2m30s, 1m, or a number of seconds."""
    if isinstance(value, (int, float)):
        return float(value)
    total = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", str(value)):
        total += float(number) * {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6}[unit]
    return total


# --- Compose ------------------------------------------------------------------------------------

def dockerfile_stages() -> set[str]:
    return {m.group(1) for m in re.finditer(r"(?im)^FROM\s+\S+\s+AS\s+(\S+)", DOCKERFILE.read_text())}


def check_compose(path: Path) -> None:
    compose = yaml.safe_load(path.read_text())
    services = compose.get("services") or {}
    for required in ("postgres", "s3", "s3-init", "api", "worker"):
        if required not in services:
            error(f"docker-compose.yml: no service {required!r}")
    published = []
    for name, svc in services.items():
        for port in svc.get("ports") or []:
            if isinstance(port, dict):  # v2's long form
                host_ip = port.get("host_ip", "")
                label = f"{host_ip}:{port.get('published')}"
            else:  # v1's short form, HOST_IP:HOST:CONTAINER[/proto]
                parts = str(port).split(":")
                host_ip = parts[0] if len(parts) == 3 else ""
                label = str(port)
            published.append(f"{name} {label}")
            if host_ip != "127.0.0.1":
                error(f"docker-compose.yml: {name} publishes {port!r} beyond 127.0.0.1")
    ok(f"docker-compose.yml: published only on 127.0.0.1 ({'; '.join(published)})")

    stages = dockerfile_stages()
    for name in ("api", "worker"):
        svc = services.get(name) or {}
        if svc.get("read_only") is not True or "ALL" not in (svc.get("cap_drop") or []):
            error(f"docker-compose.yml: {name} is not read_only with cap_drop ALL")
        build = svc.get("build") or {}
        if Path(str(build.get("dockerfile", ""))).name != "Dockerfile" or \
                build.get("target") not in stages:
            error(f"docker-compose.yml: {name} does not build a stage of deploy/Dockerfile")
    worker = services.get("worker") or {}
    budget = (worker.get("environment") or {}).get("MCPBENCH_TIME_BUDGET_SECS", 120)
    grace = seconds(worker.get("stop_grace_period", "10s"))
    if grace <= float(budget):
        error(f"docker-compose.yml: worker stop_grace_period {grace}s <= time budget {budget}s")
    ok(f"docker-compose.yml: api and worker read-only, ALL capabilities dropped, built from "
       f"deploy/Dockerfile stages; worker grace {grace:g}s > time budget {budget}s")


# --- Dockerfile ---------------------------------------------------------------------------------

def dockerignored(rel: str, patterns: list[str]) -> bool:
    """Whether .dockerignore excludes `rel` or a parent of it (last matching pattern wins)."""
    excluded = False
    parts = rel.split("/")
    candidates = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    for pattern in patterns:
        negate = pattern.startswith("!")
        pat = pattern[1:] if negate else pattern
        pat = pat.strip("/")
        for cand in candidates:
            if fnmatch.fnmatchcase(cand, pat) or (pat.startswith("**/") and (
                    fnmatch.fnmatchcase(cand, pat[3:]) or
                    fnmatch.fnmatchcase(cand.split("/")[-1], pat[3:]))):
                excluded = not negate
                break
    return excluded


def check_dockerfile(cargo_metadata: Path) -> None:
    text = DOCKERFILE.read_text()
    # Join continuation lines, drop comments.
    logical = re.sub(r"\\\n", " ", "\n".join(
        line for line in text.splitlines() if not line.lstrip().startswith("#")))
    args = dict(re.findall(r"(?m)^ARG\s+(\w+)=(\S+)", logical))
    stages = dockerfile_stages()
    bases = []
    for ref in re.findall(r"(?im)^FROM\s+(\S+)", logical):
        image = re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), "?"), ref)
        # `scratch` is the empty image, the same bytes everywhere: nothing to pin.
        if image in stages or image == "scratch":
            continue
        bases.append(image)
        name = image.split("@")[0]
        tag = name.rsplit(":", 1)[1] if ":" in name.rsplit("/", 1)[-1] else ""
        if not tag or tag == "latest":
            error(f"deploy/Dockerfile: base image {image} is not pinned by a tag")
    ok(f"deploy/Dockerfile: base images pinned by tag ({', '.join(bases)}); "
       f"stages {', '.join(sorted(stages))}")

    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    sources = []
    for line in re.findall(r"(?m)^COPY\s+(.+)$", logical):
        words = [w for w in shlex.split(line) if not w.startswith("--")]
        if "--from=" in line:
            continue
        for src in words[:-1]:
            if src == ".":
                continue
            sources.append(src)
            if not (ROOT / src).exists():
                error(f"deploy/Dockerfile: COPY source {src} does not exist")
            elif dockerignored(src, patterns):
                error(f"deploy/Dockerfile: COPY source {src} is excluded by .dockerignore")
    for needed in ("Cargo.lock", ".sqlx", "migrations", "tasks/dev"):
        if dockerignored(needed, patterns):
            error(f".dockerignore excludes {needed}, which the build needs")
    ok(f"deploy/Dockerfile: COPY sources exist and are in the build context ({', '.join(sources)});"
       " .dockerignore keeps Cargo.lock, .sqlx, migrations, tasks/dev")

    metadata = json.loads(cargo_metadata.read_text())
    bins = {p["name"]: {t["name"] for t in p["targets"] if "bin" in t["kind"]}
            for p in metadata["packages"]}
    build = re.search(r"cargo build ([^&;]*)", logical)
    built = re.findall(r"-p\s+(\S+)", build.group(1)) if build else []
    if not built:
        error("deploy/Dockerfile: no `cargo build -p ...` found")
    copied = set(re.findall(r"target/release/([\w-]+)", logical))
    available = set()
    for package in built:
        if package not in bins:
            error(f"deploy/Dockerfile: builds package {package}, not in the workspace")
        available |= bins.get(package, set())
    for binary in sorted(copied - available):
        error(f"deploy/Dockerfile: copies target/release/{binary}, which no built package makes")
    ok(f"deploy/Dockerfile: builds {', '.join(built)}, which make {', '.join(sorted(copied))}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compose", type=Path, required=True,
                        help="the output of `docker compose config`")
    parser.add_argument("--cargo-metadata", type=Path, required=True,
                        help="the output of `cargo metadata --no-deps --format-version 1`")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the repository to check (default: this script's)")
    opts = parser.parse_args()
    set_root(opts.root.resolve())
    check_kubernetes(ROOT)
    check_compose(opts.compose)
    check_dockerfile(opts.cargo_metadata)
    if errors:
        print(f"deploy/check: {len(errors)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
