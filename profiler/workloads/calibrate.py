"""Cross-check workload: back-to-back bf16 matrix products on one stream, so that the GPU is never idle inside
the measured region and the profiler's busy time must equal the CUDA-event time of the same steps."""
import torch

import kforge_workload as kw


def main():
    p = kw.base_parser(__doc__)
    p.add_argument("--n", type=int, default=8192)
    args = p.parse_args()
    dev = kw.device_for(args)
    n = 128 if args.smoke else args.n
    dtype = torch.bfloat16 if dev.type == "cuda" else torch.float32
    a = torch.randn(n, n, device=dev, dtype=dtype)
    b = torch.randn(n, n, device=dev, dtype=dtype)
    c = torch.empty(n, n, device=dev, dtype=dtype)

    def step():
        for _ in range(10):
            torch.matmul(a, b, out=c)

    kw.run("calibration-gemm", args, step, args.warmup or 3, args.steps or 10, {"n": n})


if __name__ == "__main__":
    main()
