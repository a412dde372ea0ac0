"""One correctness trial (docs/evaluator.md): inputs of a seed and distribution written into the buffers and the
reference kept here (prepare), the output buffers poisoned (poison), the candidate's outputs compared with the
reference (compare) and with trivial answers a wrong kernel could pass for (trivial).
"""
import math

import torch

from kforge_oracle.protocol import finite_or_none
from kforge_oracle.problem import dtype_name
from kforge_oracle.statistics import BITS_VIEW, CHUNK, POISON_BITS, all_finite, allclose_by_chunks, bits_view, distance, finite_difference, max_abs, over_tolerance, ref_profile, stats, sum_sq


class TrialOps:
    """Mixed into Oracle (oracle.py), which holds the state."""

    def op_prepare(self, req):
        """New inputs for one trial (seed + distribution variant) into the buffers; reference kept here."""
        p = self.need_problem()
        if self.buffers is None:
            raise RuntimeError("prepare before setup")
        self.check_files()
        self.trial = None  # the previous trial's inputs and reference go before the next ones are drawn
        seed, variant = int(req["seed"]), req["variant"]
        used = variant
        args, ref = p.make_inputs(seed, variant)
        if variant != "own" and p.base_nonfinite == 0 and any(
                o.is_floating_point() and not bool(torch.isfinite(o).all()) for o in ref):
            used = "own" if variant != "precision" else "skipped"  # non-finite reference: not a fair test
            args, ref = p.make_inputs(seed, "own")
        inputs = p.all_inputs(args)
        for b, t in zip(self.in_bufs(), inputs):
            b["_t"] = self.view_of(b, t.shape, p.device)
        for b, o in zip(self.out_bufs(), ref):
            b["_t"] = self.view_of(b, o.shape, p.device)
        with torch.no_grad():
            for b, t in zip(self.in_bufs(), inputs):
                b["_t"].copy_(t)
        self.trial = {"seed": seed, "variant": used, "inputs": inputs, "ref": ref,
                      "prof": [ref_profile(r) for r in ref], "ref64": p.reference64(args)}
        self.poison()
        shapes = {"inputs": [list(t.shape) for t in inputs], "outputs": [list(o.shape) for o in ref]}
        # One call's bytes (slot 0, where trials run): the bandwidth floor compares them with one call's time.
        trial_bytes = sum(b["_t"].numel() * b["_t"].element_size() for b in self.in_bufs() + self.out_bufs())
        return {"variant": used, "seed": seed, "ref_rms": [pr["rms"] for pr in self.trial["prof"]],
                "shapes": shapes, "bytes": trial_bytes}

    def poison(self, slot=0):
        with torch.no_grad():
            for b in self.out_bufs(slot):
                if b["nbytes"]:
                    b["_raw"].fill_(255)
        if self.problem.device == "cuda":
            torch.cuda.synchronize()

    def op_poison(self, req):
        self.poison()
        return {}

    def trivials(self, j):
        """(name, chunk getter) for each trivial output of output j on the current trial."""
        ref = self.trial["ref"][j]
        r = ref.reshape(-1)
        n = r.numel()
        res = [("zeros", lambda s, e: torch.zeros(e - s, dtype=ref.dtype, device=ref.device))]
        # A constant or a 0.3% write of a tiny output is (nearly) the reference itself: not a trivial output.
        if ref.is_floating_point() and n >= 1000:
            mean = self.trial["prof"][j]["mean"]
            res.append(("constant", lambda s, e, m=mean: torch.full((e - s,), m, dtype=ref.dtype, device=ref.device)))
            k = max(1, math.ceil(0.003 * n))

            def partial(s, e, k=k):
                # No index tensor: materialising this trivial output at full size must cost one output's memory.
                out = torch.zeros(e - s, dtype=ref.dtype, device=ref.device)
                head = min(k, e) - s
                if head > 0:
                    out[:head] = r[s:s + head]
                return out
            res.append(("partial_0.3pct", partial))
        count = 0
        sampled_inputs = self.trial.get("trivial_inputs")  # a sampled check: inputs at the output's positions
        inputs = sampled_inputs[j] if sampled_inputs else self.trial["inputs"]
        for spec_, t in zip(self.problem.input_specs, inputs):
            if t is not None and list(t.shape) == list(ref.shape) and t.dtype == ref.dtype and count < 2:
                flat = t.reshape(-1)
                res.append((f"passthrough:{spec_['name']}", lambda s, e, f=flat: f[s:e]))
                count += 1
        return res

    def op_compare(self, req):
        """Candidate outputs vs reference, inputs vs their pristine copies, distance to trivial outputs."""
        self.check_files()
        return self.compare(req["tolerances"], [b["_t"].reshape(-1) for b in self.out_bufs()], 0)

    def compare(self, tols, flats, slot):
        """The comparison of op_compare for outputs `flats` (flat tensors) of `slot` against self.trial."""
        outs = []
        for j, (b, flat) in enumerate(zip(self.out_bufs(slot), flats)):
            ref, prof = self.trial["ref"][j], self.trial["prof"][j]
            tol = tols.get(b["dtype"], {"rtol": 0.0, "atol_scale": 0.0})
            if ref.is_floating_point():
                outs.append(self.compare_floating(j, b, flat, ref, prof, tol))
                prec = self.precision_stats(j, flat)
                if prec is not None:
                    outs[-1]["precision"] = prec
                continue
            st = stats(lambda s, e: flat[s:e], ref, prof, tol["rtol"], tol["atol_scale"], poison=True)
            triv = []
            norm = prof["rms"] * math.sqrt(max(ref.numel(), 1))
            for name, get in self.trivials(j):
                tst = stats(get, ref, prof, tol["rtol"], tol["atol_scale"])
                dist = distance(lambda s, e: flat[s:e], get, norm, ref.numel()) if ref.is_floating_point() \
                    else float(sum(int((flat[s:e] != get(s, e)).sum()) for s in range(0, ref.numel(), CHUNK)
                                   for e in [min(ref.numel(), s + CHUNK)]))
                triv.append({"name": name, "stats": tst, "distance": finite_or_none(dist)})
            outs.append({"name": b["name"], "dtype": b["dtype"], "stats": st, "trivial": triv})
        modified = []
        for b, t in zip(self.in_bufs(slot), self.trial["inputs"]):
            cur = b["_t"]
            if cur.numel() == 0:
                continue
            same = bits_view(cur.contiguous()) == bits_view(t.contiguous())
            changed = int((~same).sum())
            if changed:
                first = int(torch.nonzero(~same).reshape(-1)[0])
                modified.append({"name": b["name"], "changed": changed, "numel": cur.numel(), "first": first})
        return {"outputs": outs, "inputs_modified": modified, "variant": self.trial["variant"],
                "seed": self.trial["seed"]}

    def precision_stats(self, j, flat):
        """Output j's error against the float64 reference beside the float32 reference's own error against it
        (relative L2, over positions where all three are finite): the judge's precision ratio. None for outputs
        other than float32 and where no float64 reference exists."""
        refs64 = self.trial.get("ref64")
        ref = self.trial["ref"][j]
        if not refs64 or refs64[j] is None or ref.dtype != torch.float32:
            return None
        r64, r32 = refs64[j].reshape(-1), ref.reshape(-1)
        if r64.numel() != r32.numel():
            return None
        dc = dr = n2 = 0.0
        with torch.no_grad():
            for s in range(0, r64.numel(), CHUNK):
                e = min(r64.numel(), s + CHUNK)
                o, q, r = flat[s:e].double(), r32[s:e].double(), r64[s:e]
                dco, dre = o - r, q - r
                # One synchronisation per chunk: the sums, then the masked path only where one is not finite.
                sums = torch.stack([torch.dot(dco, dco), torch.dot(dre, dre), torch.dot(r, r)]).tolist()
                if not all(math.isfinite(x) for x in sums):
                    fin = torch.isfinite(o) & torch.isfinite(q) & torch.isfinite(r)
                    zero = torch.zeros((), dtype=torch.float64, device=r.device)
                    dco, dre, r = torch.where(fin, dco, zero), torch.where(fin, dre, zero), torch.where(fin, r, zero)
                    sums = torch.stack([torch.dot(dco, dco), torch.dot(dre, dre), torch.dot(r, r)]).tolist()
                dc, dr, n2 = dc + sums[0], dr + sums[1], n2 + sums[2]
        if n2 <= 0:
            return None
        return {"f64_rel_l2": finite_or_none(math.sqrt(dc / n2)), "ref_f64_rel_l2": math.sqrt(dr / n2)}

    def trivial_vs_ref(self, j, tol):
        """Trivial outputs' statistics against the reference of the current trial, in closed form where the
        profile allows it (a full pass only when a trivial output might pass on its own). Cached per trial."""
        cache = self.trial.setdefault("trivial_stats", {})
        if j in cache:
            return cache[j]
        ref, prof = self.trial["ref"][j], self.trial["prof"][j]
        n = ref.numel()
        r = ref.reshape(-1)
        nonfinite = n - prof["count"]
        ref2 = prof["sumsq"]
        base = {"numel": n, "floating": True, "max_abs": 0.0, "ref_rms": prof["rms"], "violations": 0,
                "first_violations": [], "nan_inf_mismatch": nonfinite, "unwritten": 0, "first_unwritten": [],
                "mismatched_exact": 0}
        res = {}
        for name, get in self.trivials(j):
            if name == "zeros":
                d2 = ref2
            elif name == "constant":
                c = prof["mean"]
                d2 = max(0.0, ref2 - 2 * c * prof["sum"] + prof["count"] * c * c)
            elif name == "partial_0.3pct":
                k = max(1, math.ceil(0.003 * n))
                head = r[:k].double()
                d2 = max(0.0, ref2 - float(torch.where(torch.isfinite(head), head * head,
                                                       torch.zeros_like(head)).sum()))
            else:
                d2 = None
            if d2 is not None:
                rel = math.sqrt(d2 / ref2) if ref2 > 0 else (0.0 if d2 == 0 else 1e308)
                st = dict(base, rel_l2=finite_or_none(rel))
            else:
                st = None
            if st is None or st["rel_l2"] <= tol.get("rel_l2", 0.0) * 10:
                st = stats(get, ref, prof, tol["rtol"], tol["atol_scale"])
            res[name] = st
        cache[j] = res
        return res

    def compare_floating(self, j, b, flat, ref, prof, tol):
        """One fused pass over the candidate's output: its statistics and its distance to every trivial output."""
        dev = ref.device
        r_all = ref.reshape(-1)
        n = r_all.numel()
        k = max(1, math.ceil(0.003 * n))
        z = lambda: torch.zeros((), dtype=torch.float64, device=dev)  # noqa: E731
        zi = lambda: torch.zeros((), dtype=torch.int64, device=dev)  # noqa: E731
        diff2, maxabs, out2, out1, dhead2, ohead2 = z(), z(), z(), z(), z(), z()
        viol, parity, unwritten, nboth = zi(), zi(), zi(), zi()
        triv = self.trivials(j)
        passthrough = [(name, get) for name, get in triv if name.startswith("passthrough:")]
        pdist = {name: z() for name, _ in passthrough}
        thr_abs = tol["atol_scale"] * prof["rms"]
        rtol = tol["rtol"]
        pbits = POISON_BITS[ref.element_size()]
        for s in range(0, n, CHUNK):
            e = min(n, s + CHUNK)
            o, r = flat[s:e], r_all[s:e]
            ob_bits = o.view(BITS_VIEW[o.element_size()])
            rb_bits = r.view(BITS_VIEW[r.element_size()])
            unwritten += ((ob_bits == pbits) & (rb_bits != pbits)).sum()
            through = [get(s, e) for _, get in passthrough]
            d = finite_difference(o, r) if all_finite(o, r, *through) else None
            if d is not None:
                diff2 += sum_sq(d)
                if d.numel():
                    maxabs = torch.maximum(maxabs, max_abs(d))
                viol += over_tolerance(d, r, thr_abs, rtol).sum()
                od = o.double()
                out2 += torch.dot(od, od)
                out1 += od.sum()
                nboth += e - s
                if s < k:
                    h = min(e, k) - s
                    dhead2 += sum_sq(d[:h])
                    ohead2 += sum_sq(od[:h])
                for (name, _), x in zip(passthrough, through):
                    pdist[name] += sum_sq(o.to(d.dtype) - x.to(d.dtype))  # overflow: inf, rightly far
                continue
            od, rd = o.double(), r.double()
            rfin, ofin = torch.isfinite(rd), torch.isfinite(od)
            parity += ((torch.isnan(od) != torch.isnan(rd)) | (torch.isposinf(od) != torch.isposinf(rd)) |
                       (torch.isneginf(od) != torch.isneginf(rd))).sum()
            both = rfin & ofin
            zero = torch.zeros_like(od)
            d = torch.where(both, od - rd, zero)
            diff2 += (d * d).sum()
            if d.numel():
                maxabs = torch.maximum(maxabs, d.abs().max())
            viol += (both & (d.abs() > thr_abs + rtol * rd.abs())).sum()
            ob = torch.where(both, od, zero)
            out2 += (ob * ob).sum()
            out1 += ob.sum()
            nboth += both.sum()
            if s < k:
                h = min(e, k) - s
                dhead2 += (d[:h] * d[:h]).sum()
                ohead2 += (ob[:h] * ob[:h]).sum()
            for name, get in passthrough:
                xd = get(s, e).double()
                pd = torch.where(both & torch.isfinite(xd), od - xd, zero)
                pdist[name] += (pd * pd).sum()
        ref2 = prof["sumsq"]
        st = {"numel": n, "floating": True, "ref_rms": prof["rms"], "max_abs": finite_or_none(maxabs),
              "violations": int(viol), "nan_inf_mismatch": int(parity), "unwritten": int(unwritten),
              "mismatched_exact": 0, "first_violations": [], "first_unwritten": []}
        d2 = float(diff2)
        st["rel_l2"] = finite_or_none(math.sqrt(d2 / ref2) if ref2 > 0 else (0.0 if d2 == 0 else 1e308))
        if st["violations"] or st["unwritten"]:
            # Second pass only for failing outputs: where it went wrong.
            full = stats(lambda s_, e_: flat[s_:e_], ref, prof, rtol, tol["atol_scale"], poison=True)
            st["first_violations"], st["first_unwritten"] = full["first_violations"], full["first_unwritten"]
        norm = math.sqrt(ref2)
        c = prof["mean"]
        o2, o1, nb = float(out2), float(out1), int(nboth)
        dists = {"zeros": math.sqrt(o2),
                 "constant": math.sqrt(max(0.0, o2 - 2 * c * o1 + nb * c * c)),
                 "partial_0.3pct": math.sqrt(max(0.0, float(dhead2) + o2 - float(ohead2)))}
        for name in pdist:
            dists[name] = math.sqrt(float(pdist[name]))
        tstats = self.trivial_vs_ref(j, tol)
        out_triv = []
        for name, _ in triv:
            dist = dists[name] / norm if norm > 0 else (0.0 if dists[name] == 0 else 1e308)
            out_triv.append({"name": name, "stats": tstats[name], "distance": finite_or_none(dist)})
        return {"name": b["name"], "dtype": b["dtype"], "stats": st, "trivial": out_triv}

    def op_trivial(self, req):
        """For the audit: trivial outputs' statistics and torch.allclose at given tolerances."""
        p = self.need_problem()
        # Free the previous trial before drawing the next: on KernelBench's largest problems two trials' tensors
        # would not fit beside other audits on one GPU.
        self.trial = None
        if "kernelbench_trial" in req:
            # KernelBench's own trial: its seeds, its inputs, torch.allclose(ref, out) argument order.
            seed = p.kernelbench_seeds(int(req["kernelbench_trials"]))[int(req["kernelbench_trial"])]
            variant = "kernelbench"
            args, ref = p.kernelbench_inputs(seed)
        else:
            seed = int(req.get("seed", p.seed))
            variant = req.get("variant", "own")
            args, ref = p.make_inputs(seed, variant)
        self.trial = {"seed": seed, "variant": variant, "inputs": p.all_inputs(args), "ref": ref,
                      "prof": [ref_profile(r) for r in ref]}
        tols = req["tolerances"]
        res = []
        for j, r in enumerate(ref):
            dname = dtype_name(r.dtype)
            tol = tols.get(dname, {"rtol": 0.0, "atol_scale": 0.0})
            for name, get in self.trivials(j):
                st = stats(get, r, self.trial["prof"][j], tol["rtol"], tol["atol_scale"])
                ac = [[float(t), allclose_by_chunks(r, get, float(t))] for t in req.get("allclose", [])]
                res.append({"output": f"output{j}", "dtype": dname, "trivial": name, "stats": st, "allclose": ac})
        if p.device == "cuda":
            torch.cuda.empty_cache()
        return {"trivial": res, "seed": seed}
