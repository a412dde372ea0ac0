#!/usr/bin/env bash
# One device run (see docs/evaluator.md, "GPU tests and benchmark"): the evaluator's GPU tests, then the
# latency benchmark, then a short table. Expects, in the repository root, a bundle made by
#   /work/shared/tools/device-bundle .bundle build-evaluator/kforge \
#       build-evaluator/kforge-runner \
#       build-evaluator/tests/evaluator/evaluator_gpu_test
# and the KernelBench copy in .shared/kernelbench (both carried).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=${OUT:-/tmp/kforge-eval-out}
mkdir -p "$out"
export KFORGE_DATA_DIR=$root KFORGE_SOURCE_DIR=$root KFORGE_RUNNER=$root/.bundle/bin/kforge-runner
export KFORGE_KERNELBENCH_LEVEL1=$root/.shared/kernelbench/level1
export KFORGE_PYTHON=${KFORGE_PYTHON:-python3}
export KFORGE_TEST_CACHE_DIR=$(mktemp -d)
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
which nvcc || export PATH=/usr/local/cuda/bin:$PATH
export CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
.bundle/bin/evaluator_gpu_test 2>&1 | tee "$out/gpu_test.log"
grep -E "GPUFIG|FAILED|PASSED|SKIPPED" "$out/gpu_test.log" >"$out/gpu_summary.txt"
kforge_bin=.bundle/bin/kforge
# Without a full kforge build, the evaluator-only CLI driver (same eval handler) stands in.
if [ -x "$kforge_bin" ]; then
  echo "latency benchmark with $kforge_bin"
  bench/eval_latency.sh --kforge "$kforge_bin" --level1 "$KFORGE_KERNELBENCH_LEVEL1" --out "$out/latency.json" 2>&1 |
    tee "$out/latency.txt"
else
  echo "no kforge in .bundle: CLI latency benchmark skipped (GPUFIG lines carry in-process compile_s/eval_s)" | tee "$out/latency.txt"
fi
echo "==== gpu test figures"
cat "$out/gpu_summary.txt"
echo "==== latency"
cat "$out/latency.txt"
