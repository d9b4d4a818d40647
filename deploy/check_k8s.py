"""The Kubernetes checks of deploy/check, run by check_manifests.py (whose docstring lists them).

Two directories of manifests, each applied on its own with `kubectl apply -k`: deploy/k8s (the
base, namespace `mcpbench`) and deploy/k8s/engine (the workers that run Docker-image agents,
namespace `mcpbench-engine`). Each is checked alone, then what ties them together.
"""

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

errors: list[str] = []


def ok(what: str) -> None:
    print(f"  ok  {what}", flush=True)


def error(what: str) -> None:
    errors.append(what)
    print(f"  FAIL  {what}", flush=True)


BASE, ENGINE = "deploy/k8s", "deploy/k8s/engine"
# The namespace of everything in each directory.
NAMESPACES = {BASE: "mcpbench", ENGINE: "mcpbench-engine"}
# The Pod Security Standard levels each namespace's labels must set: the engine workers mount
# hostPath volumes, which only "privileged" admits.
POD_SECURITY = {BASE: {"enforce": "restricted"},
                ENGINE: {"enforce": "privileged", "warn": "restricted", "audit": "restricted"}}
API, WORKER, ENGINE_WORKER = "mcpbench-api", "mcpbench-worker", "mcpbench-worker-engine"
# Each directory's workers and their MCPBENCH_DOCKER.
WORKERS = {BASE: (WORKER, "off"), ENGINE: (ENGINE_WORKER, "on")}
# Settings the engine workers have that the base workers need not, and those they may set
# differently; every other setting of the base workers they must share.
ENGINE_SETTINGS = ("MCPBENCH_AGENT_RUNTIME", "MCPBENCH_SANDBOX_DIR", "MCPBENCH_SANDBOX_DEPLOYMENT",
                   "MCPBENCH_AGENT_MEMORY_MIB", "MCPBENCH_AGENT_CPUS")
ENGINE_OWN = {"MCPBENCH_DOCKER", "MCPBENCH_WORKER_CONCURRENCY"}
DOCKER_SOCKET = "/var/run/docker.sock"
NODE_LABEL = ("mcpbench.dev/agent-engine", "docker")  # the engine nodes' label, and taint
NS_NAME = "kubernetes.io/metadata.name"
SECRET_EXAMPLE = "secret.example.yaml"
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume",
                  "StorageClass", "PriorityClass", "RuntimeClass"}
# What an ipBlock of every address must leave out (the egress client refuses these too).
PRIVATE = {"0.0.0.0/0": {"10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
                         "172.16.0.0/12", "192.168.0.0/16"},
           "::/0": {"fc00::/7", "fe80::/10", "::1/128"}}


@dataclass
class Manifests:
    """One directory's documents, as (file name, document)."""
    rel: str
    docs: list

    @property
    def namespace(self) -> str:
        return NAMESPACES[self.rel]

    @property
    def objects(self) -> list:
        return [d for f, d in self.docs if d["kind"] != "Kustomization"]

    def of(self, kind: str) -> list:
        return [d for d in self.objects if d["kind"] == kind]

    def deployment(self, name: str):
        return next((d for d in self.of("Deployment") if d["metadata"]["name"] == name), None)

    def config_maps(self) -> dict:
        return {d["metadata"]["name"]: d.get("data") or {} for d in self.of("ConfigMap")}


def load(root: Path, rel: str) -> Manifests:
    directory = root / rel
    docs = []
    files = sorted(directory.glob("*.yaml")) + sorted(directory.glob("*.yml"))
    if not files:
        error(f"{rel}: no YAML file")
    for path in files:
        name = path.relative_to(root)
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
    ok(f"{rel}: {len(files)} files, {len(docs)} documents parse, each with apiVersion, kind, "
       f"metadata.name ({', '.join(sorted({d['kind'] for _, d in docs}))})")
    return Manifests(rel, docs)


def pod_spec(deployment: dict) -> dict:
    return (deployment["spec"].get("template") or {}).get("spec") or {}


def pod_labels(deployment: dict) -> dict:
    return ((deployment["spec"].get("template") or {}).get("metadata") or {}).get("labels") or {}


