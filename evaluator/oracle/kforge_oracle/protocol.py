"""The oracle's side of its JSON-lines protocol with the C++ supervisor (docs/evaluator.md, "Oracle
protocol"): the private channels, one response per line, and the three kinds of failure a response names.
Imports no torch: the channels are set up before torch is imported, so that nothing torch prints reaches them.
"""
import json
import math
import os
import sys


_proto = None


def open_channels(argv):
    """Protocol: JSON-line requests on --in-fd (default stdin), responses on --out-fd (default stdout); the
    oracle's own output (and torch's) goes to --log (default stderr), so nothing else can corrupt the protocol.
    Called before torch is imported. Returns the requests' stream."""
    global _proto
    args = dict(zip(argv[1::2], argv[2::2]))
    if "--log" in args:
        log = os.open(args["--log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(log, 2)
        os.close(log)
    requests = os.fdopen(int(args.get("--in-fd", 0)), "r")
    _proto = os.fdopen(os.dup(int(args.get("--out-fd", 1))), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return requests


class ProblemError(Exception):
    """The problem file is at fault (bad input), not the harness."""


class CandidateError(Exception):
    """The candidate's runner tampered with a shared buffer (e.g. truncated its file): the candidate's fault."""


class SetupError(Exception):
    """This machine cannot do what was asked (e.g. no GPU); the message says it all, no traceback."""


def send(obj):
    _proto.write(json.dumps(obj, allow_nan=False, default=_json_default) + "\n")
    _proto.flush()


def _json_default(o):
    if isinstance(o, float):
        return None
    raise TypeError(type(o))


def finite_or_none(x):
    x = float(x)
    return x if math.isfinite(x) else (1e308 if x > 0 else (-1e308 if x < 0 else None))
