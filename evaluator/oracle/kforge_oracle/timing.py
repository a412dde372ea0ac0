"""The oracle's part of trusted timing (docs/evaluator.md, "Timing"): the plan of the timed rounds (plan), fresh
inputs for every slot before a round (prepare_round), the check of the slots after it (round_check), and the
baselines' own rounds on the same slots (baseline_round).
"""
import os
import time

import torch

from kforge_oracle.protocol import ProblemError
from kforge_oracle.problem import as_list
from kforge_oracle.statistics import POISON_BITS, bits_view, ref_profile


# Share of the device's free memory the timing slots (inputs and outputs of one call each) may use, and the
# host's cap. 0.4 leaves the oracle room for a trial's inputs and reference, a checked slot's fresh draw and
# reference, and the candidate's own allocations; level 1's activations (12.8 GB a slot) get 4 slots on an
# H200 and 2 on an 80 GB H100, so that the harness's cost per round is a smaller part of each round.
SLOT_MEMORY_FRACTION = 0.4
HOST_SLOT_MEMORY = 256 << 20


class TimingOps:
    """Mixed into Oracle (oracle.py), which holds the state."""

    def l2_flush_buffer(self, p):
        if p.device != "cuda":
            return None
        l2 = int(torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size)
        return torch.empty(max(2 * l2, 64 << 20), dtype=torch.uint8, device="cuda")

    def draw(self, p, seed):
        """Fresh inputs for one timing slot: the problem's own distribution on a new seed. For problems whose
        shapes depend on the seed, a seed announced at setup gives the shapes (the buffers hold only those) and
        `seed` the values (redraw_to_shapes): nothing a candidate saw before repeats where a cache could answer."""
        if not p.varying:
            return p.gen_args(seed)
        seeds = self.announced or [p.seed]
        shaped = p.gen_args(seeds[seed % len(seeds)])
        if getattr(p, "redraw_ok", True) is False:
            return shaped
        return p.redraw_to_shapes(shaped, seed)

    def redraw_checked(self, p):
        """Once per problem with seed-dependent shapes: whether the redrawn values keep the reference running
        with the announced shapes' outputs; where they do not, timed rounds repeat the announced inputs and the
        verdict says so (inputs_repeated)."""
        if not p.varying or getattr(p, "redraw_ok", None) is not None:
            return
        seed = (self.announced or [p.seed])[0]
        shaped = p.gen_args(seed)
        try:
            want = p.reference_shapes(shaped)
            ok = all(p.reference_shapes(p.redraw_to_shapes(shaped, seed + k)) == want for k in (1, 2))
        except ProblemError:
            ok = False
        p.redraw_ok = ok

    def repeated_args(self, p):
        """Forward arguments whose values are the same in two timing draws on different seeds: what a cache
        keyed on the inputs could recognise. All of them repeated means the problem's inputs cannot be redrawn."""
        if p.varying:  # one trial's shapes, as a round's slots hold them
            shaped = p.gen_args((self.announced or [p.seed])[0])
            a, b = (shaped, shaped) if p.redraw_ok is False else \
                (p.redraw_to_shapes(shaped, p.seed + 11), p.redraw_to_shapes(shaped, p.seed + 12))
        else:
            a, b = self.draw(p, p.seed + 11), self.draw(p, p.seed + 12)
        names = [s["name"] for s in p.input_specs[:p.num_args]]
        same = []
        with torch.no_grad():
            for name, x, y in zip(names, p.arg_tensors(a), p.arg_tensors(b)):
                if x.dtype == y.dtype and x.shape == y.shape and (
                        x.numel() == 0 or bool((bits_view(x.contiguous()) == bits_view(y.contiguous())).all())):
                    same.append(name)
        return same, len(same) == len(names)

    def op_plan(self, req):
        """What sizes the timing rounds: one reference call's time and the bytes of one slot."""
        p = self.need_problem()
        args, ref = p.make_inputs(p.seed, "own")
        tensors = p.all_inputs(args)
        footprint = sum(t.numel() * t.element_size() for t in tensors) + \
            sum(o.numel() * o.element_size() for o in ref)
        times = []
        with torch.no_grad():
            for _ in range(5):
                if p.device == "cuda":
                    torch.cuda.synchronize()
                t0 = time.perf_counter()
                p.model(*args)
                if p.device == "cuda":
                    torch.cuda.synchronize()
                times.append((time.perf_counter() - t0) * 1e3)
        p.model.load_state_dict(p.initial_state)
        del args, ref, tensors
        self.redraw_checked(p)
        repeatable = self.draws_repeat(p)
        repeated, all_repeated = self.repeated_args(p)
        if p.device == "cuda":
            torch.cuda.empty_cache()  # this op's own draws are free again, only cached by torch's allocator
            free, _total = torch.cuda.mem_get_info()
            memory = int(free * SLOT_MEMORY_FRACTION)
        else:
            memory = HOST_SLOT_MEMORY
        return {"call_ms": min(times[2:]), "slot_bytes": int(footprint), "slot_memory": memory,
                "repeatable_inputs": repeatable, "repeated_inputs": repeated, "inputs_repeated": all_repeated}

    def draws_repeat(self, p):
        """Whether a seed names its inputs: two draws on one seed, another draw between them, equal bit for bit.
        Then a timed round keeps no copy of a slot's inputs (a checked slot's are drawn again), which halves its
        memory; a problem whose get_inputs() reads a clock, a counter or an unseeded generator keeps copies."""
        if getattr(p, "repeatable_inputs", None) is None:
            seed = p.seed + 3
            first = p.all_inputs(self.draw(p, seed))
            self.draw(p, seed + 1)
            again = p.all_inputs(self.draw(p, seed))
            with torch.no_grad():
                p.repeatable_inputs = len(first) == len(again) and all(
                    a.dtype == b.dtype and a.shape == b.shape and
                    (a.numel() == 0 or bool((bits_view(a) == bits_view(b)).all())) for a, b in zip(first, again))
        return p.repeatable_inputs

    def flush_l2(self, p):
        if p.device != "cuda":
            return
        if getattr(self, "_flush", None) is None:
            self._flush = self.l2_flush_buffer(p)
        self._flush.zero_()

    def op_prepare_round(self, req):
        """Fresh inputs into the listed slots, their outputs poisoned, the L2 flushed (the runner is frozen
        meanwhile). A checked slot's pristine inputs are drawn again from its seed (op_round_check), or, for a
        problem whose draws do not repeat, copies are kept here."""
        p = self.need_problem()
        self.check_files()
        keep = not self.draws_repeat(p)
        self.round = {}
        shapes = []
        for slot, seed in zip(req["slots"], req["seeds"]):
            slot, seed = int(slot), int(seed)
            args = self.draw(p, seed)
            inputs = p.all_inputs(args)
            with torch.no_grad():
                for b, t in zip(self.in_bufs(slot), inputs):
                    b["_t"] = self.view_of(b, t.shape, p.device)
                    b["_t"].copy_(t)
            out_shapes = p.reference_shapes(args) if p.varying else [s["shape"] for s in p.output_specs]
            for b, shape in zip(self.out_bufs(slot), out_shapes):
                b["_t"] = self.view_of(b, shape, p.device)
            self.poison(slot)
            self.round[slot] = {"seed": seed, "args": args if keep else None, "inputs": inputs if keep else None}
            shapes.append({"slot": slot, "inputs": [list(t.shape) for t in inputs], "outputs": out_shapes})
            del args, inputs  # before the next slot's draw: one slot's inputs at a time
        self.flush_l2(p)
        if p.device == "cuda":
            torch.cuda.synchronize()
        return {"shapes": shapes}

    def op_round_check(self, req):
        """Right after a round: every floating output of every slot must be written (no poison left); the slots
        chosen for checking are snapshotted at once (see snapshot) and compared with references computed
        afterwards. Outputs above `sample` elements are compared at that many random positions: a full
        comparison of a 1.6G-element output costs ~0.2 s on an H200, 60x the call it checks."""
        p = self.need_problem()
        self.check_files()
        check = set(int(x) for x in req.get("check_slots", []))
        sample = max(1, int(req["sample"]))
        snapshots = {slot: [self.snapshot(b["_t"], sample) for b in self.out_bufs(slot)]
                     for slot in self.round or {} if slot in check}
        unwritten = {}
        with torch.no_grad():
            for slot in self.round or {}:
                n = 0
                for b in self.out_bufs(slot):
                    t = b["_t"]
                    if t.is_floating_point() and t.numel():
                        n += int((bits_view(t) == POISON_BITS[t.element_size()]).sum())
                unwritten[slot] = n
        res = {"unwritten": [[s, n] for s, n in unwritten.items()], "checks": []}
        for slot, snaps in snapshots.items():
            r = self.round[slot]
            args, inputs = r["args"], r["inputs"]
            if args is None:
                args = self.draw(p, r["seed"])
                inputs = p.all_inputs(args)
            ref = p.reference(args)
            ref64 = p.reference64(args)
            self.trial = {"seed": r["seed"], "variant": "timed", "inputs": inputs}
            if all(idx is None for _, idx in snaps):
                self.trial["ref"] = ref
                self.trial["ref64"] = ref64
            else:
                self.trial["ref64"] = ref64 and [None if o is None else o if idx is None else o.reshape(-1)[idx]
                                                 for o, (_, idx) in zip(ref64, snaps)]
                # The same positions of the reference, and of every input that a trivial output passes through.
                self.trial["ref"] = [o if idx is None else o.reshape(-1)[idx] for o, (_, idx) in zip(ref, snaps)]
                self.trial["trivial_inputs"] = [
                    [t.reshape(-1)[idx] if idx is not None and list(t.shape) == list(o.shape) else
                     (t if idx is None else None) for t in inputs] for o, (_, idx) in zip(ref, snaps)]
            self.trial["prof"] = [ref_profile(x) for x in self.trial["ref"]]
            cmp = self.compare(req["tolerances"], [flat for flat, _ in snaps], slot)
            cmp["slot"] = slot
            if any(idx is not None for _, idx in snaps):
                cmp["sampled"] = sample
            res["checks"].append(cmp)
        return res

    def snapshot(self, t, sample):
        """A checked output as it is now, with its positions: all of it (positions None), or `sample` elements
        at positions drawn now from the OS's entropy, so that no candidate can know which elements count
        (sorted, so that the gather reads memory in order)."""
        flat = t.reshape(-1)
        n = flat.numel()
        with torch.no_grad():
            if n <= sample:
                return flat.clone(), None
            if self.sampler is None or self.sampler.device != flat.device:
                self.sampler = torch.Generator(device=flat.device)
            self.sampler.manual_seed(int.from_bytes(os.urandom(8), "little") >> 1)
            idx = torch.randint(0, n, (sample,), generator=self.sampler, device=flat.device).sort().values
            return flat[idx], idx

    def op_baseline_round(self, req):
        """One round of a baseline over `slots` distinct input sets (`baseline`: eager, the default, or compile:
        the torch.compile'd reference in `mode`, compiled by op_compile_baseline before), timed like a candidate's
        round: host clock around the calls and one synchronisation, L2 flushed before. The input sets are drawn into
        the slots' own input buffers, where the candidate's rounds ran (the runner is gone by now), so that the
        baseline needs no memory of its own and reads from the same allocations. With `copy_outputs` each
        call's results are also copied into the slot's output buffers, as a kernelbench runner copies ModelNew's
        results into the verified output buffers inside its timed calls."""
        p = self.need_problem()
        self.check_files()  # the runner is gone, but it may have truncated a slot file on its way out
        tf32 = bool(req.get("cudnn_tf32", False))
        copies = bool(req.get("copy_outputs", False))
        if self.baseline_sets is None:
            self.baseline_sets = self.baseline_input_sets(p, max(1, int(req["slots"])))
        self.flush_l2(p)
        torch.backends.cudnn.allow_tf32 = tf32
        try:
            forward = self.baseline_forward(p, req.get("baseline", "eager"), req.get("mode", "default"))
            with torch.no_grad():
                if p.device == "cuda":
                    torch.cuda.synchronize()
                t0 = time.perf_counter()
                for args, dst in self.baseline_sets:
                    res = forward(*args)
                    if copies:
                        for d, r in zip(dst, as_list(res)):
                            d.copy_(r) if isinstance(r, torch.Tensor) else d.fill_(r)
                if p.device == "cuda":
                    torch.cuda.synchronize()
                ms = (time.perf_counter() - t0) * 1e3
        finally:
            torch.backends.cudnn.allow_tf32 = False
        p.model.load_state_dict(p.initial_state)
        return {"ms": ms, "calls": len(self.baseline_sets)}

    def baseline_input_sets(self, p, k):
        """[(forward() arguments as views of slot i's input buffers, views of its output buffers)] for the
        first k slots, inputs drawn on fixed seeds (the same baseline for every evaluation of the problem).
        Outside an evaluation (no slots set up: `kforge audit --baseline`) the sets are tensors of their own."""
        sets = []
        for slot in range(min(k, self.slots) if self.buffers else k):
            args = self.draw(p, p.seed + 7 + slot)
            if not self.buffers:
                sets.append((args, [torch.empty_like(o) for o in p.reference(args)]))
                continue
            views = []
            with torch.no_grad():
                for b, t in zip(self.in_bufs(slot), p.arg_tensors(args)):
                    b["_t"] = self.view_of(b, t.shape, p.device)
                    b["_t"].copy_(t)
                    views.append(b["_t"])
            out_shapes = p.reference_shapes(args) if p.varying else [s["shape"] for s in p.output_specs]
            outs = [self.view_of(b, shape, p.device) for b, shape in zip(self.out_bufs(slot), out_shapes)]
            sets.append(([v if isinstance(a, torch.Tensor) else a for a, v in zip(args, views)], outs))
            del args
        if p.device == "cuda":
            torch.cuda.synchronize()
        return sets
