"""kforge static check of a KernelBench solution (or of a problem's reference): trusted code, hostile data.

Reads one Python file and never executes it: only `ast` from the standard library, so it runs as
`python3 -I -S` in a compile-profile sandbox job in well under a second. Prints one bounded JSON object on
stdout. docs/candidates.md ("What is checked") describes the findings and the verdicts kforge derives:

  --mode solution  what ModelNew's forward reaches: its own kernels (functions of load_inline modules,
                   @triton.jit kernels launched as kernel[grid](...)), PyTorch compute operators (normalised
                   through OPS), the load_inline calls, imports, and Python-level tampering with the harness.
  --mode problem   the compute operators of the reference Model's forward (and the modules its __init__
                   builds), normalised the same way.

What the text hides (names built at run time, exec, decoders, numpy, torch's routes around its Python API) is
refused as `hidden_calls`, so what remains is what runs. `attribution` says whether forward reaches nothing
but the solution's kernels and glue: the trusted basis of a verdict's `attribution: trusted`; the extensions'
own imports are read from the built libraries (extension_symbols.cpp), not from this text.

Why one file of ~1100 lines: it is a sandboxed program, not a package. Each check is a job folder holding
exactly this script and the hostile input.py (static_check.cpp), run as `python3 -I -S -B`, so it sees no
path of kforge's and no site packages; a module of its own would have to be copied into every job and put on
sys.path from the very folder that holds the hostile file, and its text is part of the compile cache key
(solution_compiler.cpp). Its parts are read together: the tables (operators, tampering, hidden calls, each
with its reason) feed the walkers (File, Body, Kernels) and the checks below them, in that order.
"""
import ast
import json
import re
import sys

MAX_BYTES = 1 << 20
MAX_ITEMS = 64
MAX_TEXT = 200
MAX_DEPTH = 8  # calls followed from forward into helpers and methods
MAX_ANSWER = 128 << 10  # the answer's bytes (the supervisor reads at most 256 KiB)

# ---------------------------------------------------------------------------------------- operator table
# One canonical name per compute operator, whatever the spelling: a torch / torch.nn.functional / linalg
# function, a tensor method, or an nn module class. Views, reshapes, allocations, dtype/device moves and
# plain arithmetic (+ - * /) are not compute operators here: a custom kernel needs them too.
_FN = {
    "matmul": ["matmul", "mm", "bmm", "mv", "dot", "addmm", "addbmm", "baddbmm", "addmv", "einsum", "linear",
               "tensordot", "inner", "outer", "chain_matmul", "multi_dot", "vecdot"],
    "bilinear": ["bilinear"],
    "conv1d": ["conv1d"], "conv2d": ["conv2d"], "conv3d": ["conv3d"],
    "conv_transpose1d": ["conv_transpose1d"], "conv_transpose2d": ["conv_transpose2d"],
    "conv_transpose3d": ["conv_transpose3d"],
    "relu": ["relu", "relu_"], "relu6": ["relu6"], "leaky_relu": ["leaky_relu", "leaky_relu_"],
    "gelu": ["gelu"], "sigmoid": ["sigmoid", "sigmoid_"], "tanh": ["tanh", "tanh_"], "silu": ["silu"],
    "mish": ["mish"], "elu": ["elu", "elu_"], "selu": ["selu", "selu_"], "celu": ["celu"],
    "softplus": ["softplus"], "softsign": ["softsign"], "hardtanh": ["hardtanh", "hardtanh_"],
    "hardsigmoid": ["hardsigmoid"], "hardswish": ["hardswish"], "prelu": ["prelu"], "logsigmoid": ["logsigmoid"],
    "softmax": ["softmax", "softmin"], "log_softmax": ["log_softmax"], "glu": ["glu"],
    "threshold": ["threshold"], "hardshrink": ["hardshrink"], "softshrink": ["softshrink"],
    "tanhshrink": ["tanhshrink"],
    "sum": ["sum", "nansum"], "mean": ["mean", "nanmean"], "max": ["max", "amax"], "min": ["min", "amin"],
    "argmax": ["argmax"], "argmin": ["argmin"], "prod": ["prod"], "cumsum": ["cumsum"], "cumprod": ["cumprod"],
    "logsumexp": ["logsumexp"], "norm": ["norm", "vector_norm", "matrix_norm", "frobenius_norm"],
    "var": ["var", "var_mean"], "std": ["std", "std_mean"], "median": ["median"], "any": ["any"], "all": ["all"],
    "batch_norm": ["batch_norm"], "layer_norm": ["layer_norm"], "group_norm": ["group_norm"],
    "instance_norm": ["instance_norm"], "rms_norm": ["rms_norm"], "local_response_norm": ["local_response_norm"],
    "normalize": ["normalize"],
    "max_pool1d": ["max_pool1d"], "max_pool2d": ["max_pool2d"], "max_pool3d": ["max_pool3d"],
    "avg_pool1d": ["avg_pool1d"], "avg_pool2d": ["avg_pool2d"], "avg_pool3d": ["avg_pool3d"],
    "adaptive_avg_pool": ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"],
    "adaptive_max_pool": ["adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"],
    "lp_pool": ["lp_pool1d", "lp_pool2d"],
    "cross_entropy": ["cross_entropy"], "nll_loss": ["nll_loss"], "mse_loss": ["mse_loss"], "l1_loss": ["l1_loss"],
    "smooth_l1_loss": ["smooth_l1_loss"], "huber_loss": ["huber_loss"], "kl_div": ["kl_div"],
    "binary_cross_entropy": ["binary_cross_entropy", "binary_cross_entropy_with_logits"],
    "hinge_embedding_loss": ["hinge_embedding_loss"], "margin_ranking_loss": ["margin_ranking_loss"],
    "triplet_margin_loss": ["triplet_margin_loss"], "cosine_embedding_loss": ["cosine_embedding_loss"],
    "cosine_similarity": ["cosine_similarity"], "pairwise_distance": ["pairwise_distance"], "cdist": ["cdist"],
    "exp": ["exp", "exp_", "exp2"], "log": ["log", "log_", "log2", "log10", "log1p"], "expm1": ["expm1"],
    "sqrt": ["sqrt", "sqrt_"], "rsqrt": ["rsqrt"], "abs": ["abs", "abs_"], "clamp": ["clamp", "clamp_", "clip", "clamp_min", "clamp_max", "clamp_min_", "clamp_max_"],
    "sin": ["sin"], "cos": ["cos"], "erf": ["erf"], "reciprocal": ["reciprocal"], "sign": ["sign"],
    "pow": ["pow", "square"], "minimum": ["minimum", "fmin"], "maximum": ["maximum", "fmax"],
    "tril": ["tril"], "triu": ["triu"], "diag": ["diag", "diag_embed"], "sort": ["sort", "argsort"],
    "topk": ["topk"], "gather": ["gather"], "scatter": ["scatter", "scatter_add", "scatter_reduce", "index_add"],
    "embedding": ["embedding"], "embedding_bag": ["embedding_bag"], "one_hot": ["one_hot"],
    "attention": ["scaled_dot_product_attention", "multi_head_attention_forward"],
    "interpolate": ["interpolate", "upsample", "grid_sample"], "pixel_shuffle": ["pixel_shuffle", "pixel_unshuffle"],
    "unfold": ["unfold", "fold"], "lstm": ["lstm"], "gru": ["gru"], "rnn": ["rnn_tanh", "rnn_relu"],
    "where": ["where"], "masked_fill": ["masked_fill", "masked_fill_", "masked_scatter"],
    "select_values": ["masked_select", "index_select", "take", "take_along_dim", "index_put", "index_fill"],
    "lerp": ["lerp"], "addcmul": ["addcmul", "addcdiv"], "round": ["floor", "ceil", "round", "trunc", "frac"],
    "heaviside": ["heaviside"], "nan_to_num": ["nan_to_num"],
    "dropout": [],
}
_MODULES = {
    "matmul": ["Linear", "LazyLinear"], "bilinear": ["Bilinear"],
    "conv1d": ["Conv1d"], "conv2d": ["Conv2d"], "conv3d": ["Conv3d"],
    "conv_transpose1d": ["ConvTranspose1d"], "conv_transpose2d": ["ConvTranspose2d"],
    "conv_transpose3d": ["ConvTranspose3d"],
    "relu": ["ReLU"], "relu6": ["ReLU6"], "leaky_relu": ["LeakyReLU"], "gelu": ["GELU"], "sigmoid": ["Sigmoid"],
    "tanh": ["Tanh"], "silu": ["SiLU"], "mish": ["Mish"], "elu": ["ELU"], "selu": ["SELU"], "celu": ["CELU"],
    "softplus": ["Softplus"], "softsign": ["Softsign"], "hardtanh": ["Hardtanh"], "hardsigmoid": ["Hardsigmoid"],
    "hardswish": ["Hardswish"], "prelu": ["PReLU"], "logsigmoid": ["LogSigmoid"], "softmax": ["Softmax", "Softmin",
    "Softmax2d"], "log_softmax": ["LogSoftmax"], "glu": ["GLU"], "threshold": ["Threshold"],
    "batch_norm": ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"], "layer_norm": ["LayerNorm"],
    "group_norm": ["GroupNorm"], "instance_norm": ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"],
    "rms_norm": ["RMSNorm"], "local_response_norm": ["LocalResponseNorm"],
    "max_pool1d": ["MaxPool1d"], "max_pool2d": ["MaxPool2d"], "max_pool3d": ["MaxPool3d"],
    "avg_pool1d": ["AvgPool1d"], "avg_pool2d": ["AvgPool2d"], "avg_pool3d": ["AvgPool3d"],
    "adaptive_avg_pool": ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d"],
    "adaptive_max_pool": ["AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d"],
    "lp_pool": ["LPPool1d", "LPPool2d"],
    "cross_entropy": ["CrossEntropyLoss"], "nll_loss": ["NLLLoss"], "mse_loss": ["MSELoss"], "l1_loss": ["L1Loss"],
    "smooth_l1_loss": ["SmoothL1Loss"], "huber_loss": ["HuberLoss"], "kl_div": ["KLDivLoss"],
    "binary_cross_entropy": ["BCELoss", "BCEWithLogitsLoss"], "hinge_embedding_loss": ["HingeEmbeddingLoss"],
    "margin_ranking_loss": ["MarginRankingLoss"], "triplet_margin_loss": ["TripletMarginLoss"],
    "cosine_embedding_loss": ["CosineEmbeddingLoss"], "cosine_similarity": ["CosineSimilarity"],
    "pairwise_distance": ["PairwiseDistance"], "embedding": ["Embedding"], "embedding_bag": ["EmbeddingBag"],
    "attention": ["MultiheadAttention", "Transformer", "TransformerEncoderLayer", "TransformerDecoderLayer",
                  "TransformerEncoder", "TransformerDecoder"],
    "interpolate": ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"],
    "pixel_shuffle": ["PixelShuffle", "PixelUnshuffle"], "unfold": ["Unfold", "Fold"],
    "lstm": ["LSTM", "LSTMCell"], "gru": ["GRU", "GRUCell"], "rnn": ["RNN", "RNNCell"],
}
OPS = {name: canon for canon, names in _FN.items() for name in names}
# Operators that can do another operator's whole work (torch.where(x > 0, x, 0) is a ReLU): a solution that
# calls one of them is judged as calling every operator listed (the every-operator rule below).
_ACTIVATIONS = ["relu", "relu6", "leaky_relu", "hardtanh", "threshold", "clamp", "elu", "selu", "celu",
                "hardshrink", "softshrink", "hardsigmoid", "hardswish", "prelu", "heaviside", "sign", "abs"]