def selects(selector: dict, labels: dict) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def container_ports(container: dict) -> set:
    """Names and numbers of the ports a container declares."""
    return {x for p in container.get("ports") or [] for x in (p.get("name"), p.get("containerPort"))
            if x is not None}


def declared_ports(deployments) -> set:
    return {x for d in deployments for c in pod_spec(d).get("containers") or []
            for x in container_ports(c)}


def container_env(container: dict, config_maps: dict) -> dict:
    """A container's environment as Kubernetes builds it: envFrom ConfigMaps in order, then env
    (a valueFrom stands as its JSON)."""
    env = {}
    for src in container.get("envFrom") or []:
        ref = (src.get("configMapRef") or {}).get("name")
        env.update({k: str(v) for k, v in config_maps.get(ref, {}).items()})
    for e in container.get("env") or []:
        env[e["name"]] = str(e["value"]) if "value" in e else \
            json.dumps(e.get("valueFrom"), sort_keys=True)
    return env


def worker_env(m: Manifests, name: str):
    dep = m.deployment(name)
    containers = (pod_spec(dep).get("containers") or []) if dep else []
    return dep, (container_env(containers[0], m.config_maps()) if containers else {})


# --- each directory alone --------------------------------------------------------------------

def check_kustomization(root: Path, m: Manifests) -> None:
    """Lists every manifest of its directory but the Secret example, and nothing else: kustomize
    refuses the directory above (which contains this one) and files outside its own."""
    where = f"{m.rel}/kustomization.yaml"
    kustomizations = [d for f, d in m.docs if d["kind"] == "Kustomization"]
    if len(kustomizations) != 1:
        error(f"{m.rel}: expected one kustomization.yaml")
        return
    k = kustomizations[0]
    listed = k.get("resources") or []
    for res in listed:
        if "/" in str(res).rstrip("/") or str(res).startswith("."):
            error(f"{where} lists {res}: only files of its own directory (kustomize refuses a "
                  "base that contains the kustomization, and files above it)")
        elif not (root / m.rel / res).is_file():
            error(f"{where} lists {res}, which does not exist")
    manifests = {f for f, d in m.docs if d["kind"] != "Kustomization"} - {SECRET_EXAMPLE}
    for f in sorted(manifests - set(listed)):
        error(f"{where} does not list {f}")
    if SECRET_EXAMPLE in listed:
        error(f"{where} must not apply {SECRET_EXAMPLE} (placeholders)")
    if k.get("namespace") not in (None, m.namespace):
        error(f"{where}: namespace {k.get('namespace')!r}, not {m.namespace!r}")
    ok(f"{where} lists every manifest of its directory ({len(listed)}), nothing outside it, "
       f"not {SECRET_EXAMPLE}")


def check_namespace(m: Manifests) -> None:
    for d in m.objects:
        ns = d["metadata"].get("namespace")
        if d["kind"] not in CLUSTER_SCOPED and ns != m.namespace:
            error(f"{m.rel}: {d['kind']}/{d['metadata']['name']} is in namespace {ns!r}, "
                  f"not {m.namespace!r}")
    names = [d["metadata"]["name"] for d in m.of("Namespace")]
    if names != [m.namespace]:
        error(f"{m.rel}: defines the namespaces {names}, expected {m.namespace} alone")
    levels = POD_SECURITY[m.rel]
    for ns in m.of("Namespace"):
        labels = ns["metadata"].get("labels") or {}
        for mode, level in levels.items():
            got = labels.get(f"pod-security.kubernetes.io/{mode}")
            if got != level:
                error(f"Namespace/{ns['metadata']['name']}: Pod Security {mode} is {got!r}, "
                      f"not {level!r}")
    ok(f"{m.rel}: every namespaced object in {m.namespace}, which sets Pod Security "
       + ", ".join(f"{mode} {level}" for mode, level in levels.items()))


