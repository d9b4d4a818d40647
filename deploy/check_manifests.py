#!/usr/bin/env python3
"""Static checks of the deployment files; deploy/check runs this after `docker compose config`.

- deploy/k8s/*.yaml: every file parses, every document has apiVersion, kind and metadata.name;
  kustomization.yaml lists every manifest but the Secret example, and only files that exist;
  every namespaced object is in the `mcpbench` namespace; each Deployment's pods run as non-root
  with seccomp RuntimeDefault, each container has a read-only root, no privilege escalation, all
  capabilities dropped, requests and limits, readiness and liveness probes on a declared port;
  every ConfigMap and Secret key they reference exists (the Secret in secret.example.yaml); every
  Service and PodDisruptionBudget selects a Deployment's pods, on ports the pods declare; the
  worker's grace period is longer than its time budget; a default-deny NetworkPolicy, and every
  other one selects a Deployment's pods with ingress on ports they declare.
- the normalised compose file: nothing is published beyond 127.0.0.1; api and worker run
  read-only with all capabilities dropped; each build names deploy/Dockerfile and a stage in it;
  the worker's stop_grace_period is longer than its time budget.
- deploy/Dockerfile: base images pinned by a tag (not `latest`); each COPY source exists and is
  not excluded by .dockerignore; the packages it builds exist in the workspace with the binaries
  it copies out.
"""

import argparse
import fnmatch
import json
import re
import shlex
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
K8S = ROOT / "deploy" / "k8s"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
NAMESPACE = "mcpbench"
SECRET_EXAMPLE = "secret.example.yaml"
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume",
                  "StorageClass", "PriorityClass"}

errors: list[str] = []


def ok(what: str) -> None:
    print(f"  ok  {what}", flush=True)


def error(what: str) -> None:
    errors.append(what)
    print(f"  FAIL  {what}", flush=True)


def seconds(value) -> float:
    """Compose durations: 150s, 2m30s, 1m, or a number of seconds."""
    if isinstance(value, (int, float)):
        return float(value)
    total = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", str(value)):
        total += float(number) * {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6}[unit]
    return total


# --- Kubernetes -----------------------------------------------------------------------------

def load_k8s() -> list[tuple[str, dict]]:
    docs = []
    files = sorted(K8S.glob("*.yaml")) + sorted(K8S.glob("*.yml"))
    if not files:
        error("deploy/k8s: no YAML file")
    for path in files:
        name = path.relative_to(ROOT)
        try:
            loaded = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
        except yaml.YAMLError as e:
            error(f"{name}: does not parse: {e}")
            continue
        if not loaded:
            error(f"{name}: no document")
        for i, doc in enumerate(loaded):
            where = f"{name} document {i + 1}"
            if not isinstance(doc, dict):
                error(f"{where}: not a mapping")
                continue
            missing = [k for k in ("apiVersion", "kind") if not doc.get(k)]
            if not (doc.get("metadata") or {}).get("name"):
                missing.append("metadata.name")
            if missing:
                error(f"{where}: missing {', '.join(missing)}")
                continue
            docs.append((path.name, doc))
    ok(f"deploy/k8s: {len(files)} files, {len(docs)} documents parse, each with apiVersion, "
       f"kind, metadata.name ({', '.join(sorted({d['kind'] for _, d in docs}))})")
    return docs


def check_kustomization(docs) -> None:
    kustomizations = [d for f, d in docs if d["kind"] == "Kustomization"]
    if len(kustomizations) != 1:
        error("deploy/k8s: expected one kustomization.yaml")
        return
    listed = kustomizations[0].get("resources") or []
    for res in listed:
        if not (K8S / res).is_file():
            error(f"kustomization.yaml lists {res}, which does not exist")
    manifests = {f for f, d in docs if d["kind"] != "Kustomization"} - {SECRET_EXAMPLE}
    for f in sorted(manifests - set(listed)):
        error(f"kustomization.yaml does not list {f}")
    if SECRET_EXAMPLE in listed:
        error(f"kustomization.yaml must not apply {SECRET_EXAMPLE} (placeholders)")
    ok(f"kustomization.yaml lists every manifest ({len(listed)}) but {SECRET_EXAMPLE}")