COVERS = {"where": _ACTIVATIONS, "masked_fill": _ACTIVATIONS, "clamp": ["relu", "relu6", "hardtanh", "clamp"],
          "maximum": ["relu", "leaky_relu", "prelu"], "minimum": ["relu6", "hardtanh", "clamp"],
          "norm": ["normalize"]}
# torch functions and tensor methods that allocate, describe, view, move or copy tensors: a custom kernel
# needs them and none computes a reference's result. Every other torch function or tensor method is a
# compute operator (ATen's), in OPS's table or not.
GLUE_FN = {"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like",
           "tensor", "as_tensor", "as_strided", "arange", "device", "dtype", "Size", "is_tensor", "numel",
           "no_grad", "inference_mode", "set_grad_enabled", "get_default_dtype", "is_floating_point",
           "current_stream", "default_stream", "synchronize", "is_available", "device_count", "current_device",
           "get_device_properties", "Generator", "manual_seed", "finfo", "iinfo", "result_type",
           "promote_types", "broadcast_shapes", "reshape", "flatten", "unflatten", "squeeze", "unsqueeze",
           "transpose", "permute", "narrow", "select", "t", "chunk", "split", "unbind", "contiguous", "clone",
           "empty_permuted", "view_as_real", "view_as_complex", "Stream", "Event", "stream"}
GLUE_METHODS = GLUE_FN | {
    "view", "view_as", "reshape_as", "size", "dim", "ndimension", "stride", "is_contiguous", "data_ptr",
    "element_size", "nelement", "to", "cuda", "cpu", "float", "half", "double", "int", "long", "bool",
    "bfloat16", "short", "char", "byte", "type", "type_as", "detach", "copy_", "zero_", "fill_", "expand",
    "expand_as", "item", "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor", "get_device",
    "storage_offset", "requires_grad_", "untyped_storage", "record_stream", "resize_", "is_floating_point",
    "numel", "tolist", "__len__", "append", "extend", "items", "keys", "values", "get", "format", "join",
    "split", "startswith", "endswith", "contiguous", "parameters", "buffers", "named_parameters", "eval",
    "train", "modules", "children", "register_buffer", "register_parameter", "add_module", "cdiv"}
# Builtins that compute nothing a reference does (shapes, loops, checks).
SAFE_BUILTINS = {"len", "int", "float", "bool", "range", "enumerate", "zip", "isinstance", "tuple", "list", "dict",
                 "print", "str", "type", "super", "slice", "issubclass", "callable", "ValueError", "RuntimeError",
                 "TypeError", "AssertionError", "NotImplementedError", "repr", "format", "id", "object"}