def check_workloads(m: Manifests, secrets: dict) -> None:
    config_maps = m.config_maps()
    deployments = m.of("Deployment")
    if not deployments:
        error(f"{m.rel}: no Deployment")
    for dep in deployments:
        name = f"Deployment/{dep['metadata']['name']}"
        spec = dep["spec"]
        pod = pod_spec(dep)
        if not selects(spec["selector"].get("matchLabels") or {}, pod_labels(dep)):
            error(f"{name}: selector does not match its pod labels")
        if pod.get("automountServiceAccountToken") is not False:
            error(f"{name}: automountServiceAccountToken is not false")
        for shared in ("hostNetwork", "hostPID", "hostIPC"):
            if pod.get(shared):
                error(f"{name}: {shared} is set")
        psc = pod.get("securityContext") or {}
        if psc.get("runAsNonRoot") is not True:
            error(f"{name}: pod securityContext.runAsNonRoot is not true")
        if not isinstance(psc.get("runAsUser"), int) or psc["runAsUser"] <= 0:
            error(f"{name}: pod securityContext.runAsUser is not a non-root uid")
        if (psc.get("seccompProfile") or {}).get("type") != "RuntimeDefault":
            error(f"{name}: pod seccompProfile is not RuntimeDefault")
        for c in pod.get("containers") or []:
            cname = f"{name} container {c.get('name')}"
            sc = c.get("securityContext") or {}
            if sc.get("readOnlyRootFilesystem") is not True:
                error(f"{cname}: readOnlyRootFilesystem is not true")
            if sc.get("allowPrivilegeEscalation") is not False:
                error(f"{cname}: allowPrivilegeEscalation is not false")
            if sc.get("privileged"):
                error(f"{cname}: privileged")
            if "ALL" not in ((sc.get("capabilities") or {}).get("drop") or []):
                error(f"{cname}: capabilities do not drop ALL")
            if (sc.get("capabilities") or {}).get("add"):
                error(f"{cname}: adds capabilities")
            res = c.get("resources") or {}
            for part in ("requests", "limits"):
                if not (res.get(part) or {}).get("memory"):
                    error(f"{cname}: no resources.{part}.memory")
            ports = container_ports(c)
            for probe in ("readinessProbe", "livenessProbe"):
                port = ((c.get(probe) or {}).get("httpGet") or {}).get("port")
                if port is None:
                    error(f"{cname}: no {probe} (httpGet)")
                elif port not in ports:
                    error(f"{cname}: {probe} uses port {port!r}, which it does not declare")
            for src in c.get("envFrom") or []:
                ref = (src.get("configMapRef") or {}).get("name")
                if ref and ref not in config_maps:
                    error(f"{cname}: envFrom ConfigMap {ref!r} is not defined in {m.rel}")
                if src.get("secretRef"):
                    error(f"{cname}: envFrom a Secret (name each key instead)")
            for env in c.get("env") or []:
                vf = env.get("valueFrom") or {}
                for kind, pool in (("secretKeyRef", secrets), ("configMapKeyRef", config_maps)):
                    ref = vf.get(kind)
                    if ref and ref.get("key") not in pool.get(ref.get("name"), {}):
                        error(f"{cname}: {env['name']} refers to {ref.get('name')}/"
                              f"{ref.get('key')}, which is not defined")
        if dep["metadata"]["name"] != ENGINE_WORKER:
            for v in pod.get("volumes") or []:
                if "hostPath" in v:
                    error(f"{name}: hostPath volume {v.get('name')!r} (only {ENGINE_WORKER} "
                          "may have one)")
    ok(f"{m.rel}: {len(deployments)} Deployments: non-root uid, seccomp RuntimeDefault, no host "
       "namespaces, no service account token, read-only root, no privilege escalation, ALL "
       "capabilities dropped, resources, probes on declared ports, ConfigMap and Secret "
       "references defined")

    for d in m.objects:
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
            declared = declared_ports(targets)
            for p in d["spec"].get("ports") or []:
                target = p.get("targetPort", p.get("port"))
                if target not in declared:
                    error(f"Service/{name}: targetPort {target!r} is not a port of its pods")
            # A run's requests must reach the worker that holds it, never a balanced one.
            if "gateway" in declared and d["spec"].get("clusterIP") != "None":
                error(f"Service/{name}: selects workers but is not headless (clusterIP: None)")
    ok(f"{m.rel}: every Service and PodDisruptionBudget selects a Deployment's pods, on "
       "declared ports; the workers' Services are headless")


