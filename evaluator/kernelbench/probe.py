"""kforge probe of the python that builds and runs KernelBench solutions (trusted: reads no candidate input).

Run once per evaluator. Prints one JSON object: what the extension build needs from this python's torch
(include and library folders, the C++ ABI and pybind11 settings it was built with, its version) and which
folders the sandboxed jobs must see read-only for this interpreter and its packages to work there.
"""
import importlib.util
import json
import os
import site
import sys
import sysconfig


def version_of(package):
    if importlib.util.find_spec(package) is None:
        return None
    try:
        from importlib import metadata
        return metadata.version(package)
    except Exception:
        return "unknown"


def main():
    import torch
    from torch.utils import cpp_extension

    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
               os.path.dirname(os.path.realpath(sys.executable))}
    try:
        folders.update(site.getsitepackages())
    except AttributeError:  # some virtualenv versions
        pass
    user_site = site.getusersitepackages() if hasattr(site, "getusersitepackages") else None
    if user_site:
        folders.add(user_site)
    folders.update(p for p in sys.path if p)
    folders.add(os.path.dirname(torch.__file__))
    for key in ("stdlib", "platstdlib", "purelib", "platlib", "include"):
        p = sysconfig.get_paths().get(key)
        if p:
            folders.add(p)
    folders = sorted({os.path.realpath(p) for p in folders if os.path.isdir(p)})

    c = torch._C
    out = {
        # The folder resolved, the file not: jobs see only real paths, and a virtual environment's python is a
        # link whose own folder is what makes it that environment's.
        "python": os.path.join(os.path.realpath(os.path.dirname(sys.executable)), os.path.basename(sys.executable)),
        "python_version": sys.version.split()[0],
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda or "",
        "include_paths": [os.path.realpath(p) for p in cpp_extension.include_paths()],
        "library_paths": [os.path.realpath(p) for p in cpp_extension.library_paths()],
        "python_include": sysconfig.get_paths().get("include", ""),
        "cxx11_abi": int(bool(getattr(c, "_GLIBCXX_USE_CXX11_ABI", True))),
        "pybind11": {k: getattr(c, "_PYBIND11_" + k.upper(), None) for k in ("compiler_type", "stdlib", "build_abi")},
        "packages": {p: version_of(p) for p in ("triton", "tilelang", "cutlass", "cuda")},
        "readonly_paths": folders,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