MODULE_OPS = {name: canon for canon, names in _MODULES.items() for name in names}
# Containers whose constructor arguments are the modules that run.
CONTAINERS = {"Sequential", "ModuleList", "ModuleDict"}
# torch namespaces whose functions are compute operators when named in OPS.
TORCH_FN_NAMESPACES = ("torch", "torch.nn.functional", "torch.special", "torch.linalg", "torch.fft", "torch.Tensor",
                       "torch.nn.modules")

# -------------------------------------------------------------------------------------- tampering table
# Python-level ways to tamper with the harness in the runner's process, each with why it is refused. The
# trusted side never believes the runner's clocks or copies, so these cannot change a verdict by themselves;
# they are rejected because no honest kernel needs them.
PATCHED_MODULES = {
    "torch": "replaces part of torch that the runner relies on (tensor copies, synchronisation, CUDA events)",
    "time": "replaces a clock of the time module (timing is the supervisor's, but no kernel needs this)",
    "triton": "replaces part of Triton (its launch entry point is how kernel launches are counted)",
    "builtins": "replaces a builtin of the interpreter the runner shares with the solution",
    "sys": "edits the interpreter's state (module table, hooks) shared with the runner",
    "gc": "edits the garbage collector shared with the runner",
    "threading": "replaces part of the threading module shared with the runner",
    "os": "replaces a function of os (the runner writes its answers and exits through it)",
    "posix": "replaces a function of posix (os's own functions, which the runner writes and exits through)",
    "select": "replaces part of select (the runner waits for its commands through it)",
    "json": "replaces part of json (the runner encodes its answers with it)",
    "importlib": "replaces part of the import machinery shared with the runner",
    "types": "replaces part of the types module shared with the runner",
    "ctypes": "replaces part of ctypes (the runner maps CUDA memory through it)",
    "traceback": "replaces part of traceback (the runner reports errors with it)",
}
TAMPER_CALLS = {
    "sys._getframe": "walks the interpreter's frames (the runner's objects)",
    "sys.settrace": "installs a trace hook over the runner's code",
    "sys.setprofile": "installs a profile hook over the runner's code",
    "sys.modules": "reads or edits the module table (the runner's modules)",
    "inspect.currentframe": "walks the interpreter's frames (the runner's objects)",
    "inspect.stack": "walks the interpreter's frames (the runner's objects)",
    "inspect.getouterframes": "walks the interpreter's frames (the runner's objects)",
    "inspect.getmembers": "enumerates objects it did not create (the runner's)",
    "gc.get_objects": "enumerates every object of the interpreter (the runner's included)",
    "gc.get_referrers": "finds objects through the garbage collector (the runner's included)",
    "gc.get_referents": "finds objects through the garbage collector (the runner's included)",
    "os.kill": "sends signals to processes",
    "os.fork": "starts processes",
    "os.system": "starts processes",
    "os.popen": "starts processes",
    "signal.signal": "changes signal handling of the runner",
    "os.dup": "duplicates the runner's descriptors (its report channel)",
    "os.dup2": "replaces the runner's descriptors (its report channel)",
    "os.close": "closes the runner's descriptors (its report channel)",
    "os.closerange": "closes the runner's descriptors (its report channel)",
    "os.write": "writes to descriptors (the runner's report channel)",
    "os.fdopen": "opens the runner's descriptors (its report channel)",
    "os._exit": "ends the runner's process without an answer",
    "os.abort": "ends the runner's process without an answer",
    "os.register_at_fork": "hooks process creation in the runner",
    "os.sched_setaffinity": "changes the runner's CPU placement",
    "sys.addaudithook": "installs an audit hook over the runner's code",
    "sys.setswitchinterval": "changes the interpreter's thread switching shared with the runner",
    "sys.meta_path": "edits the import machinery shared with the runner",
    "sys.path_hooks": "edits the import machinery shared with the runner",
    "threading.settrace": "installs a trace hook over the runner's threads",
    "threading.setprofile": "installs a profile hook over the runner's threads",
}
TAMPER_IMPORTS = {
    "ctypes": "ctypes reaches raw memory and native functions of the runner's process",
    "cffi": "cffi reaches raw memory and native functions of the runner's process",
    "__main__": "the runner is the __main__ module",
    "subprocess": "starts processes",
    "multiprocessing": "starts processes",
    "concurrent": "starts processes or threads of its own beside the runner's",
    "_ctypes": "reaches raw memory and native functions of the runner's process",
    "gc": "reaches every object of the interpreter (the runner's included)",
    "inspect": "reaches the interpreter's frames and the runner's objects",
    "posix": "os's own functions, which the runner writes its answers and exits through",
    "runner": "the runner's own module",
    "extension_call": "a module of the runner's",
    "build_record": "a module of kforge's build recorder",
    "kforge_solution": "the solution's own module as the runner registered it",
    "faulthandler": "installs handlers over the runner's process",
    "atexit": "runs code after the runner's last answer",
    "pty": "starts processes",
    "_posixsubprocess": "starts processes",
}
TAMPER_ATTRIBUTES = {
    "f_back": "walks the interpreter's frames", "f_globals": "walks the interpreter's frames",
    "f_locals": "walks the interpreter's frames", "f_builtins": "walks the interpreter's frames",
    "tb_frame": "walks the interpreter's frames", "gi_frame": "walks the interpreter's frames",
    "__globals__": "reaches another function's globals", "__code__": "reads or replaces a function's code",
    "__builtins__": "reaches the interpreter's builtins",
}
TAMPER_STRINGS = [
    ("/proc/self/mem", "names the process's own memory file"),
    ("/proc/self/maps", "names the process's memory map"),
    ("/proc/self/fd", "names the process's descriptors (the report pipe)"),
    ("/dev/mem", "names physical memory"),
]
DYNAMIC_CODE = {"eval", "exec", "compile", "__import__", "importlib.import_module", "importlib.reload"}

