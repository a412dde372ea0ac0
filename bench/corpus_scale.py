#!/usr/bin/env python3
"""Corpus reads at scale: time and peak memory of `kforge status`, `kforge report` and a resumed `kforge run`
on synthetic corpora of 1k, 10k, 100k and 1M records built from real records.

The real records come from a small campaign this script runs first (the scripted model server answering the
demo problems, host backend), unless --from names a run folder to take them from. Each synthetic corpus repeats
those records over many units (configuration "bench", the three demo problems, S samples each; every unit has
--turns evaluation records and its unit_done record), with a run.json that defines exactly those units, so a
resumed `kforge run` finds every unit done and makes no model call (it still starts its evaluator).

Usage: bench/corpus_scale.py --kforge PATH [--sizes 1000,10000,100000,1000000] [--work DIR] [--from RUN_DIR]
                             [--commands status,report,resume] [--limit-s 300] [--limit-gb 8] [--turns 4]
Peak memory is the kforge process's own high-water mark (VmHWM; the oracle it starts is not counted); CPU is
user + sys of the command and of the processes it waited for (in a resume: the evaluator too); load is the
1-minute load average when the command ended (the machine may be shared). A command
that passes --limit-s or --limit-gb (address space) is stopped and shown as such. A benchmark, not a test: no
thresholds; on a shared machine the times are noisy. Environment: KFORGE_PYTHON (torch for the evaluator).
"""
import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "configs", "problems", "demo")
PROBLEMS = ["1_demo_relu", "2_demo_sum_reduction", "3_demo_matrix_vector_multiplication"]


def config_file(path, port, samples, turns):
    json.dump({"name": "bench", "provider": "openai-chat", "base_url": "http://127.0.0.1:%d/v1" % port,
               "api_key_env": "", "model": "bench-model",
               "generation": {"max_output_tokens": 2048, "stream": True},
               "rate_limits": {"requests_per_minute": 0, "tokens_per_minute": 0, "max_concurrent": 4},
               "prices": {"input": 1.0, "cached_input": 1.0, "output": 2.0, "reasoning": 2.0},
               "loop": {"turns": turns, "samples": samples, "stop_at_first_correct": False,
                        "keep_last_attempts": 0}}, open(path, "w"), indent=2)


def real_records(kforge, work):
    """Runs the demo problems once through the scripted server; returns its corpus folder."""
    out = os.path.join(work, "source")
    if os.path.exists(os.path.join(out, "evaluations.jsonl")):
        return out
    port_file = os.path.join(work, "port")
    server = subprocess.Popen([kforge, "mock-server", "--script", os.path.join(DEMO, "mock-host.json"), "--port", "0",
                               "--port-file", port_file], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(400):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.05)
        cfg = os.path.join(work, "source.json")
        config_file(cfg, int(open(port_file).read()), 1, 1)
        subprocess.run([kforge, "run", "--config", cfg, "--problems", DEMO, "--backend", "host", "--no-progress",
                        "--timing-budget-ms", "5", "--out", out], check=True, stdout=subprocess.DEVNULL)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
    return out


def templates(source):
    evals, done = [], None
    for name in sorted(os.listdir(source)):
        if not (name.startswith("evaluations") and name.endswith(".jsonl")):
            continue
        for line in open(os.path.join(source, name)):
            r = json.loads(line)
            if r["kind"] == "evaluation":
                evals.append(r)
            elif r["kind"] == "unit_done" and done is None:
                done = r
    if not evals or done is None:
        sys.exit("corpus_scale: %s holds no evaluation and unit_done records" % source)
    return evals, done


def stamp(record):
    """The record as a line with placeholders for its unit and turn (filled by str.replace: fast)."""
    r = json.loads(json.dumps(record))
    r["config"] = "@@C@@"
    r["problem"]["name"] = "@@P@@"
    r["sample"] = 7777777
    r["turn"] = 8888888
    r["run_id"] = "bench-run"
    if r.get("reply"):
        r["reply"]["path"] = "replies/@@STEM@@.json"
    if r.get("source"):
        r["source"]["path"] = "sources/@@STEM@@.cpp"
    return json.dumps(r)


