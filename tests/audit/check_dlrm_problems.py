"""Loads every DLRM-Bench problem, runs its reference and checks the KernelBench contract.

Usage: python3 check_dlrm_problems.py PROBLEM_DIR [--full NAME_SUBSTRING ...]
By default each problem runs at the tiny sizes below (CI: seconds, CPU); --full runs the named problems at
their real sizes (minutes and GBs of RAM on a CPU). Prints one line per problem; exit 1 on any failure.
Checks: Model/get_inputs/get_init_inputs exist; forward arguments are tensors; integer inputs stay
integer; the same seed gives identical inputs and outputs; outputs are tensors and finite; a different seed
gives the same shapes (for problem 13: different input shapes, the same output shapes); counts bytes.
"""
import argparse
import importlib.util
import pathlib
import sys
import time

import torch

# Module-level size overrides that keep every reference tiny (the files read their sizes from globals).
TINY = {
    "1_": dict(num_embeddings=1000, batch_size=16, total_ids=80),
    "2_": dict(num_embeddings=1000, batch_size=16, total_ids=80),
    "3_": dict(row_cap=100, batch_size=4),
    "4_": dict(num_rows=1000, embedding_dim=8, num_distinct=64, num_extra_lookups=192),
    "5_": dict(batch_size=4, embedding_dim=8),
    "6_": dict(batch_size=4, input_dim=48, rank=8),
    "7_": dict(batch_size=8),
    "8_": dict(num_rows=64),
    "9_": dict(batch_size=4, max_length=8, embedding_dim=4, total_values=24),
    "10_": dict(num_ids=1000),
    "11_": dict(batch_size=4, embedding_dim=8),
    "12_": dict(num_queries=4, num_items=512, embedding_dim=8),
    "13_": dict(num_embeddings=1000, batch_size=16, max_bag_length=8),
}
# Problems whose input shapes depend on the seed on purpose (their outputs' shapes do not).
SEED_DEPENDENT_INPUTS = {"13_"}


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def as_list(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def run_once(module, seed):
    torch.manual_seed(seed)
    init = module.get_init_inputs()
    torch.manual_seed(seed)
    model = module.Model(*init)
    torch.manual_seed(seed)
    inputs = module.get_inputs()
    with torch.no_grad():
        outputs = as_list(model(*inputs))
    return model, inputs, outputs


def nbytes(tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


def hash_reference(raw, table_rows, rows_per_shard):
    mask64 = (1 << 64) - 1
    h = (raw * 0x9E3779B97F4A7C15) & mask64
    h ^= h >> 31
    h = (h * 0xBF58476D1CE4E5B9) & mask64
    h ^= h >> 29
    h &= (1 << 63) - 1
    bucket = h % table_rows
    return bucket // rows_per_shard, bucket % rows_per_shard


def check(path, full):
    module = load(path)
    prefix = path.name.split("_")[0] + "_"
    if not full:
        for name, value in TINY.get(prefix, {}).items():
            assert hasattr(module, name), f"{path.name}: no module global {name}"
            setattr(module, name, value)
    for name in ("Model", "get_inputs", "get_init_inputs"):
        assert hasattr(module, name), f"{path.name}: missing {name}"
    assert getattr(module, "KFORGE_CATEGORY", None) == "recommender", f"{path.name}: KFORGE_CATEGORY"
    assert module.Model.__doc__ and module.__doc__ and "footprint" in module.__doc__, \
        f"{path.name}: docstring must describe the operator and its footprint"
    start = time.time()
    model, inputs, outputs = run_once(module, 42)
    elapsed = time.time() - start
    for i, t in enumerate(inputs):
        assert isinstance(t, torch.Tensor), f"{path.name}: input {i} is not a tensor"
    for i, t in enumerate(outputs):
        assert isinstance(t, torch.Tensor), f"{path.name}: output {i} is not a tensor"
        if t.is_floating_point():
            assert torch.isfinite(t).all(), f"{path.name}: output {i} is not finite"
    if full:  # at real sizes one run is enough (and already slow on a CPU)
        report(path, model, inputs, outputs, elapsed)
        return
    _, inputs2, outputs2 = run_once(module, 42)
    for a, b in zip(inputs + outputs, inputs2 + outputs2):
        assert a.dtype == b.dtype and a.shape == b.shape, f"{path.name}: shapes differ between runs"
        assert torch.equal(a, b) or (a.is_floating_point() and torch.allclose(a, b, rtol=1e-5, atol=1e-6)), \
            f"{path.name}: same seed, different values"
    _, inputs3, outputs3 = run_once(module, 7)
    if prefix in SEED_DEPENDENT_INPUTS:
        assert [t.shape for t in inputs3] != [t.shape for t in inputs], f"{path.name}: shapes should vary"
        offsets = inputs[1]
        assert int(offsets[0]) == 0 and int(offsets[-1]) == inputs[0].shape[0], f"{path.name}: offsets"
    else:
        assert [t.shape for t in inputs3] == [t.shape for t in inputs], f"{path.name}: shapes depend on the seed"
    assert [t.shape for t in outputs3] == [t.shape for t in outputs], f"{path.name}: shapes depend on the seed"
    if prefix == "10_":
        raw = inputs[0][:200].tolist()
        shard, local = outputs[0][:200].tolist(), outputs[1][:200].tolist()
        for r, s, l in zip(raw, shard, local):
            assert (s, l) == hash_reference(r, model.table_rows, model.rows_per_shard), \
                f"{path.name}: hash of {r} differs from the big-integer reference"
        assert 0 <= min(shard) and max(shard) < 8
    report(path, model, inputs, outputs, elapsed)


def report(path, model, inputs, outputs, elapsed):
    params = list(model.state_dict().values())
    print(f"ok {path.name}: inputs {nbytes(inputs) / 1e6:.1f} MB, state {nbytes(params) / 1e6:.1f} MB, "
          f"outputs {nbytes(outputs) / 1e6:.1f} MB {[tuple(t.shape) for t in outputs]} "
          f"{[str(t.dtype) for t in outputs]}, forward+inputs {elapsed:.2f} s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("problem_dir")
    parser.add_argument("--full", nargs="*", default=[])
    args = parser.parse_args()
    files = sorted(pathlib.Path(args.problem_dir).glob("*.py"), key=lambda p: int(p.name.split("_")[0]))
    if len(files) != 13:
        print(f"expected 13 problems in {args.problem_dir}, found {len(files)}")
        return 1
    failed = 0
    torch.set_num_threads(1)
    for path in files:
        full = any(s in path.name for s in args.full)
        try:
            check(path, full)
        except Exception as error:  # report every problem, not only the first failure
            failed += 1
            print(f"FAIL {path.name}: {type(error).__name__}: {error}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