# Ways to run code the text does not show, or to compute outside the solution's own kernels: a solution that
# uses one cannot be attributed from its text, so it is refused (rejected.torch_fallback) whatever it does
# with it. Each with why.
HIDDEN_CALLS = {
    "eval": "runs code built at run time", "exec": "runs code built at run time",
    "compile": "compiles code built at run time", "__import__": "imports a module named at run time",
    "vars": "reaches a module's or object's names as a dictionary", "globals": "reaches the module's names as a dictionary",
    "locals": "reaches local names as a dictionary", "breakpoint": "starts a debugger",
    "operator.attrgetter": "reaches attributes by names given at run time",
    "operator.methodcaller": "calls methods by names given at run time",
    "types.FunctionType": "builds a function at run time", "types.CodeType": "builds code at run time",
    "torch.from_numpy": "hands tensors to numpy, which computes outside the solution's kernels",
    "torch.compile": "has torch generate the kernels", "torch.ops.load_library": "loads a library kforge did not build",
    "torch.library": "registers operators at run time", "torch.utils.dlpack": "hands tensors to another library",
    "register_forward_hook": "runs code outside forward, around every call",
    "register_forward_pre_hook": "runs code outside forward, around every call",
    "register_module_forward_hook": "runs code outside forward, around every call",
    "register_module_forward_pre_hook": "runs code outside forward, around every call",
}
# Modules whose use is the same: code named at run time, or compute outside the solution's kernels, or
# sources decoded at run time (the extension's symbols are checked whatever its source looked like).
HIDDEN_IMPORTS = {
    "importlib": "imports modules named at run time", "runpy": "runs modules named at run time",
    "numpy": "numpy computes outside the solution's kernels", "scipy": "scipy computes outside the solution's kernels",
    "numba": "numba compiles kernels kforge does not build", "jax": "jax computes outside the solution's kernels",
    "cupy": "cupy computes outside the solution's kernels", "tensorflow": "tensorflow computes outside the solution's kernels",
    "sklearn": "scikit-learn computes outside the solution's kernels", "numexpr": "numexpr computes outside the solution's kernels",
    "base64": "decodes text at run time (sources kept encoded)", "binascii": "decodes text at run time (sources kept encoded)",
    "codecs": "decodes text at run time (sources kept encoded)", "zlib": "decompresses data at run time",
    "bz2": "decompresses data at run time", "lzma": "decompresses data at run time", "gzip": "decompresses data at run time",
    "marshal": "loads code objects", "pickle": "loads objects (and code) from bytes", "dill": "loads code from bytes",
    "operator": "reaches attributes and methods by names given at run time",
}
# torch namespaces that reach operators around the static check's view (by name, through compilers and
# tracers, below the Python API) or change how tensors dispatch.
HIDDEN_TORCH = ("torch._C", "torch._ops", "torch._refs", "torch._prims", "torch._decomp", "torch._dynamo", "torch._inductor",
                "torch.jit", "torch.fx", "torch.func", "torch.vmap", "torch.overrides", "torch.utils._python_dispatch",
                "torch._higher_order_ops", "torch.export", "torch.compiler", "torch.classes", "torch.hub",
                "torch.multiprocessing", "torch.distributed", "torch._subclasses")
# Attributes that reach another function's or object's internals.
HIDDEN_ATTRIBUTES = {
    "__dict__": "reaches an object's or module's names as a dictionary", "__getattribute__": "looks names up at run time",
    "__subclasses__": "reaches classes it did not define", "__mro__": "reaches classes it did not define",
    "__self__": "reaches the object behind a bound method", "__func__": "reaches the function behind a method",
    "__closure__": "reaches another function's variables", "__wrapped__": "reaches the function behind a wrapper",
    "__defaults__": "edits another function's defaults", "__kwdefaults__": "edits another function's defaults",
    "__torch_function__": "changes how torch dispatches on its tensors",
    "__torch_dispatch__": "changes how torch dispatches on its tensors",
    "__array__": "hands tensors to another library", "__array_interface__": "hands tensors to another library",
    "__cuda_array_interface__": "hands device memory to another library", "__dlpack__": "hands tensors to another library",
}
# Methods of ModelNew that take over what calling it does, so that forward is not what runs.
HIDDEN_METHODS = {"__call__", "_call_impl", "__getattr__", "__getattribute__", "__torch_function__",
                  "__torch_dispatch__", "__init_subclass__", "__new__", "__class_getitem__"}

CPP_TORCH_CALL = re.compile(r"\b(?:torch|at)::(?:native::|nn::functional::|linalg::|special::)?([a-z_][a-z0-9_]*)\s*\(")
CPP_METHOD_CALL = re.compile(r"\.\s*([a-z_][a-z0-9_]*)\s*\(")
CPP_HINT = re.compile(r"\b(?:torch|at)::|#include")


def clip(text):
    text = str(text)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 3] + "..."


def dotted(node):
    """'a.b.c' for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class File:
    """Names a module binds at its top level: imports (alias -> dotted origin), functions, classes, values."""

    def __init__(self, tree):
        self.tree = tree
        self.aliases = {}
        self.functions = {}
        self.classes = {}
        self.values = {}
        self.imports = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.imports.add(a.name.split(".")[0])
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        self.aliases.setdefault(a.name.split(".")[0], a.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                self.imports.add(node.module.split(".")[0])
                for a in node.names:
                    self.aliases[a.asname or a.name] = node.module + "." + a.name
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.values[t.id] = node.value
                        d = dotted(node.value)
                        if d and self.resolve_name(d) != d:
                            self.aliases[t.id] = self.resolve_name(d)

    def resolve_name(self, name):
        """A dotted name with its first part replaced by what it was imported as."""
        if not name:
            return name
        head, _, rest = name.partition(".")
        origin = self.aliases.get(head)
        if origin is None:
            return name
        return origin + ("." + rest if rest else "")

    def resolve(self, node):
        d = dotted(node)
        return self.resolve_name(d) if d else None

    def method(self, cls, name, seen=None):
        """A method of class `cls` (a ClassDef), looked up through base classes defined in this file."""
        seen = seen or set()
        if cls.name in seen:
            return None
        seen.add(cls.name)
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return node
        for base in cls.bases:
            b = self.classes.get(dotted(base) or "")
            if b is not None:
                m = self.method(b, name, seen)
                if m is not None:
                    return m
        return None


def is_torch_fn(resolved):
    if not resolved or "." not in resolved:
        return False
    ns = resolved.rsplit(".", 1)[0]
    return ns in TORCH_FN_NAMESPACES


def module_op(resolved):
    """Canonical op of an nn module class constructor, e.g. torch.nn.Conv2d -> conv2d."""
    if not resolved or not resolved.startswith("torch.nn."):
        return None
    return MODULE_OPS.get(resolved.rsplit(".", 1)[1])


class Constructed:
    """The nn modules a class's __init__ assigns to self attributes: attribute -> set of canonical ops."""

    def __init__(self, f, cls):
        self.ops = {}
        self.local = {}  # attribute -> ClassDef of a class of this file (its forward is walked where called)
        init = f.method(cls, "__init__") if cls is not None else None
        if init is None:
            return
        for node in ast.walk(init):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        ops = self.module_ops(f, node.value)
                        if ops:
                            self.ops.setdefault(t.attr, set()).update(ops)
                        if isinstance(node.value, ast.Call):
                            local = f.classes.get(dotted(node.value.func) or "")
                            if local is not None and local is not cls:
                                self.local[t.attr] = local

    @classmethod
    def module_ops(cls, f, value):
        ops = set()
        if isinstance(value, ast.Call):
            r = f.resolve(value.func)
            op = module_op(r)
            if op:
                ops.add(op)
            elif r and r.rsplit(".", 1)[-1] in CONTAINERS:
                for a in list(value.args) + [k.value for k in value.keywords]:
                    for sub in ast.walk(a):
                        if isinstance(sub, ast.Call):
                            o = module_op(f.resolve(sub.func))
                            if o:
                                ops.add(o)
        elif isinstance(value, (ast.List, ast.Tuple)):
            for e in value.elts:
                ops |= cls.module_ops(f, e)
        return ops


def always_true(test):
    return isinstance(test, ast.Constant) and bool(test.value)