def build(target, n_records, evals, done, turns, port):
    per_unit = turns + 1
    units = -(-n_records // per_unit)
    samples = -(-units // len(PROBLEMS))
    os.makedirs(target, exist_ok=True)
    eval_lines = [stamp(e) for e in evals]
    done_line = stamp(done)
    with open(os.path.join(target, "evaluations.jsonl"), "w") as f:
        chunk = []
        for s in range(samples):
            for p in PROBLEMS:  # whole samples: every unit run.json defines is done
                stem_base = "bench__%s__s%d" % (p, s)
                for t in range(1, turns + 1):
                    line = eval_lines[(s + t) % len(eval_lines)]
                    chunk.append(line.replace("@@C@@", "bench").replace("@@P@@", p).replace("7777777", str(s))
                                 .replace("8888888", str(t)).replace("@@STEM@@", "%s__t%d" % (stem_base, t)))
                chunk.append(done_line.replace("@@C@@", "bench").replace("@@P@@", p).replace("7777777", str(s))
                             .replace("8888888", str(turns)))
            if len(chunk) > 20000:
                f.write("\n".join(chunk) + "\n")
                chunk = []
        if chunk:
            f.write("\n".join(chunk) + "\n")
    json.dump({"schema": 1, "run_id": "bench-run", "created_at": "2026-01-01T00:00:00.000Z", "kforge_version": "bench",
               "sessions": 1,
               "inputs": {"backend": "host", "prompts_sha256": "",
                          "configs": {"bench": {"path": "bench.json", "sha256": "", "samples": samples, "turns": turns,
                                                "stop_at_first_correct": False, "keep_last_attempts": 0}},
                          "problems": {p: {"path": os.path.join(DEMO, p + ".py"), "sha256": ""} for p in PROBLEMS}}},
              open(os.path.join(target, "run.json"), "w"), indent=2)
    cfg = os.path.join(target, "..", os.path.basename(target) + ".json")
    config_file(cfg, port, samples, turns)
    return samples, os.path.abspath(cfg)


def measure(argv, limit_s, limit_gb):
    """Wall seconds, CPU seconds (user + sys of the command and the processes it waited for), peak MB, exit code
    and what it overran ("" if nothing)."""
    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (int(limit_gb * 2**30), int(limit_gb * 2**30)))
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=limits)
    peak_kb, over, cpu, rc = 0, "", 0.0, None
    err = []
    reader = threading.Thread(target=lambda: err.append(p.stderr.read()))  # a chatty command never blocks
    reader.start()
    while rc is None:
        try:
            for line in open("/proc/%d/status" % p.pid):
                if line.startswith("VmHWM:"):
                    peak_kb = max(peak_kb, int(line.split()[1]))
        except OSError:
            pass
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid == p.pid:
            rc = os.waitstatus_to_exitcode(status)
            cpu = usage.ru_utime + usage.ru_stime
            break
        if time.monotonic() - t0 > limit_s and not over:
            p.kill()
            over = "> %d s" % limit_s
        time.sleep(0.02)
    wall = time.monotonic() - t0
    p.returncode = rc
    reader.join()
    err = b"".join(err).decode(errors="replace")
    if not over and (rc < 0 or "bad_alloc" in err or "cannot allocate" in err.lower()):
        over = "> %g GB" % limit_gb if rc != 0 else ""
    return wall, cpu, peak_kb / 1024.0, rc, over


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kforge", required=True)
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--work", default="")
    ap.add_argument("--from", dest="source", default="")
    ap.add_argument("--commands", default="status,report,resume")
    ap.add_argument("--limit-s", type=float, default=300)
    ap.add_argument("--limit-gb", type=float, default=8)
    ap.add_argument("--turns", type=int, default=4)
    ap.add_argument("--keep", action="store_true", help="keep the corpora")
    a = ap.parse_args()
    kforge = os.path.abspath(a.kforge)
    work = a.work or tempfile.mkdtemp(prefix="kforge-corpus-scale-")
    os.makedirs(work, exist_ok=True)
    source = a.source or real_records(kforge, work)
    evals, done = templates(source)
    print("# corpus_scale: %s, records from %s (%d evaluation templates)" % (kforge, source, len(evals)))
    print("# load average before: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    print("| records | corpus MB | command | wall s | cpu s | peak MB | exit | load |")
    print("|---|---|---|---|---|---|---|---|")
    for n in [int(x) for x in a.sizes.split(",")]:
        target = os.path.join(work, "corpus-%d" % n)
        shutil.rmtree(target, ignore_errors=True)
        samples, cfg = build(target, n, evals, done, a.turns, 9)  # port 9: no call is ever made
        mb = os.path.getsize(os.path.join(target, "evaluations.jsonl")) / 2**20
        for cmd in a.commands.split(","):
            if cmd == "status":
                argv = [kforge, "status", target]
            elif cmd == "report":
                argv = [kforge, "report", target, "--format", "json"]
            elif cmd == "resume":
                argv = [kforge, "run", "--config", cfg, "--problems", DEMO, "--backend", "host", "--out", target,
                        "--allow-changed", "--no-progress", "--budget-usd", "1000000000"]
            else:
                sys.exit("corpus_scale: unknown command " + cmd)
            wall, cpu, peak, rc, over = measure(argv, a.limit_s, a.limit_gb)
            load = open("/proc/loadavg").read().split()[0]
            print("| %d | %.0f | %s | %s | %.2f | %s | %s | %s |" % (n, mb, cmd, over or "%.2f" % wall, cpu,
                                                                   "%.0f" % peak if not over else "-", rc, load),
                  flush=True)
        if not a.keep:
            shutil.rmtree(target, ignore_errors=True)


if __name__ == "__main__":
    main()
