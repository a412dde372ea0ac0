#!/usr/bin/env bash
# Usage: scripts/run-demo.sh path/to/kforge [demo-config]
# Starts the scripted model server on a free port with its built-in demo script, sends one `kforge ask`
# through a demo configuration (default configs/demo/qwen-coder-vllm.json), stops the server, and exits
# with the status of `kforge ask` (3 when the server could not be started).
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 path/to/kforge [demo-config]" >&2
  exit 2
fi
kforge=$(realpath "$1")
config=${2:-configs/demo/qwen-coder-vllm.json}
[ -e "$config" ] && config=$(realpath "$config")
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -x "$kforge" ] || { echo "run-demo: $kforge is not an executable; build kforge first" >&2; exit 2; }

workdir=$(mktemp -d "${TMPDIR:-/tmp}/kforge-demo.XXXXXX")
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$kforge" mock-server --port 0 --port-file "$workdir/port" --log "$workdir/requests.jsonl" >"$workdir/server.out" 2>&1 &
server_pid=$!
for _ in $(seq 1 200); do
  [ -s "$workdir/port" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    cat "$workdir/server.out" >&2
    echo "run-demo: the mock server exited before listening" >&2
    exit 3
  fi
  sleep 0.05
done
[ -s "$workdir/port" ] || { echo "run-demo: the mock server did not report its port within 10 s" >&2; exit 3; }
port=$(cat "$workdir/port")
echo "run-demo: scripted model server listening on http://127.0.0.1:$port"
echo "run-demo: kforge ask --config $config"

status=0
KFORGE_MOCK_URL="http://127.0.0.1:$port" "$kforge" ask --config "$config" \
  "Write a CUDA kernel for an elementwise ReLU over a float32 tensor." || status=$?
exit "$status"