def check_network_policies(m: Manifests) -> None:
    """A default deny for the whole namespace; every other policy selects a Deployment's pods,
    its ingress rules name ports those pods declare, and an ipBlock of every address leaves the
    private ranges out."""
    policies = m.of("NetworkPolicy")
    deny = [p for p in policies
            if not (p["spec"].get("podSelector") or {})
            and set(p["spec"].get("policyTypes") or []) == {"Ingress", "Egress"}
            and not p["spec"].get("ingress") and not p["spec"].get("egress")]
    if not deny:
        error(f"{m.rel}: no default-deny NetworkPolicy (podSelector {{}}, Ingress and Egress, "
              "no rules)")
    for p in policies:
        name = f"NetworkPolicy/{p['metadata']['name']}"
        for direction, side in (("ingress", "from"), ("egress", "to")):
            for rule in p["spec"].get(direction) or []:
                for peer in rule.get(side) or []:
                    block = peer.get("ipBlock") or {}
                    left_out = (PRIVATE.get(block.get("cidr"), set())
                                - set(block.get("except") or []))
                    if left_out:
                        error(f"{name}: {direction} to {block['cidr']} does not except "
                              f"{', '.join(sorted(left_out))}")
        if p in deny:
            continue
        selector = (p["spec"].get("podSelector") or {}).get("matchLabels") or {}
        targets = [d for d in m.of("Deployment")
                   if not selector or selects(selector, pod_labels(d))]
        if not targets:
            error(f"{name}: selects no Deployment's pods")
            continue
        if set(p["spec"].get("policyTypes") or []) != {"Ingress", "Egress"}:
            error(f"{name}: policyTypes must be Ingress and Egress")
        declared = declared_ports(targets)
        for rule in p["spec"].get("ingress") or []:
            for port in rule.get("ports") or []:
                if port.get("port") not in declared:
                    error(f"{name}: ingress port {port.get('port')!r} is not declared by its pods")
    ok(f"{m.rel}: a default-deny NetworkPolicy and {len(policies) - len(deny)} policies, each "
       "selecting a Deployment's pods, ingress on ports they declare; every all-addresses "
       "ipBlock leaves the private ranges out")


# --- the two directories together ------------------------------------------------------------

def policies_for(m: Manifests, dep: dict) -> list:
    """The NetworkPolicies of m that select dep's pods (a default deny included)."""
    chosen = []
    for p in m.of("NetworkPolicy"):
        selector = p["spec"].get("podSelector") or {}
        labels = selector.get("matchLabels") or {}
        everything = not labels and not selector.get("matchExpressions")
        if everything or selects(labels, pod_labels(dep)):
            chosen.append(p)
    return chosen


def opens(ports, wanted: set) -> bool:
    """Whether a rule's ports include one of `wanted` (no ports: every port)."""
    if not ports:
        return True
    for p in ports:
        port = p.get("port")
        if port is None or port in wanted:
            return True
        if isinstance(port, int) and p.get("endPort") and any(
                isinstance(w, int) and port <= w <= p["endPort"] for w in wanted):
            return True
    return False


def peer_is(peer: dict, policy_ns: str, dep: dict, dep_ns: str) -> bool:
    """Whether a policy peer admits dep's pods in dep_ns and nothing else."""
    if "ipBlock" in peer:
        return False
    ns_sel = peer.get("namespaceSelector")
    if ns_sel is None:
        ns = policy_ns
    else:
        labels = ns_sel.get("matchLabels") or {}
        if ns_sel.get("matchExpressions") or list(labels) != [NS_NAME]:
            return False
        ns = labels[NS_NAME]
    pod_sel = peer.get("podSelector")
    if pod_sel is None or pod_sel.get("matchExpressions"):
        return False
    return ns == dep_ns and selects(pod_sel.get("matchLabels") or {}, pod_labels(dep))


