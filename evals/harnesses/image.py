"""Build a harness spec's image: ``FROM looplab-sandbox``, packages installed on the host.

Containers are offline and a ``RUN pip install`` inside a build cannot verify the host's TLS
chain, so requirements are installed on the host (``pip install --target`` for CPython 3.11
manylinux wheels, ``npm install --prefix``) into a build context that the image copies in.
The image tag carries a hash of everything that goes into it (spec folder, Dockerfile, copied
project packages, base image id, install arguments): an unchanged spec is never rebuilt, and a
changed one always is. The rebuild is cheap where the change is: the Dockerfile's layers go
from the requirements (installed once per requirements content, then cached by Docker by what
they copy) to the spec folder last, so an edit to a launcher rebuilds one ``COPY``. A file lock
per spec lets parallel processes share one build.
"""

from __future__ import annotations

import compileall
import fcntl
import hashlib
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from evals.harnesses.spec import HOME_IN_IMAGE, REPO, SPECS_DIR, HarnessSpec, SpecError
from sandboxes.config import DEFAULT_IMAGE

BASE_IMAGE = DEFAULT_IMAGE
"""The sandbox image harness images are built on (``LOOPLAB_SANDBOX_IMAGE`` names another)."""
CACHE = REPO / ".sandbox-cache" / "harnesses"
DEFAULT_DOCKERFILE = SPECS_DIR / "Dockerfile.default"
PIP_TARGET_ARGS = ("--python-version", "3.11", "--implementation", "cp", "--only-binary=:all:",
                   "--platform", "manylinux2014_x86_64", "--platform", "manylinux_2_17_x86_64",
                   "--platform", "manylinux_2_28_x86_64", "--platform", "manylinux_2_34_x86_64")
"""The sandbox image's Python (Debian bookworm: CPython 3.11, glibc 2.36)."""
IMAGE_PYTHON = (3, 11)
_SKIP = {"__pycache__", ".pytest_cache", ".mypy_cache"}


class ImageError(RuntimeError):
    """A harness image that could not be built (the message names the spec and the step)."""


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.is_file() and not _SKIP & set(p.parts)
                  and p.suffix != ".pyc")


def _docker(*args: str, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)


def base_image_id(base: str = BASE_IMAGE) -> str:
    res = _docker("image", "inspect", "-f", "{{.Id}}", base, timeout=60)
    if res.returncode != 0:
        raise ImageError(f"base image {base} is missing: run `make sandbox` first")
    return res.stdout.strip()


def dockerfile_of(spec: HarnessSpec) -> Path:
    return spec.folder / spec.image.dockerfile if spec.image.dockerfile else DEFAULT_DOCKERFILE