SHAPE_ATTRIBUTES = {"shape", "ndim", "dtype", "device", "is_cuda", "is_contiguous", "requires_grad", "itemsize"}
SHAPE_METHODS = {"size", "numel", "dim", "ndimension", "stride", "element_size", "nelement", "is_contiguous",
                 "data_ptr", "storage_offset", "get_device", "index", "__len__"}
SHAPE_FUNCTIONS = {"len", "int", "float", "min", "max", "abs", "round", "divmod", "range", "tuple", "list",
                   "bool", "isinstance"}


class Body:
    """Walks a function body, following calls into this file's functions and methods (bounded depth),
    and records compute operators (marked conditional under an if / except / loop-else branch) and calls
    of custom kernels."""

    def __init__(self, f, cls, constructed, kernels):
        self.f, self.cls, self.constructed, self.kernels = f, cls, constructed, kernels
        self.ops = []             # (canonical, spelled, line, conditional)
        self.kernel_calls = []    # (name, line)
        self.unattributed = []    # (what, line): work the check cannot tell from the solution's kernels'
        self.shape_names = set()  # local names holding shapes, sizes and counts (not tensors)
        self.visited = set()

    def unseen(self, what, line):
        if len(self.unattributed) < MAX_ITEMS:
            self.unattributed.append((what, line))

    def shapeish(self, n):
        """Whether an expression computes on shapes, sizes, constants and the module's own settings only
        (grid sizes, strides, loop bounds), not on tensors' values."""
        if isinstance(n, ast.Constant):
            return True
        if isinstance(n, ast.Name):
            return n.id in self.shape_names
        if isinstance(n, ast.Attribute):
            if n.attr in SHAPE_ATTRIBUTES:
                return True
            d = dotted(n)
            return bool(d) and (d.startswith("self.") or d.startswith("math.") or d.startswith("triton."))
        if isinstance(n, ast.Subscript):
            return self.shapeish(n.value) and self.shapeish(n.slice)
        if isinstance(n, ast.Slice):
            return all(self.shapeish(x) for x in (n.lower, n.upper, n.step) if x is not None)
        if isinstance(n, (ast.Tuple, ast.List)):
            return all(self.shapeish(e) for e in n.elts)
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Attribute) and f.attr in SHAPE_METHODS:
                return all(self.shapeish(a) for a in n.args)
            d = dotted(f) or ""
            if d in SHAPE_FUNCTIONS or d.startswith("math.") or self.f.resolve_name(d) in ("triton.cdiv",):
                return all(self.shapeish(a) for a in n.args)
            return False
        if isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp)):
            return all(self.shapeish(c) for c in ast.iter_child_nodes(n) if isinstance(c, ast.expr))
        return False

    def note_shapes(self, node):
        """Names assigned from shape expressions (B, C = x.shape; n = x.numel(); for i in range(n))."""
        if isinstance(node, ast.Assign) and self.shapeish(node.value):
            for t in node.targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Name):
                        self.shape_names.add(sub.id)
        elif isinstance(node, ast.AnnAssign) and node.value is not None and self.shapeish(node.value) \
                and isinstance(node.target, ast.Name):
            self.shape_names.add(node.target.id)
        elif isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.Call) \
                and dotted(node.iter.func) == "range" and all(self.shapeish(a) for a in node.iter.args):
            for sub in ast.walk(node.target):
                if isinstance(sub, ast.Name):
                    self.shape_names.add(sub.id)

    def walk_function(self, fn, depth, conditional):
        key = (id(fn), conditional)
        if key in self.visited or depth > MAX_DEPTH:
            return
        self.visited.add(key)
        for stmt in fn.body:
            self.stmt(stmt, depth, conditional)

    def stmt(self, node, depth, conditional):
        self.note_shapes(node)
        if isinstance(node, ast.AugAssign) and not (self.shapeish(node.target) and self.shapeish(node.value)):
            self.unseen("arithmetic on tensors (augmented assignment)", node.lineno)
        if isinstance(node, ast.If):
            self.expr(node.test, depth, conditional)
            sure = always_true(node.test)
            for s in node.body:
                self.stmt(s, depth, conditional or not sure)
            for s in node.orelse:
                self.stmt(s, depth, True)
            return
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            for s in node.body:
                self.stmt(s, depth, conditional)
            for h in node.handlers:
                for s in h.body:
                    self.stmt(s, depth, True)
            for s in node.orelse + node.finalbody:
                self.stmt(s, depth, conditional)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return  # nested definitions run only when called; calls of them are followed by name below
        if isinstance(node, (ast.For, ast.AsyncFor)):
            # for layer in self.layers: x = layer(x)
            it = dotted(node.iter)
            if it and it.startswith("self.") and it[5:] in self.constructed.ops:
                for op in sorted(self.constructed.ops[it[5:]]):
                    self.ops.append((op, it, node.lineno, conditional))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.stmt(child, depth, conditional)
            else:
                self.expr(child, depth, conditional)

    def expr(self, node, depth, conditional):
        if isinstance(node, ast.IfExp):
            self.expr(node.test, depth, conditional)
            self.expr(node.body, depth, True)
            self.expr(node.orelse, depth, True)
            return
        if isinstance(node, ast.BoolOp):
            # `a or b`, `a and b`: only the first operand surely runs.
            self.expr(node.values[0], depth, conditional)
            for v in node.values[1:]:
                self.expr(v, depth, True)
            return
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            self.ops.append(("matmul", "@", node.lineno, conditional))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            self.ops.append(("pow", "**", node.lineno, conditional))
        elif isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare)) and not self.shapeish(node):
            self.unseen("arithmetic or comparison on tensors", getattr(node, "lineno", 0))
            # its operands are still walked below, for the calls in them
        if isinstance(node, ast.Call):
            self.call(node, depth, conditional)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.stmt):
                self.expr(child, depth, conditional)

    def call(self, node, depth, conditional):
        func = node.func
        line = getattr(node, "lineno", 0)
        # getattr(obj, "name")(...) with a constant name is obj.name(...) (a built name is refused elsewhere).
        if isinstance(func, ast.Call) and dotted(func.func) == "getattr" and len(func.args) >= 2 \
                and isinstance(func.args[1], ast.Constant) and isinstance(func.args[1].value, str):
            func = ast.copy_location(ast.Attribute(value=func.args[0], attr=func.args[1].value, ctx=ast.Load()), func)
        # kernel[grid](...): a Triton launch.
        if isinstance(func, ast.Subscript):
            base = dotted(func.value)
            if base and (base in self.kernels.triton or self.f.resolve_name(base) in self.kernels.triton):
                self.kernel_calls.append((base, line))
            return
        # super().forward(x) and other methods reached through super(): the base class's own code.
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)
                and dotted(func.value.func) == "super" and self.cls is not None):
            for base in self.cls.bases:
                b = self.f.classes.get(dotted(base) or "")
                m = self.f.method(b, func.attr) if b is not None else None
                if m is not None:
                    inner = Body(self.f, b, Constructed(self.f, b), self.kernels)
                    inner.visited = self.visited
                    inner.walk_function(m, depth + 1, conditional)
                    self.ops += inner.ops
                    self.kernel_calls += inner.kernel_calls
                    break
            return
        d = dotted(func)
        if d is None:
            # A method of a computed value: ext.f(x).sum(dim=1), (a + b).relu().
            if isinstance(func, ast.Attribute) and OPS.get(func.attr):
                self.ops.append((OPS[func.attr], "." + func.attr + "()", line, conditional))
            elif not (isinstance(func, ast.Attribute) and func.attr in GLUE_METHODS):
                self.unseen("a call of a computed value", line)
            return
        resolved = self.f.resolve_name(d)
        parts = d.split(".")
        # A function of a load_inline module: ext.fn(...), self.ext.fn(...), or a name bound to one.
        if self.kernels.is_binding_call(parts, resolved):
            self.kernel_calls.append((d, line))
            return
        if resolved in self.kernels.decorated:
            self.kernel_calls.append((d, line))
            return
        # self.module(...) of a module built in __init__; self.method(...) of this class.
        if len(parts) == 2 and parts[0] == "self":
            local = self.constructed.local.get(parts[1])
            if local is not None:
                # An instance of a class of this file (a copy of the reference Model, a wrapper of a kernel):
                # its forward is walked as if written here.
                m = self.f.method(local, "forward")
                if m is not None and depth < MAX_DEPTH:
                    inner = Body(self.f, local, Constructed(self.f, local), self.kernels)
                    inner.visited = self.visited
                    inner.walk_function(m, depth + 1, conditional)
                    self.ops += inner.ops
                    self.kernel_calls += inner.kernel_calls
                    self.unattributed += inner.unattributed
                    return
            if parts[1] in self.constructed.ops:
                for op in sorted(self.constructed.ops[parts[1]]):
                    self.ops.append((op, "self." + parts[1], line, conditional))
                return
            if self.cls is not None:
                m = self.f.method(self.cls, parts[1])
                if m is not None:
                    self.walk_function(m, depth + 1, conditional)
                    return
        if len(parts) == 1 and parts[0] in self.f.functions:
            self.walk_function(self.f.functions[parts[0]], depth + 1, conditional)
            return
        if len(parts) == 1 and parts[0] in self.f.classes:
            self.unseen(f"{d}() builds an object of the solution's class inside forward", line)
            return
        last = parts[-1]
        mop = module_op(resolved)
        if mop:  # a module built and called inside forward: nn.ReLU()(x)
            self.ops.append((mop, resolved, line, conditional))
            return
        if resolved.startswith("torch.ops."):  # torch.ops.aten.relu(.default)(x)
            q = resolved.split(".")
            name = q[3] if len(q) > 3 else q[-1]
            self.ops.append((OPS.get(name, name), resolved, line, conditional))
            return
        if is_torch_fn(resolved):
            # Every ATen operator counts, in the table or not; allocation, views and copies do not.
            name = resolved.rsplit(".", 1)[1]
            if name not in GLUE_FN:
                self.ops.append((OPS.get(name, name), resolved, line, conditional))
            return
        if resolved.startswith(("torch.cuda.", "torch.backends.", "torch.nn.Parameter", "torch.Size", "math.",
                                "triton.cdiv", "triton.next_power_of_2", "torch.device", "torch.dtype")):
            return
        if len(parts) == 1 and parts[0] in SAFE_BUILTINS:
            return
        if len(parts) == 1 and parts[0] in SHAPE_FUNCTIONS and self.shapeish(node):
            return  # min(rows, start + block)
        if len(parts) >= 2 and parts[0] not in self.f.aliases:
            # A method of a value (a tensor, most likely): x.relu(), y.sum(dim=1).
            op = OPS.get(last)
            if op:
                self.ops.append((op, "." + last + "()", line, conditional))
            elif last not in GLUE_METHODS:
                self.unseen(f"{clip(d)}() (not a kernel of the solution's, not an allocation, view or copy)", line)
            return
        self.unseen(f"{clip(d)}() (not a kernel of the solution's, not an allocation, view or copy)", line)