def pod_labels(deployment: dict) -> dict:
    return ((deployment["spec"].get("template") or {}).get("metadata") or {}).get("labels") or {}


def selects(selector: dict, labels: dict) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def check_network_policies(docs) -> None:
    """A default deny for the whole namespace; every other policy selects a Deployment's pods,
    and its ingress rules name ports those pods declare."""
    objects = [d for f, d in docs if d["kind"] != "Kustomization"]
    policies = [d for d in objects if d["kind"] == "NetworkPolicy"]
    deployments = [d for d in objects if d["kind"] == "Deployment"]
    deny = [p for p in policies
            if not (p["spec"].get("podSelector") or {})
            and set(p["spec"].get("policyTypes") or []) == {"Ingress", "Egress"}
            and not p["spec"].get("ingress") and not p["spec"].get("egress")]
    if not deny:
        error("deploy/k8s: no default-deny NetworkPolicy (podSelector {}, Ingress and Egress, "
              "no rules)")
    for p in policies:
        if p in deny:
            continue
        name = f"NetworkPolicy/{p['metadata']['name']}"
        selector = (p["spec"].get("podSelector") or {}).get("matchLabels") or {}
        targets = [d for d in deployments if selects(selector, pod_labels(d))]
        if not targets:
            error(f"{name}: selects no Deployment's pods")
            continue
        if set(p["spec"].get("policyTypes") or []) != {"Ingress", "Egress"}:
            error(f"{name}: policyTypes must be Ingress and Egress")
        declared = set()
        for d in targets:
            for c in d["spec"]["template"]["spec"].get("containers") or []:
                for port in c.get("ports") or []:
                    declared |= {port.get("name"), port.get("containerPort")}
        for rule in p["spec"].get("ingress") or []:
            for port in rule.get("ports") or []:
                if port.get("port") not in declared:
                    error(f"{name}: ingress port {port.get('port')!r} is not declared by its pods")
    ok(f"NetworkPolicy: a default deny and {len(policies) - len(deny)} policies, each selecting "
       "a Deployment's pods, ingress on ports they declare")


