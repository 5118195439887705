"""SANDBOX=k8s without a cluster: the Helm values carry the Docker sandbox's hardening, from the
same config; they satisfy the chart's own schema; a machine without a cluster is refused with
what is missing, before anything runs."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest
import yaml

from sandboxes.config import DockerSandboxConfig
from sandboxes.k8s_values import k8s_memory, k8s_values, missing_prerequisites, write_values

ROOT = Path(__file__).resolve().parents[2]


def test_values_carry_the_docker_hardening_from_the_same_config():
    config = DockerSandboxConfig(memory="512m", cpus=0.5, cap_add=("CHOWN",), env={"A": "1"})
    v = k8s_values(config)
    svc = v["services"]["default"]
    assert svc["resources"]["limits"] == {"memory": "512Mi", "cpu": "0.5"}
    assert svc["resources"]["requests"] == svc["resources"]["limits"]
    sc = svc["securityContext"]
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"] == {"drop": ["ALL"], "add": ["CHOWN"]}
    assert svc["workingDir"] == "/workspace" and svc["env"] == [{"name": "A", "value": "1"}]
    assert v["allowEntities"] == [] and v["automountServiceAccountToken"] is False
    assert k8s_values(DockerSandboxConfig(network=True))["allowEntities"] == ["world"]


def test_values_follow_the_config_not_a_copy_of_it():
    default = k8s_values(DockerSandboxConfig())["services"]["default"]
    assert default["resources"]["limits"]["memory"] == k8s_memory(DockerSandboxConfig().memory)
    assert default["securityContext"]["capabilities"]["add"] == list(DockerSandboxConfig().cap_add)
    assert k8s_memory("1g") == "1024Mi" and k8s_memory("1.5g") == "1536Mi"
    with pytest.raises(ValueError, match="notation"):
        k8s_memory("lots")


def test_values_file_is_named_by_its_content(tmp_path: Path):
    a = write_values(k8s_values(DockerSandboxConfig()), tmp_path)
    b = write_values(k8s_values(DockerSandboxConfig()), tmp_path)
    c = write_values(k8s_values(DockerSandboxConfig(memory="2g")), tmp_path)
    assert a == b != c and a.read_text().startswith("allowEntities")


def test_values_satisfy_the_charts_schema():
    pytest.importorskip("k8s_sandbox", reason="inspect-k8s-sandbox not installed")
    import jsonschema

    chart = files("k8s_sandbox") / "resources" / "helm" / "agent-env"
    schema = json.loads((chart / "values.schema.json").read_text())
    # Helm validates the chart's defaults merged with ours (maps merge key by key).
    merged = _merge(yaml.safe_load((chart / "values.yaml").read_text()),
                    k8s_values(DockerSandboxConfig()))
    jsonschema.validate(merged, schema)
    assert merged["services"]["default"]["securityContext"]["capabilities"]["drop"] == ["ALL"]


def _merge(base: dict, top: dict) -> dict:
    out = dict(base)
    for k, v in top.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def test_no_cluster_is_refused_naming_what_is_missing(tmp_path: Path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "KUBECONFIG": str(tmp_path / "none")}
    res = subprocess.run([sys.executable, "-m", "evals", "run", "--sandbox", "k8s",
                          "--scenarios", "loop-repeat-failing-command", "--configs", "naive"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert res.returncode == 2, res.stderr
    assert "sandbox=k8s needs" in res.stderr and "a cluster" in res.stderr
    assert "helm" in res.stderr and "sandboxes/README.md" in res.stderr
    assert "Traceback" not in res.stderr


def test_missing_prerequisites_lists_a_cluster(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "none"))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    assert any("cluster" in m for m in missing_prerequisites())
