#!/usr/bin/env bash
# Usage: scripts/run-demo.sh path/to/kforge [--backend cuda|host] [--configs DIR] [--out DIR]
# The demo campaign: starts the scripted model server on a free port, answering known-correct kernels for
# the three demo problems in configs/problems/demo/ (CUDA kernels when a GPU is present, host C++ kernels
# otherwise; in kf_forward's and in KernelBench's format), runs every configuration in --configs (default
# configs/demo: the five demo configurations; configs/demo-kernelbench: one model asked in both formats)
# over them with `kforge run`, then prints `kforge report`. Exit status: that of `kforge run` (3 when the
# server could not be started).
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 path/to/kforge [--backend cuda|host] [--configs DIR] [--out DIR]" >&2
  exit 2
fi
kforge=$(realpath "$1")
shift
backend=""
configs_dir=""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) backend=$2; shift 2 ;;
    --configs) configs_dir=$(realpath "$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "run-demo: unknown argument $1" >&2; exit 2 ;;
  esac
done
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -x "$kforge" ] || { echo "run-demo: $kforge is not an executable; build kforge first" >&2; exit 2; }
if [ -z "$backend" ]; then
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then backend=cuda; else backend=host; fi
fi
case "$backend" in
  cuda) script=configs/problems/demo/mock-cuda.json ;;
  host) script=configs/problems/demo/mock-host.json ;;
  *) echo "run-demo: --backend must be cuda or host" >&2; exit 2 ;;
esac
configs_dir=${configs_dir:-configs/demo}
[ -d "$configs_dir" ] || { echo "run-demo: --configs $configs_dir is not a folder" >&2; exit 2; }
out=${out:-runs/$(basename "$configs_dir")-$backend-$(date -u +%Y%m%d-%H%M%S)}

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

"$kforge" mock-server --script "$script" --port 0 --port-file "$workdir/port" \
  --log "$workdir/requests.jsonl" >"$workdir/server.out" 2>&1 &
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
echo "run-demo: scripted model server listening on http://127.0.0.1:$port ($script)"

configs=()
for c in "$configs_dir"/*.json; do configs+=(--config "$c"); done
echo "run-demo: kforge run ${configs[*]} --problems configs/problems/demo --backend $backend --out $out"
status=0
KFORGE_MOCK_URL="http://127.0.0.1:$port" "$kforge" run "${configs[@]}" --problems configs/problems/demo \
  --backend "$backend" --out "$out" --no-progress || status=$?
echo
"$kforge" report "$out" || true
exit "$status"