class Kernels:
    """What counts as the solution's own kernels: functions of modules built by load_inline (and the names
    bound to them), @triton.jit kernels, and functions decorated by tilelang / CuTe DSL."""

    def __init__(self, f):
        self.f = f
        self.load_inline = []     # {line, name, cuda, cpp, where}
        self.load_files = []      # lines of torch.utils.cpp_extension.load(...)
        self.bindings = set()     # module-level names and self attributes holding a load_inline module
        self.fn_aliases = set()   # module-level names bound to one function of such a module
        self.triton = set()
        self.decorated = set()
        builders = self.builders = set()
        for fn in f.functions.values():
            if any(self.is_load_inline(c) for c in ast.walk(fn) if isinstance(c, ast.Call)):
                builders.add(fn.name)
        for node in ast.walk(f.tree):
            if isinstance(node, ast.Call):
                if self.is_load_inline(node):
                    self.load_inline.append(self.describe(node))
                elif f.resolve(node.func) == "torch.utils.cpp_extension.load":
                    self.load_files.append(node.lineno)
        for node in ast.walk(f.tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                call = node.value
                callee = dotted(call.func)
                builds = self.is_load_inline(call) or (callee in builders)
                if not builds:
                    continue
                for t in node.targets:
                    d = dotted(t)
                    if d:
                        self.bindings.add(d)
        # self.ext = ext (a module-level binding kept on the instance), and fn = ext.fn aliases.
        for node in [n for _ in range(2) for n in ast.walk(f.tree)]:
            if isinstance(node, ast.Assign):
                src = dotted(node.value)
                if src is None:
                    continue
                for t in node.targets:
                    d = dotted(t)
                    if not d:
                        continue
                    if src in self.bindings:
                        self.bindings.add(d)
                    elif "." in src and src.rsplit(".", 1)[0] in self.bindings:
                        self.fn_aliases.add(d)
        for fn in f.functions.values():
            for dec in fn.decorator_list:
                target = dec.func if isinstance(dec, ast.Call) else dec
                r = f.resolve(target) or ""
                if r.startswith("triton."):
                    self.triton.add(fn.name)
                elif r.startswith(("tilelang", "cutlass", "cute")):
                    self.decorated.add(fn.name)
        # kernel_fn = some_triton_kernel (aliases)
        for name, value in f.values.items():
            d = dotted(value)
            if d in self.triton:
                self.triton.add(name)

    def binds_kernel(self, value):
        """Whether an assigned value is a load_inline module (a call of it or of a function that makes one,
        another name holding one) or None."""
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            return True
        if isinstance(value, ast.Call):
            return self.is_load_inline(value) or (dotted(value.func) or "") in self.builders
        return (dotted(value) or "") in self.bindings

    def is_load_inline(self, call):
        return self.f.resolve(call.func) == "torch.utils.cpp_extension.load_inline"

    @staticmethod
    def describe(call):
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        names = ["name", "cpp_sources", "cuda_sources", "functions"]
        for i, a in enumerate(call.args[:4]):
            kw.setdefault(names[i], a)

        def given(node):
            return node is not None and not (isinstance(node, ast.Constant) and node.value in (None, "", []))

        name = kw.get("name")
        return {"line": call.lineno,
                "name": clip(name.value) if isinstance(name, ast.Constant) and isinstance(name.value, str) else None,
                "cuda_sources": given(kw.get("cuda_sources")),
                "cpp_sources": given(kw.get("cpp_sources"))}

    def is_binding_call(self, parts, resolved):
        if len(parts) >= 2 and ".".join(parts[:-1]) in self.bindings:
            return True
        return ".".join(parts) in self.fn_aliases or resolved in self.fn_aliases


def tampering(f):
    found = []

    def add(rule, line, detail):
        if len(found) < MAX_ITEMS:
            found.append({"rule": rule, "line": line, "detail": clip(detail)})

    def patched_root(target):
        r = f.resolve(target)
        if not r or "." not in r:
            return None
        root = r.split(".")[0]
        if root == "torch" and (r + ".").startswith("torch.backends."):
            return None  # settings (cudnn.benchmark, allow_tf32); reduced precision has its own trial
        if (r + ".").startswith("os.environ."):
            return None  # environment variables (TORCH_CUDA_ARCH_LIST): nothing the runner uses
        return (root, r) if root in PATCHED_MODULES else None

    for node in ast.walk(f.tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        while targets:
            t = targets.pop()
            if isinstance(t, (ast.Tuple, ast.List)):
                targets.extend(t.elts)
            elif isinstance(t, ast.Starred):
                targets.append(t.value)
            elif isinstance(t, ast.Subscript):
                targets.append(t.value)  # torch.some_table[k] = v edits torch's object
            elif isinstance(t, ast.Attribute):
                p = patched_root(t)
                if p:
                    add("patch_" + p[0], node.lineno, f"assigns {p[1]}: {PATCHED_MODULES[p[0]]}")
        if isinstance(node, ast.Call):
            r = f.resolve(node.func) or ""
            if r in ("setattr", "delattr", "object.__setattr__") and node.args:
                obj = f.resolve(node.args[0]) or ""
                root = obj.split(".")[0]
                if root in PATCHED_MODULES and not (obj + ".").startswith("torch.backends."):
                    add("patch_" + root, node.lineno, f"{r}() on {obj}: {PATCHED_MODULES[root]}")
            for name, why in TAMPER_CALLS.items():
                if r == name or r.startswith(name + "."):
                    add("interpreter", node.lineno, f"{name}: {why}")
            if r.startswith(("os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.vfork", "pty.", "asyncio.create_subprocess")):
                add("interpreter", node.lineno, f"{r}: starts processes")
        if isinstance(node, ast.Attribute):
            r = f.resolve(node) or ""
            if r == "sys.modules":
                add("interpreter", node.lineno, "sys.modules: " + TAMPER_CALLS["sys.modules"])
            if node.attr in TAMPER_ATTRIBUTES:
                add("interpreter", node.lineno, f".{node.attr}: {TAMPER_ATTRIBUTES[node.attr]}")
        if isinstance(node, ast.Name) and node.id == "__builtins__":
            add("interpreter", node.lineno, "__builtins__: " + TAMPER_ATTRIBUTES["__builtins__"])
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            for s, why in TAMPER_STRINGS:
                if s in node.value:
                    add("process_files", node.lineno, f"'{s}': {why}")
    for node in ast.walk(f.tree):
        mods = []
        if isinstance(node, ast.Import):
            mods = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            mods = [node.module.split(".")[0]]
        for m in mods:
            if m in TAMPER_IMPORTS:
                add("import_" + m.strip("_"), node.lineno, f"imports {m}: {TAMPER_IMPORTS[m]}")
    return found


def hidden_calls(f, kernels):
    """Constructs that hide what the solution calls or compute outside its kernels (HIDDEN_*), and rebinding of
    the names that hold its kernels: each is a reason to refuse it, since its text no longer says what runs."""
    found = []

    def add(line, detail):
        if len(found) < MAX_ITEMS:
            found.append({"line": line, "detail": clip(detail)})

    called = {id(n.func) for n in ast.walk(f.tree) if isinstance(n, ast.Call)}
    for node in ast.walk(f.tree):
        if isinstance(node, ast.Call):
            r = f.resolve(node.func) or ""
            name = dotted(node.func) or ""
            if r in ("getattr", "setattr", "delattr", "hasattr") and (
                    len(node.args) < 2 or not (isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str))):
                add(node.lineno, f"{r}() with a name built at run time: reaches attributes the text does not name")
            for key, why in HIDDEN_CALLS.items():
                if r == key or r.startswith(key + "."):
                    add(node.lineno, f"{key}: {why}")
            last = name.rsplit(".", 1)[-1]
            if last.startswith("register_") and last.endswith("hook"):
                add(node.lineno, f"{last}(): runs code outside forward, around every call")
            if last == "numpy" and isinstance(node.func, ast.Attribute):
                add(node.lineno, ".numpy(): hands tensors to numpy, which computes outside the solution's kernels")
        if isinstance(node, ast.Attribute):
            r = f.resolve(node) or ""
            if node.attr in HIDDEN_ATTRIBUTES:
                add(node.lineno, f".{node.attr}: {HIDDEN_ATTRIBUTES[node.attr]}")
            for ns in HIDDEN_TORCH:
                if r == ns or r.startswith(ns + "."):
                    add(node.lineno, f"{ns}: reaches torch's operators around what the text shows (by name, "
                                     "through a compiler or tracer, or below the Python API)")
                    break
        if isinstance(node, ast.Name) and node.id in ("eval", "exec", "compile", "__import__", "getattr", "vars",
                                                       "globals", "locals") and not isinstance(node.ctx, ast.Store):
            if id(node) not in called:  # calls are judged above; a bare reference hands the builtin around
                add(node.lineno, f"{node.id} handed around as a value: calls it where the text does not show")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for m in mods:
                root = m.split(".")[0]
                if root in HIDDEN_IMPORTS:
                    add(node.lineno, f"imports {root}: {HIDDEN_IMPORTS[root]}")
                for ns in HIDDEN_TORCH:
                    if m == ns or m.startswith(ns + "."):
                        add(node.lineno, f"imports {m}: reaches torch's operators around what the text shows")
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for a in node.names:
                    full = node.module + "." + a.name
                    for ns in HIDDEN_TORCH + tuple(k for k in HIDDEN_CALLS if "." in k):
                        if full == ns or full.startswith(ns + "."):
                            add(node.lineno, f"imports {full}: reaches torch's operators around what the text shows")
                            break
    for cls in f.classes.values():
        for item in cls.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in HIDDEN_ATTRIBUTES:
                add(item.lineno, f"class {cls.name} defines {item.name}: {HIDDEN_ATTRIBUTES[item.name]}")
    model = f.classes.get("ModelNew")
    for cls in [model] if model is not None else []:
        for item in cls.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in HIDDEN_METHODS:
                add(item.lineno, f"ModelNew defines {item.name}: calling the model would not be its forward")
    # The names holding the solution's kernels are bound by load_inline (or a function that calls it), another
    # such name, or None (a build that failed), and nothing else.
    for node in ast.walk(f.tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for t in targets:
            for sub in ast.walk(t):
                d = dotted(sub) if isinstance(sub, (ast.Name, ast.Attribute)) else None
                if not d:
                    continue
                head = d.rsplit(".", 1)[0] if "." in d else None
                if head in kernels.bindings and d not in kernels.bindings:
                    add(node.lineno, f"assigns {d}: replaces a function of a load_inline module")
                if d in kernels.bindings and isinstance(node, (ast.Assign, ast.AnnAssign)) and sub is t \
                        and not kernels.binds_kernel(node.value):
                    add(node.lineno, f"assigns {d}: the name of a load_inline module bound to something else")
                if d in kernels.triton and isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)) \
                        and not (isinstance(node, ast.Assign) and dotted(node.value) in kernels.triton):
                    add(node.lineno, f"assigns {d}: replaces a Triton kernel")
    return found