def check_gateways(base: Manifests, engine: Manifests) -> None:
    """Each worker's gateway takes connections from the API pods alone, and the API's policy
    lets it reach each."""
    api = base.deployment(API)
    if api is None:
        error(f"{BASE}: no {API} Deployment")
        return
    api_egress = [r for p in policies_for(base, api) for r in p["spec"].get("egress") or []]
    for m in (base, engine):
        name, _ = WORKERS[m.rel]
        dep = m.deployment(name)
        if dep is None:
            continue
        gateway = {p.get("containerPort") for c in pod_spec(dep).get("containers") or []
                   for p in c.get("ports") or [] if p.get("name") == "gateway"}
        if not gateway:
            error(f"{name}: declares no port named gateway")
            continue
        gateway.add("gateway")
        admitted = False
        for p in policies_for(m, dep):
            for rule in p["spec"].get("ingress") or []:
                if not opens(rule.get("ports"), gateway):
                    continue
                peers = rule.get("from") or []
                if not peers:
                    error(f"NetworkPolicy/{p['metadata']['name']}: {name}'s gateway is open to "
                          "any source")
                for peer in peers:
                    if not peer_is(peer, m.namespace, api, base.namespace):
                        error(f"NetworkPolicy/{p['metadata']['name']}: {name}'s gateway admits "
                              f"{json.dumps(peer)}, not only the {API} pods in {base.namespace}")
                admitted = True
        if not admitted:
            error(f"{m.rel}: no NetworkPolicy admits the {API} pods to {name}'s gateway")
        reaches = any(opens(rule.get("ports"), gateway) and
                      any(peer_is(peer, base.namespace, dep, m.namespace)
                          for peer in rule.get("to") or [])
                      for rule in api_egress)
        if not reaches:
            error(f"NetworkPolicy/{API}: no egress to {name}'s gateway in {m.namespace}")
    ok(f"each worker's gateway ({WORKER}, {ENGINE_WORKER}) takes connections from the {API} "
       "pods alone, and the API's policy reaches it")


def check_workers(base: Manifests, engine: Manifests) -> None:
    for m in (base, engine):
        name, docker = WORKERS[m.rel]
        dep, env = worker_env(m, name)
        if dep is None:
            error(f"{m.rel}: no {name} Deployment")
            continue
        if env.get("MCPBENCH_DOCKER") != docker:
            error(f"{name}: MCPBENCH_DOCKER is {env.get('MCPBENCH_DOCKER')!r}, not {docker!r}")
        budget = int(env.get("MCPBENCH_TIME_BUDGET_SECS", "120"))
        grace = pod_spec(dep).get("terminationGracePeriodSeconds", 30)
        if grace <= budget:
            error(f"{name}: terminationGracePeriodSeconds {grace} <= time budget {budget}")
        elif env.get("MCPBENCH_DOCKER") == docker:
            ok(f"{name}: MCPBENCH_DOCKER {docker}; terminationGracePeriodSeconds {grace} > time "
               f"budget {budget}s")


