"""`SANDBOX=k8s`: the looplab sandbox on a Kubernetes cluster through `inspect-k8s-sandbox`.

The Helm values for its `agent-env` chart are generated from the same `DockerSandboxConfig` the
Docker sandbox uses, so both carry the same hardening: no network (the chart's Cilium policy
with no allowed domain), all capabilities dropped but the config's `cap_add`, no privilege
escalation, the same memory and CPU limits, working directory and environment. What a pod
spec cannot say is set on the cluster instead (sandboxes/README.md): the process limit
(`pids_limit`) is the kubelet's `podPidsLimit`.

Nothing here imports `k8s_sandbox` or `kubernetes`: values are plain data, testable anywhere;
`k8s_spec` checks the prerequisites and refuses, naming what is missing, before anything runs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import yaml

from .config import DockerSandboxConfig

K8S_SANDBOX = "k8s"
"""inspect-k8s-sandbox's sandbox name."""
IMAGE_ENV = "LOOPLAB_K8S_IMAGE"
"""The sandbox image as the cluster pulls it (e.g. registry.example/looplab-sandbox:<tag>)."""
RUNTIME_ENV = "LOOPLAB_K8S_RUNTIME"
"""Container runtime class for sandbox pods (the chart's default is gvisor)."""
CONTEXT_ENV = "LOOPLAB_K8S_CONTEXT"
"""kubeconfig context to use (default: the current one)."""
_MEMORY = re.compile(r"^(?P<n>[0-9]+(?:\.[0-9]+)?)(?P<unit>[bkmg]?)$", re.IGNORECASE)
_UNIT = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


class K8sUnavailableError(RuntimeError):
    """SANDBOX=k8s cannot run here; the message says what is missing and how to get it."""


def k8s_memory(docker_memory: str) -> str:
    """Docker's `1g` / `512m` (binary units) as a Kubernetes quantity (`1Gi` / `512Mi`)."""
    m = _MEMORY.match(docker_memory)
    if not m:
        raise ValueError(f"memory {docker_memory!r} is not in Docker's notation (512m, 1g)")
    mib = float(m["n"]) * _UNIT[m["unit"].lower()] / (1 << 20)
    return f"{int(mib)}Mi" if mib.is_integer() else f"{int(mib * (1 << 20))}"


def k8s_values(config: DockerSandboxConfig, image: str | None = None,
               runtime: str | None = None) -> dict[str, Any]:
    """Helm values for inspect-k8s-sandbox's `agent-env` chart, hardened like the container
    `docker_engine` creates from the same `config`."""
    limits = {"memory": k8s_memory(config.memory), "cpu": str(config.cpus)}
    service: dict[str, Any] = {
        "image": image or os.environ.get(IMAGE_ENV) or config.image,
        "command": ["tail", "-f", "/dev/null"],
        "workingDir": config.workdir,
        "env": [{"name": k, "value": v} for k, v in config.env],
        # Requests equal to limits: the pod gets what a Docker sandbox gets, no more, no less.
        "resources": {"requests": dict(limits), "limits": limits},
        "securityContext": {
            "allowPrivilegeEscalation": False,  # Docker: no-new-privileges
            "capabilities": {"drop": ["ALL"], "add": list(config.cap_add)},
            "seccompProfile": {"type": "RuntimeDefault"},
        },
    }
    if runtime or os.environ.get(RUNTIME_ENV):
        service["runtimeClassName"] = runtime or os.environ[RUNTIME_ENV]
    values: dict[str, Any] = {
        "services": {"default": service},
        "automountServiceAccountToken": False,  # no cluster credentials inside the sandbox
        "labels": {"app.kubernetes.io/part-of": "looplab"},
    }
    # network=False: the chart's network policy with nothing allowed (only the pod itself).
    values["allowEntities"] = ["world"] if config.network else []
    return values


def write_values(values: dict[str, Any], directory: Path | None = None) -> Path:
    """The values as a YAML file named by their content (the same config, the same file)."""
    text = yaml.safe_dump(values, sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    directory = directory or Path(tempfile.gettempdir()) / "looplab-k8s"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"values-{digest}.yaml"
    if not path.exists():
        path.write_text(text, encoding="utf-8")
    return path


def missing_prerequisites() -> list[str]:
    """What SANDBOX=k8s lacks on this machine: the package, helm, a cluster to talk to."""
    missing = []
    if importlib.util.find_spec("k8s_sandbox") is None:
        missing.append("the inspect-k8s-sandbox package (`.venv/bin/pip install "
                       "'inspect-k8s-sandbox>=0.14,<0.15'`)")
    if shutil.which("helm") is None:
        missing.append("the helm CLI (>= 3.13) on PATH")
    if not _has_kubeconfig():
        missing.append("a cluster: no kubeconfig (KUBECONFIG or ~/.kube/config) and not "
                       "running inside a cluster")
    return missing


def _has_kubeconfig() -> bool:
    if os.environ.get("KUBERNETES_SERVICE_HOST"):
        return True
    paths = os.environ.get("KUBECONFIG", str(Path.home() / ".kube" / "config"))
    return any(Path(p).is_file() for p in paths.split(os.pathsep) if p)


def k8s_spec(config: DockerSandboxConfig | None = None) -> Any:
    """inspect's sandbox spec for `k8s` with looplab's hardened values; raises
    `K8sUnavailableError` naming every missing prerequisite (nothing has run yet)."""
    missing = missing_prerequisites()
    if missing:
        raise K8sUnavailableError(
            "sandbox=k8s needs " + "; ".join(missing) + ". Step by step: sandboxes/README.md "
            "(Kubernetes). Without a cluster use sandbox=docker.")
    from inspect_ai.util import SandboxEnvironmentSpec
    from k8s_sandbox import K8sSandboxEnvironmentConfig

    values = write_values(k8s_values(config or DockerSandboxConfig()))
    return SandboxEnvironmentSpec(K8S_SANDBOX, K8sSandboxEnvironmentConfig(
        values=values, context=os.environ.get(CONTEXT_ENV) or None))