def content_hash(spec: HarnessSpec, base_id: str) -> str:
    """Hash of everything the image is made of."""
    h = hashlib.sha256()
    h.update(f"{base_id}\n{PIP_TARGET_ARGS}\n".encode())
    sources = [spec.folder, dockerfile_of(spec), *(REPO / p for p in spec.image.project)]
    for root in sources:
        for path in _files(root):
            h.update(str(path.relative_to(root.parent)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def image_repo(spec: HarnessSpec, base: str = BASE_IMAGE) -> str:
    """``looplab-harness-<id>``; built from a sandbox image other than ``looplab-sandbox:latest``
    the repository names it too (``looplab-harness-<id>-<tag>``), so builds on several sandbox
    images on one engine never prune each other's images."""
    if base == "looplab-sandbox:latest":
        return f"looplab-harness-{spec.id}"
    name = base.removeprefix("looplab-sandbox:")
    return f"looplab-harness-{spec.id}-{re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')}"


def image_tag(spec: HarnessSpec, base_id: str | None = None) -> str:
    return f"{image_repo(spec)}:{content_hash(spec, base_id or base_image_id())}"


def image_present(tag: str) -> bool:
    return _docker("image", "inspect", tag, timeout=60).returncode == 0


def ensure_image(spec: HarnessSpec, log: bool = True) -> str:
    """The spec's image tag, building the image first if it is not there."""
    tag = image_tag(spec)
    if image_present(tag):
        return tag
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{spec.id}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building the same image
        if not image_present(tag):
            t0 = time.monotonic()
            _build(spec, tag)
            _prune(spec, tag)
            if log:
                print(f"looplab: built {tag} in {time.monotonic() - t0:.1f} s", file=sys.stderr)
    return tag


def _install_site(spec: HarnessSpec, ctx: Path) -> None:
    """``ctx/site``: the requirements, installed once per requirements content into
    ``site-<digest>/`` (specs with the same requirements share it) and hard-linked in."""
    site = ctx / "site"
    shutil.rmtree(site, ignore_errors=True)
    if not spec.image.requirements:
        site.mkdir()
        return
    req = spec.folder / spec.image.requirements
    digest = hashlib.sha256(req.read_bytes() + str(PIP_TARGET_ARGS).encode()).hexdigest()[:16]
    shared = CACHE / f"site-{digest}"
    if not (shared / ".complete").exists():
        shutil.rmtree(shared, ignore_errors=True)
        cmd = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
               "--no-compile", "--target", str(shared), *PIP_TARGET_ARGS, "-r", str(req)]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if res.returncode != 0:
            raise ImageError(f"harness {spec.id}: pip install of {req} failed: {res.stderr[-1500:]}")
        (shared / ".complete").touch()
    # hard links: no copy of hundreds of MB (a plain copy where links are not possible)
    if subprocess.run(["cp", "-al", str(shared), str(site)], capture_output=True).returncode != 0:
        shutil.copytree(shared, site)
    (site / ".complete").unlink(missing_ok=True)


def _install_npm(spec: HarnessSpec, ctx: Path) -> None:
    npm_dir = ctx / "npm"
    if not spec.image.npm:
        npm_dir.mkdir(exist_ok=True)
        return
    digest = hashlib.sha256("\n".join(spec.image.npm).encode()).hexdigest()[:16]
    marker = ctx / f".npm-{digest}"
    if marker.exists() and npm_dir.is_dir():
        return
    shutil.rmtree(npm_dir, ignore_errors=True)
    npm_dir.mkdir()
    res = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(npm_dir),
                          *spec.image.npm], capture_output=True, text=True, timeout=1800)
    if res.returncode != 0:
        raise ImageError(f"harness {spec.id}: npm install {' '.join(spec.image.npm)} failed: "
                         f"{res.stderr[-1500:]}")
    marker.touch()


def build_context(spec: HarnessSpec) -> Path:
    """``.sandbox-cache/harnesses/<id>/``: ``spec/`` (the folder), ``site/``, ``npm/``,
    ``project/`` (copied looplab packages)."""
    ctx = CACHE / spec.id
    ctx.mkdir(parents=True, exist_ok=True)
    _install_site(spec, ctx)
    _install_npm(spec, ctx)
    for name in ("spec", "project"):
        shutil.rmtree(ctx / name, ignore_errors=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(spec.folder, ctx / "spec", ignore=ignore)
    if sys.version_info[:2] == IMAGE_PYTHON:  # the image copies them last, with no RUN after
        compileall.compile_dir(ctx / "spec", quiet=2)
    (ctx / "project").mkdir()
    for package in spec.image.project:
        if not (REPO / package).is_dir():
            raise SpecError(f"harness {spec.id}: image.project: no package {package!r} in {REPO}")
        shutil.copytree(REPO / package, ctx / "project" / package, ignore=ignore)
    (ctx / ".dockerignore").write_text(".npm-*\n", encoding="utf-8")
    return ctx


def _prune(spec: HarnessSpec, keep: str) -> None:
    """Remove this spec's superseded images (an image a container still uses is kept)."""
    repo = keep.split(":")[0]
    res = _docker("images", repo, "--format", "{{.Repository}}:{{.Tag}}", timeout=60)
    for old in set(res.stdout.split()) - {keep}:
        _docker("rmi", old, timeout=120)


def _build(spec: HarnessSpec, tag: str) -> None:
    ctx = build_context(spec)
    res = _docker("build", "-q", "-t", tag, "-f", str(dockerfile_of(spec)),
                  "--build-arg", f"BASE_IMAGE={BASE_IMAGE}",
                  "--build-arg", f"HARNESS_HOME={HOME_IN_IMAGE}",
                  "--label", f"looplab.harness={spec.id}", str(ctx))
    if res.returncode != 0:
        raise ImageError(f"harness {spec.id}: docker build failed: {res.stderr[-1500:]}")