def check_workloads(docs) -> None:
    objects = [d for f, d in docs if d["kind"] != "Kustomization"]
    for d in objects:
        ns = d["metadata"].get("namespace")
        if d["kind"] not in CLUSTER_SCOPED and ns != NAMESPACE:
            error(f"{d['kind']}/{d['metadata']['name']}: namespace is {ns!r}, not {NAMESPACE!r}")
    config_maps = {d["metadata"]["name"]: d.get("data") or {} for d in objects
                   if d["kind"] == "ConfigMap"}
    secrets = {d["metadata"]["name"]: {**(d.get("data") or {}), **(d.get("stringData") or {})}
               for d in objects if d["kind"] == "Secret"}
    deployments = [d for d in objects if d["kind"] == "Deployment"]
    if not deployments:
        error("deploy/k8s: no Deployment")

    for dep in deployments:
        name = f"Deployment/{dep['metadata']['name']}"
        spec = dep["spec"]
        pod = spec["template"]["spec"]
        if not selects(spec["selector"].get("matchLabels") or {}, pod_labels(dep)):
            error(f"{name}: selector does not match its pod labels")
        psc = pod.get("securityContext") or {}
        if psc.get("runAsNonRoot") is not True:
            error(f"{name}: pod securityContext.runAsNonRoot is not true")
        if (psc.get("seccompProfile") or {}).get("type") != "RuntimeDefault":
            error(f"{name}: pod seccompProfile is not RuntimeDefault")
        for c in pod.get("containers") or []:
            cname = f"{name} container {c.get('name')}"
            sc = c.get("securityContext") or {}
            if sc.get("readOnlyRootFilesystem") is not True:
                error(f"{cname}: readOnlyRootFilesystem is not true")
            if sc.get("allowPrivilegeEscalation") is not False:
                error(f"{cname}: allowPrivilegeEscalation is not false")
            if "ALL" not in ((sc.get("capabilities") or {}).get("drop") or []):
                error(f"{cname}: capabilities do not drop ALL")
            res = c.get("resources") or {}
            for part in ("requests", "limits"):
                if not (res.get(part) or {}).get("memory"):
                    error(f"{cname}: no resources.{part}.memory")
            ports = {p.get("name") for p in c.get("ports") or []} | \
                    {p.get("containerPort") for p in c.get("ports") or []}
            for probe in ("readinessProbe", "livenessProbe"):
                port = ((c.get(probe) or {}).get("httpGet") or {}).get("port")
                if port is None:
                    error(f"{cname}: no {probe} (httpGet)")
                elif port not in ports:
                    error(f"{cname}: {probe} uses port {port!r}, which it does not declare")
            for src in c.get("envFrom") or []:
                ref = (src.get("configMapRef") or {}).get("name")
                if ref and ref not in config_maps:
                    error(f"{cname}: envFrom ConfigMap {ref!r} is not defined")
            for env in c.get("env") or []:
                vf = env.get("valueFrom") or {}
                for kind, pool in (("secretKeyRef", secrets), ("configMapKeyRef", config_maps)):
                    ref = vf.get(kind)
                    if ref and ref.get("key") not in pool.get(ref.get("name"), {}):
                        error(f"{cname}: {env['name']} refers to {ref.get('name')}/"
                              f"{ref.get('key')}, which is not defined")
    ok(f"{len(deployments)} Deployments: non-root, seccomp RuntimeDefault, read-only root, no "
       "privilege escalation, ALL capabilities dropped, resources, probes on declared ports, "
       "ConfigMap and Secret references defined")

    for d in objects:
        kind, name = d["kind"], d["metadata"]["name"]
        if kind == "Service":
            selector = d["spec"].get("selector") or {}
        elif kind == "PodDisruptionBudget":
            selector = (d["spec"].get("selector") or {}).get("matchLabels") or {}
        else:
            continue
        targets = [dep for dep in deployments if selects(selector, pod_labels(dep))]
        if not targets:
            error(f"{kind}/{name}: selects no Deployment's pods")
            continue
        if kind == "Service":
            declared = set()
            for dep in targets:
                for c in dep["spec"]["template"]["spec"]["containers"]:
                    for p in c.get("ports") or []:
                        declared |= {p.get("name"), p.get("containerPort")}
            for p in d["spec"].get("ports") or []:
                target = p.get("targetPort", p.get("port"))
                if target not in declared:
                    error(f"Service/{name}: targetPort {target!r} is not a port of its pods")
    ok("every Service and PodDisruptionBudget selects a Deployment's pods, on declared ports")

    worker = next((d for d in deployments if d["metadata"]["name"] == "mcpbench-worker"), None)
    budget = config_maps.get("mcpbench-worker", {}).get("MCPBENCH_TIME_BUDGET_SECS", "120")
    if worker is None:
        error("deploy/k8s: no mcpbench-worker Deployment")
    else:
        grace = worker["spec"]["template"]["spec"].get("terminationGracePeriodSeconds", 30)
        if grace <= int(budget):
            error(f"mcpbench-worker: terminationGracePeriodSeconds {grace} <= time budget {budget}")
        else:
            ok(f"mcpbench-worker: terminationGracePeriodSeconds {grace} > time budget {budget}s")


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
    opts = parser.parse_args()
    docs = load_k8s()
    check_kustomization(docs)
    check_workloads(docs)
    check_network_policies(docs)
    check_compose(opts.compose)
    check_dockerfile(opts.cargo_metadata)
    if errors:
        print(f"deploy/check: {len(errors)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