def dynamic_code(f):
    out = []
    for node in ast.walk(f.tree):
        if isinstance(node, ast.Call):
            r = f.resolve(node.func) or ""
            if r in DYNAMIC_CODE and len(out) < MAX_ITEMS:
                out.append({"line": node.lineno, "what": r})
    return out


def cpp_ops(tree):
    """Torch operators called from C++ source strings (a load_inline extension that calls at::matmul does the
    reference's work with PyTorch as surely as forward calling torch.matmul)."""
    found = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        text = node.value
        if not CPP_HINT.search(text):
            continue
        for m in CPP_TORCH_CALL.finditer(text):
            op = OPS.get(m.group(1))
            if op:
                found.setdefault(op, "torch::" + m.group(1))
        for m in CPP_METHOD_CALL.finditer(text):
            op = OPS.get(m.group(1))
            if op and m.group(1) not in ("max", "min", "sum", "abs", "sign", "any", "all", "exp", "log", "pow",
                                         "sqrt", "sin", "cos", "erf", "dot"):
                found.setdefault(op, "." + m.group(1) + "()")
    return [{"op": op, "via": via} for op, via in sorted(found.items())][:MAX_ITEMS]


def forward_of(f, class_name):
    cls = f.classes.get(class_name)
    if cls is None:
        return None, None
    return cls, f.method(cls, "forward")


