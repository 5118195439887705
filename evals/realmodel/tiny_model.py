"""Create a tiny random-weight Llama model directory that vLLM can serve, with no download: a
byte-level BPE tokenizer trained here on the project's own prompt texts, a two-layer model with
seeded random weights, and the Hermes-style tool chat template. It produces gibberish; it is
for exercising the real serving path (vLLM, tool parser, prefix cache, fault proxy), not tasks.

Needs torch, transformers and tokenizers: run it with the vLLM environment's Python.

    .venv-vllm/bin/python evals/realmodel/tiny_model.py OUT_DIR
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = Path(__file__).parent / "templates" / "hermes_tool_chat.jinja"
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]


def corpus() -> list[str]:
    """Training text for the tokenizer: whatever prose the repository has (prompts, docs)."""
    files = [*sorted((ROOT / "harness" / "prompts").glob("*.md")), ROOT / "README.md"]
    return [f.read_text(encoding="utf-8") for f in files if f.exists()] or ["hello world"]


def build(out: Path, vocab_size: int = 2048, seed: int = 0) -> None:
    # these live in the vLLM environment only (.venv-vllm), not in looplab's
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(corpus(), trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|im_start|>",
                                   eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   unk_token="<|endoftext|>")
    fast.chat_template = TEMPLATE.read_text(encoding="utf-8")
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(fast), hidden_size=128, intermediate_size=256, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=2,  # head size 64: supported by vLLM on CPU
        max_position_embeddings=16384, bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id, tie_word_embeddings=True,
    )
    model = LlamaForCausalLM(config).to(torch.float32)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    fast.save_pretrained(out)
    shutil.copyfile(TEMPLATE, out / "tool_chat_template.jinja")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="tiny_model.py", description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    build(args.out, seed=args.seed)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
