#!/usr/bin/env bash
# Profiles the seven workloads and the calibration workload with `kforge profile` and cross-checks the
# profiler against CUDA events. usage: run_on_device.sh KFORGE_BINARY OUTDIR
# Run from the repository root on a machine with an NVIDIA GPU (the H200 of docs/profiler.md).
set -u
kforge=$1
out=$2
mkdir -p "$out"
export KFORGE_DATA_DIR=${KFORGE_DATA_DIR:-$PWD}
export PYTHONUNBUFFERED=1
py=${KFORGE_PYTHON:-python3}
# libcupti: the one torch's wheels ship first, then the toolkit's.
cupti_dirs=$($py - <<'PY'
import glob, os, site
seen = []
for base in site.getsitepackages():
    for f in glob.glob(os.path.join(base, "nvidia", "**", "libcupti.so*"), recursive=True):
        d = os.path.dirname(f)
        if d not in seen:
            seen.append(d)
print(":".join(seen))
PY
)
export LD_LIBRARY_PATH="${cupti_dirs:+$cupti_dirs:}/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
w=profiler/workloads
declare -a names=(calibration gpt2-small-train llama-1b-infer llama-8b-infer dlrm-train dlrm-infer resnet50-train vit-b16-infer)
declare -A cmds=(
  [calibration]="$w/calibrate.py"
  [gpt2-small-train]="$w/gpt2_train.py"
  [llama-1b-infer]="$w/llama_infer.py --size 1b"
  [llama-8b-infer]="$w/llama_infer.py --size 8b"
  [dlrm-train]="$w/dlrm.py --mode train"
  [dlrm-infer]="$w/dlrm.py --mode infer"
  [resnet50-train]="$w/resnet50_train.py"
  [vit-b16-infer]="$w/vit_infer.py"
)
for n in "${names[@]}"; do
  echo "=== $n"
  start=$(date +%s)
  # shellcheck disable=SC2086
  "$kforge" profile --out "$out/$n.json" --top 8 --max-kernels 100 -- timeout "${KFORGE_WORKLOAD_TIMEOUT:-200}" $py ${cmds[$n]} > "$out/$n.log" 2>&1
  echo "exit $? after $(( $(date +%s) - start )) s"
  grep -E "^KFORGE_WORKLOAD|addressable fraction|warning|error|kforge-cupti" "$out/$n.log" | cut -c1-300
done
$py $w/crosscheck.py "$out"