def ops_list(body):
    seen = {}
    for op, via, line, cond in body.ops:
        if op == "dropout":
            continue
        prev = seen.get(op)
        if prev is None or (prev["conditional"] and not cond):
            seen[op] = {"op": clip(op), "via": clip(via), "line": line, "conditional": cond}
            if op in COVERS:
                seen[op]["covers"] = COVERS[op]
    return sorted(seen.values(), key=lambda o: o["op"])[:MAX_ITEMS]


def check_solution(f):
    kernels = Kernels(f)
    cls, fwd = forward_of(f, "ModelNew")
    out = {"has_model_new": cls is not None, "has_forward": fwd is not None,
           "imports": [clip(m) for m in sorted(f.imports)[:MAX_ITEMS]],
           "load_inline": kernels.load_inline[:MAX_ITEMS],
           "load_inline_in_function": any(
               any(isinstance(c, ast.Call) and kernels.is_load_inline(c) for c in ast.walk(node))
               for node in ast.walk(f.tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))),
           "load_files": kernels.load_files[:MAX_ITEMS],
           "triton_kernels": sorted(kernels.triton)[:MAX_ITEMS],
           "uses_triton": "triton" in f.imports,
           "kernel_calls": [], "kernel_reachable": False, "torch_ops": [],
           "cpp_torch_ops": cpp_ops(f.tree), "tampering": tampering(f), "dynamic_code": dynamic_code(f),
           "hidden_calls": hidden_calls(f, kernels)}
    why = []
    if fwd is not None:
        body = Body(f, cls, Constructed(f, cls), kernels)
        body.walk_function(fwd, 0, False)
        out["kernel_calls"] = [{"call": clip(n), "line": ln} for n, ln in body.kernel_calls][:MAX_ITEMS]
        out["kernel_reachable"] = bool(body.kernel_calls)
        out["torch_ops"] = ops_list(body)
        why += [f"line {o['line']}: torch operator {o['via']}" for o in out["torch_ops"]]
        why += [f"line {ln}: {what}" for what, ln in body.unattributed]
    if out["hidden_calls"] or out["tampering"] or out["dynamic_code"]:
        why.append("the text hides calls (refused)")
    if not out["kernel_reachable"]:
        why.append("forward reaches no kernel of the solution's")
    # Trusted attribution: forward reaches nothing but the solution's kernels, allocation, views, copies and
    # shape arithmetic, so its outputs can only come from those kernels (whose extensions kforge reads for
    # torch operators when it builds them). Anything else leaves only the runner's in-process count.
    out["attribution"] = {"trusted": not why, "why": [clip(w) for w in why[:8]]}
    return out


def check_problem(f):
    cls, fwd = forward_of(f, "Model")
    if fwd is None:
        return {"reference_ops": [], "has_model": cls is not None}
    constructed = Constructed(f, cls)
    body = Body(f, cls, constructed, Kernels(f))
    body.walk_function(fwd, 0, False)
    ops = {o["op"] for o in ops_list(body)}
    for module_ops in constructed.ops.values():
        ops |= module_ops
    ops.discard("dropout")
    return {"reference_ops": sorted(ops)[:MAX_ITEMS], "has_model": True}


def main():
    args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
    mode, path = args.get("--mode"), args.get("--file")
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as e:
        print(json.dumps({"ok": False, "error": "unreadable", "detail": clip(e)}))
        return
    if len(data) > MAX_BYTES:
        print(json.dumps({"ok": False, "error": "too_large", "detail": f"the file is over {MAX_BYTES} bytes"}))
        return
    try:
        tree = ast.parse(data.decode("utf-8", errors="replace"), filename="solution.py")
    except SyntaxError as e:
        print(json.dumps({"ok": False, "error": "syntax",
                          "detail": clip(f"line {e.lineno}: {e.msg}")}))
        return
    except (RecursionError, MemoryError, ValueError) as e:
        print(json.dumps({"ok": False, "error": "syntax", "detail": clip(f"cannot be parsed: {type(e).__name__}")}))
        return
    try:
        f = File(tree)
        res = check_solution(f) if mode == "solution" else check_problem(f)
    except RecursionError:
        print(json.dumps({"ok": False, "error": "too_complex", "detail": "nested too deeply to analyse"}))
        return
    res["ok"] = True
    emit(res)


def emit(res):
    """The answer, bounded and always valid UTF-8 JSON: a name in the solution may hold anything (lone
    surrogates become '?', long lists are cut)."""
    text = json.dumps(res, ensure_ascii=False)
    if len(text) > MAX_ANSWER:
        for k, v in list(res.items()):
            if isinstance(v, list):
                res[k] = v[:8]
        text = json.dumps(res, ensure_ascii=False)
    if len(text) > MAX_ANSWER:
        text = json.dumps({"ok": False, "error": "too_complex", "detail": "the findings do not fit the answer"})
    sys.stdout.buffer.write(text.encode("utf-8", "replace") + b"\n")


if __name__ == "__main__":
    main()
