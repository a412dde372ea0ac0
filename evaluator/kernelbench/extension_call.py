"""One load_inline call, as kforge records, builds and finds it again (shared by build_record.py and runner.py).

`normalise` turns load_inline's arguments into plain JSON values; `key` is the sha256 of their canonical
JSON (sorted keys, no spaces, UTF-8), computed the same way by kforge's C++ builder
(evaluator/kernelbench/extension_build.cpp, extension_key) over the fields in KEY_FIELDS: the runner finds the
prebuilt extension of a call by this key, so an extension runs only with the sources and flags it was built
from.
"""
import hashlib
import json

KEY_FIELDS = ("name", "cpp_sources", "cuda_sources", "functions", "extra_cflags", "extra_cuda_cflags",
              "extra_ldflags", "extra_include_paths", "with_cuda", "with_pytorch_error_handling")


def _strings(value):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def normalise(name, cpp_sources, cuda_sources=None, functions=None, extra_cflags=None, extra_cuda_cflags=None,
              extra_ldflags=None, extra_include_paths=None, build_directory=None, verbose=False, with_cuda=None,
              is_python_module=True, with_pytorch_error_handling=True, keep_intermediates=True, use_pch=False,
              **other):
    if isinstance(functions, dict):
        funcs = {str(k): str(v) for k, v in functions.items()}
    else:
        funcs = _strings(functions)
    return {"name": str(name), "cpp_sources": _strings(cpp_sources), "cuda_sources": _strings(cuda_sources),
            "functions": funcs, "extra_cflags": _strings(extra_cflags),
            "extra_cuda_cflags": _strings(extra_cuda_cflags), "extra_ldflags": _strings(extra_ldflags),
            "extra_include_paths": _strings(extra_include_paths),
            "with_cuda": None if with_cuda is None else bool(with_cuda),
            "is_python_module": bool(is_python_module),
            "with_pytorch_error_handling": bool(with_pytorch_error_handling),
            "other_arguments": sorted(str(k) for k in other)}


def key(call):
    material = {k: call.get(k) for k in KEY_FIELDS}
    text = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