def check_engine(base: Manifests, engine: Manifests) -> None:
    """What the engine workers need beyond the base workers' hardening."""
    dep, env = worker_env(engine, ENGINE_WORKER)
    base_dep, base_env = worker_env(base, WORKER)
    if dep is None or base_dep is None:
        return
    pod = pod_spec(dep)
    container = (pod.get("containers") or [{}])[0]

    for key in ENGINE_SETTINGS:
        if not env.get(key):
            error(f"{ENGINE_WORKER}: {key} is not set")
    deployment = env.get("MCPBENCH_SANDBOX_DEPLOYMENT", "")
    if not re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}", deployment):
        error(f"{ENGINE_WORKER}: MCPBENCH_SANDBOX_DEPLOYMENT is not 1 to 64 letters, digits, "
              "'.', '_' or '-'")
    for key, value in base_env.items():
        if key not in ENGINE_OWN and env.get(key) != value:
            error(f"{ENGINE_WORKER}: {key} is {env.get(key, 'unset')!r}, but {value!r} for "
                  f"{WORKER} (keep {ENGINE}/configmap.yaml in step with {BASE}/configmap.yaml)")
    ok(f"{ENGINE_WORKER}: sets {', '.join(ENGINE_SETTINGS)}; every other setting as {WORKER}'s "
       f"but {', '.join(sorted(ENGINE_OWN))}")

    # The docker socket and the sandbox directory, each at the node's path; nothing else.
    sandbox = env.get("MCPBENCH_SANDBOX_DIR", "")
    host = {v["name"]: v["hostPath"] for v in pod.get("volumes") or [] if "hostPath" in v}
    want = {DOCKER_SOCKET: {"Socket"}, sandbox: {"DirectoryOrCreate", "Directory"}}
    paths = sorted(h.get("path") for h in host.values())
    if paths != sorted(want):
        error(f"{ENGINE_WORKER}: hostPath volumes {paths}, expected {DOCKER_SOCKET} and "
              f"MCPBENCH_SANDBOX_DIR ({sandbox!r}) alone")
    mounts = [mnt for c in pod.get("containers") or [] for mnt in c.get("volumeMounts") or []]
    for name, h in host.items():
        if h.get("path") in want and h.get("type") not in want[h.get("path")]:
            error(f"{ENGINE_WORKER}: hostPath {h.get('path')} has type {h.get('type')!r}, not "
                  f"{' or '.join(sorted(want[h.get('path')]))}")
        at = [mnt for mnt in mounts if mnt.get("name") == name]
        if not at:
            error(f"{ENGINE_WORKER}: hostPath volume {name} is not mounted")
        for mnt in at:
            if mnt.get("mountPath") != h.get("path") or mnt.get("subPath"):
                error(f"{ENGINE_WORKER}: hostPath {h.get('path')} is mounted at "
                      f"{mnt.get('mountPath')}{' (subPath)' if mnt.get('subPath') else ''}, not "
                      "at the same path (the engine must find the pods' sockets there)")
    ok(f"{ENGINE_WORKER}: hostPath {DOCKER_SOCKET} (Socket) and {sandbox} (MCPBENCH_SANDBOX_DIR) "
       "alone, each mounted at the same path")

    # Only on the dedicated nodes, one per node, with the socket's group.
    key, value = NODE_LABEL
    if (pod.get("nodeSelector") or {}).get(key) != value:
        error(f"{ENGINE_WORKER}: nodeSelector does not require {key}: {value}")
    if not any(t.get("key") == key and t.get("effect") in ("NoSchedule", None) and (
            t.get("operator") == "Exists" or
            (t.get("operator", "Equal") == "Equal" and t.get("value") == value))
            for t in pod.get("tolerations") or []):
        error(f"{ENGINE_WORKER}: no toleration of the taint {key}={value}:NoSchedule")
    anti = ((pod.get("affinity") or {}).get("podAntiAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution") or []
    spread = [s for s in pod.get("topologySpreadConstraints") or []
              if s.get("whenUnsatisfiable") == "DoNotSchedule" and s.get("maxSkew") == 1]
    if not any(t.get("topologyKey") == "kubernetes.io/hostname" and selects(
            (t.get("labelSelector") or {}).get("matchLabels") or {}, pod_labels(dep))
            for t in anti + spread):
        error(f"{ENGINE_WORKER}: nothing keeps it to one pod per node (a required "
              "podAntiAffinity or a DoNotSchedule spread on kubernetes.io/hostname)")
    groups = (pod.get("securityContext") or {}).get("supplementalGroups") or []
    if not groups or not all(isinstance(g, int) and g > 0 for g in groups):
        error(f"{ENGINE_WORKER}: supplementalGroups does not name the docker socket's group")
    ok(f"{ENGINE_WORKER}: nodeSelector {key}: {value} with its toleration, one pod per node, "
       f"supplementalGroups {groups}")

    # The worker image of the same release, as the same user.
    base_container = (pod_spec(base_dep).get("containers") or [{}])[0]
    image = str(container.get("image", "")).split("@")[0].rsplit(":", 1)[0]
    if container.get("image") != base_container.get("image"):
        error(f"{ENGINE_WORKER}: image {container.get('image')!r}, not {WORKER}'s "
              f"{base_container.get('image')!r}")
    for field in ("runAsUser", "runAsGroup"):
        mine = (pod.get("securityContext") or {}).get(field)
        theirs = (pod_spec(base_dep).get("securityContext") or {}).get(field)
        if mine != theirs:
            error(f"{ENGINE_WORKER}: {field} {mine}, not {WORKER}'s {theirs}")
    entries = {}
    for m in (base, engine):
        k = next((d for f, d in m.docs if d["kind"] == "Kustomization"), {})
        entries[m.rel] = next((i for i in k.get("images") or [] if i.get("name") == image), None)
    if entries[ENGINE] is None or entries[ENGINE] != entries[BASE]:
        error(f"{ENGINE}/kustomization.yaml: images entry for {image} is {entries[ENGINE]}, "
              f"not the base's {entries[BASE]}")
    ok(f"{ENGINE_WORKER}: {WORKER}'s image, user and kustomize images entry")

    # Its egress is the base workers': DNS, the database and store, public addresses.
    def egress(m, d):
        return [r for p in policies_for(m, d) for r in p["spec"].get("egress") or []]
    if egress(engine, dep) != egress(base, base_dep):
        error(f"{ENGINE_WORKER}: its NetworkPolicy egress differs from {WORKER}'s")
    else:
        ok(f"{ENGINE_WORKER}: NetworkPolicy egress as {WORKER}'s")


def check_rendered(root: Path, dirs: list) -> None:
    """With kubectl at hand, `kubectl kustomize` renders each directory into its objects, in
    its namespace, the two workers on one image."""
    kubectl = shutil.which("kubectl")
    if not kubectl:
        ok("kubectl is not installed: `kubectl kustomize` rendering not checked")
        return
    images = {}
    for m in dirs:
        try:
            r = subprocess.run([kubectl, "kustomize", str(root / m.rel)], capture_output=True,
                               text=True, timeout=120)
        except subprocess.TimeoutExpired:
            error(f"kubectl kustomize {m.rel}: timed out")
            continue
        if r.returncode != 0:
            error(f"kubectl kustomize {m.rel} fails: {r.stderr.strip()[-600:]}")
            continue
        rendered = [d for d in yaml.safe_load_all(r.stdout) if d]
        got = {(d["kind"], d["metadata"]["name"]) for d in rendered}
        want = {(d["kind"], d["metadata"]["name"]) for f, d in m.docs
                if d["kind"] != "Kustomization" and f != SECRET_EXAMPLE}
        if got != want:
            error(f"kubectl kustomize {m.rel}: renders {sorted(got ^ want)} unlike its files")
        for d in rendered:
            if d["kind"] not in CLUSTER_SCOPED and d["metadata"].get("namespace") != m.namespace:
                error(f"kubectl kustomize {m.rel}: {d['kind']}/{d['metadata']['name']} lands in "
                      f"{d['metadata'].get('namespace')!r}")
            if d["kind"] == "Deployment" and d["metadata"]["name"] in (WORKER, ENGINE_WORKER):
                images[d["metadata"]["name"]] = pod_spec(d)["containers"][0].get("image")
    if len(set(images.values())) > 1:
        error(f"kubectl kustomize: the workers' images differ: {images}")
    ok(f"kubectl kustomize renders {' and '.join(m.rel for m in dirs)}, each in its namespace, "
       f"the workers on one image ({', '.join(sorted(set(images.values())))})")


def check_kubernetes(root: Path) -> None:
    dirs = [load(root, BASE), load(root, ENGINE)]
    base, engine = dirs
    # The Secret is made by hand in each namespace with the keys of the example.
    secrets = {d["metadata"]["name"]: {**(d.get("data") or {}), **(d.get("stringData") or {})}
               for f, d in base.docs if f == SECRET_EXAMPLE and d["kind"] == "Secret"}
    if not secrets:
        error(f"{BASE}/{SECRET_EXAMPLE}: no Secret")
    for m in dirs:
        check_kustomization(root, m)
        check_namespace(m)
        check_workloads(m, secrets)
        check_network_policies(m)
    check_workers(base, engine)
    check_engine(base, engine)
    check_gateways(base, engine)
    check_rendered(root, dirs)
