"""Reads `kforge profile` outputs and the workloads' own result lines, and prints (1) the cross-check of the
profiler against CUDA-event timing of the same region and (2) the breakdown tables as Markdown.

usage: crosscheck.py DIR    (DIR holds NAME.json profiles and NAME.log outputs of `kforge profile`)

Cross-check definitions (both inside the marked region, both on the GPU):
  span  = last activity end - first activity start seen by the injection library (CUPTI timestamps)
  event = elapsed time between CUDA events recorded just before the first and just after the last step
  busy  = union of activity intervals (CUPTI)
For every workload span must match event within 5%; for the calibration workload (back-to-back matrix
products, no idle time) busy must match event within 5% as well."""
import glob
import json
import os
import sys

CLASSES = ["gemm_conv", "attention", "embedding", "index_sort", "norm_softmax", "elementwise_reduction", "other",
           "copy", "communication", "idle"]
SHORT = {"gemm_conv": "GEMM/conv", "attention": "attention", "embedding": "embedding", "index_sort": "index/sort",
         "norm_softmax": "norm/softmax", "elementwise_reduction": "elementwise/red.", "other": "other",
         "copy": "copy", "communication": "comm.", "idle": "idle"}


def workload_line(log_path):
    with open(log_path, errors="replace") as f:
        for line in f:
            if line.startswith("KFORGE_WORKLOAD "):
                return json.loads(line[len("KFORGE_WORKLOAD "):])
    return None


def main(d):
    rows = []
    for path in sorted(glob.glob(os.path.join(d, "*.json"))):
        name = os.path.splitext(os.path.basename(path))[0]
        prof = json.load(open(path))
        wl = workload_line(os.path.join(d, name + ".log")) or {}
        rows.append((name, prof, wl))
    ok = True
    print("cross-check: CUPTI (injection library) against CUDA events, measured region only")
    print(f"{'workload':<22}{'source':<9}{'wall ms':>10}{'event ms':>10}{'span ms':>10}{'busy ms':>10}"
          f"{'span/ev':>9}{'busy/ev':>9}{'kernels':>9}{'dropped':>8}  check")
    for name, p, wl in rows:
        ev = wl.get("event_ms")
        span, busy = p["gpu_span_ms"], p["busy_ms"]
        r_span = span / ev - 1 if ev else float("nan")
        r_busy = busy / ev - 1 if ev else float("nan")
        good = ev is not None and abs(r_span) < 0.05
        if name.startswith("calibration"):
            good = good and abs(r_busy) < 0.05
        ok &= good
        print(f"{name:<22}{p['region_source']:<9}{p['wall_ms']:>10.2f}{(ev or 0):>10.2f}{span:>10.2f}{busy:>10.2f}"
              f"{100 * r_span:>8.2f}%{100 * r_busy:>8.2f}%{p['kernel_count']:>9}{p['dropped_records']:>8}  "
              f"{'ok' if good else 'FAIL'}")
    print("cross-check:", "all within 5%" if ok else "FAILED")
    print()
    head = "| workload | region ms | " + " | ".join(SHORT[c] for c in CLASSES) + \
        " | core (addressable) | vendor | not addressable |"
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    for name, p, wl in rows:
        if name.startswith("calibration"):
            continue
        shares = {c["class"]: c["share"] for c in p["classes"]}
        tiers = p["tiers"]
        cells = [f"{100 * shares.get(c, 0):.1f}%" for c in CLASSES]
        print(f"| {name} | {p['wall_ms']:.1f} | " + " | ".join(cells) +
              f" | **{100 * p['addressable_fraction']:.1f}%** | {100 * tiers['vendor']['share']:.1f}% | "
              f"{100 * tiers['not_addressable']['share']:.1f}% |")
    print()
    for name, p, wl in rows:
        if name.startswith("calibration"):
            continue
        print(f"{name}: top kernels")
        for k in p["kernels"][:5]:
            kn = k["name"] if len(k["name"]) < 110 else k["name"][:107] + "..."
            print(f"  {100 * k['share']:5.1f}%  {k['class']:<22} {kn}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
