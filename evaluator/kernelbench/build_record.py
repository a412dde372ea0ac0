"""kforge build recorder: imports a KernelBench solution with load_inline replaced by a recorder.

Runs as a sandboxed compile-profile job (no GPU, no network, the python installation read-only): this
EXECUTES the solution's module code, so everything it writes is hostile input to kforge, which validates it
before building anything. Each torch.utils.cpp_extension.load_inline call (however the solution reached
it: imported under another name, through the module, inside a function) is recorded with its arguments
(extension_call.normalise) and answered with a stub module; kforge then builds every recorded extension
itself, in the sandbox, cached (docs/candidates.md, "The build").

  python3 -I -B build_record.py --solution FILE --out FILE [--instantiate]

--instantiate also builds ModelNew() when its constructor takes no arguments, for solutions that call
load_inline from __init__. The result file holds {"calls": [...]} and, when the import failed,
"missing_package" (a module the interpreter lacks) and "import_error".
"""
import importlib.util
import inspect
import json
import os
import sys
import traceback
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extension_call  # noqa: E402

MAX_CALLS = 32


def stub_module(name, functions):
    module = types.ModuleType(name)

    def unavailable(*args, **kwargs):
        raise RuntimeError("kforge: extension functions cannot be called while the solution is being built")

    for f in functions:
        setattr(module, f, unavailable)
    module.__getattr__ = lambda attr: unavailable
    return module


def main():
    args = [a for a in sys.argv[1:] if a != "--instantiate"]
    instantiate = len(args) != len(sys.argv) - 1
    opts = dict(zip(args[::2], args[1::2]))
    calls = []

    def load_inline(*a, **k):
        call = extension_call.normalise(*a, **k)
        if len(calls) < MAX_CALLS:
            calls.append(call)
        return stub_module(call["name"], list(call["functions"]))

    def load(*a, **k):
        raise RuntimeError("kforge: torch.utils.cpp_extension.load() of source files is not supported; "
                           "pass the sources to load_inline()")

    result = {}
    try:
        import torch
        try:
            import torch.utils.cpp_extension as ce
        except Exception:  # it needs setuptools; solutions reach load_inline through it either way
            ce = types.ModuleType("torch.utils.cpp_extension")
            sys.modules["torch.utils.cpp_extension"] = ce
            torch.utils.cpp_extension = ce
        ce.load_inline, ce.load = load_inline, load
        spec = importlib.util.spec_from_file_location("kforge_solution", opts["--solution"])
        module = importlib.util.module_from_spec(spec)
        sys.modules["kforge_solution"] = module
        spec.loader.exec_module(module)
        if instantiate and hasattr(module, "ModelNew"):
            try:
                params = [p for p in inspect.signature(module.ModelNew).parameters.values()
                          if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
                if not params:
                    with torch.no_grad():
                        module.ModelNew()
            except Exception:
                pass  # building it needs what this job has not (a GPU, arguments): the calls seen so far stand
    except ModuleNotFoundError as e:
        result["missing_package"] = str(e.name or "")[:200]
        result["import_error"] = f"{type(e).__name__}: {e}"[:2000]
    except BaseException as e:  # noqa: B902 - SystemExit too: the solution's own doing
        result["import_error"] = (f"{type(e).__name__}: {e}\n" + traceback.format_exc()[-3000:])[:4000]
    result["calls"] = calls
    with open(opts["--out"], "w") as fh:
        json.dump(result, fh)


if __name__ == "__main__":
    main()
