"""kforge static check of a KernelBench solution (or of a problem's reference): trusted code, hostile data.

Reads one Python file and never executes it: only `ast` from the standard library, so it runs as
`python3 -I -S` in a compile-profile sandbox job in well under a second. Prints one bounded JSON object on
stdout. docs/candidates.md ("What is checked") describes the findings and the verdicts kforge derives:

  --mode solution  what calling ModelNew runs on the measured path: its own kernels (functions of load_inline
                   modules, @triton.jit kernels launched as kernel[grid](...)), PyTorch compute operators
                   (normalised through OPS) and the units of the reference's kind of work forward surely does
                   through PyTorch, the load_inline calls, imports, and Python-level tampering with the harness.
  --mode problem   the reference Model's work: its compute operators and its units of work, counted.

The solution's own code is followed the way Python finds it without running it (Values: what names,
attributes, parameters and containers may hold; Walk: forward path by path, with early returns, exception
handlers and branches the measured path never takes). What the text hides (names built at run time, exec,
decoders, numpy on values, torch's routes around its Python API) is refused as `hidden_calls` where it can run,
so what remains is what runs. `attribution` says whether forward reaches nothing but the solution's kernels and
glue: the trusted basis of a verdict's `attribution: trusted`; the extensions' own imports are read from the
built libraries (extension_symbols.cpp), not from this text.

Why one file of ~2000 lines: it is a sandboxed program, not a package. Each check is a job folder holding
exactly this script and the hostile input.py (static_check.cpp), run as `python3 -I -S -B`, so it sees no
path of kforge's and no site packages; a module of its own would have to be copied into every job and put on
sys.path from the very folder that holds the hostile file, and its text is part of the compile cache key
(solution_compiler.cpp). Its parts are read together: the tables (operators, tampering, hidden calls, each
with its reason) feed File, Values and Walk, then the checks below them (Kernels, tampering, hidden calls),
in that order.
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
    "train", "modules", "children", "register_buffer", "register_parameter", "add_module", "cdiv",
    "save_for_backward", "mark_non_differentiable", "mark_dirty", "set_materialize_grads", "insert", "pop",
    "index", "count", "update", "setdefault"}
# Builtins that compute nothing a reference does (shapes, loops, checks).
SAFE_BUILTINS = {"len", "int", "float", "bool", "range", "enumerate", "zip", "isinstance", "tuple", "list", "dict",
                 "print", "str", "type", "super", "slice", "issubclass", "callable", "ValueError", "RuntimeError",
                 "TypeError", "AssertionError", "NotImplementedError", "repr", "format", "id", "object"}
MODULE_OPS = {name: canon for canon, names in _MODULES.items() for name in names}
# nn modules made of several operators, in units: a solution that keeps the attention and replaces a layer's norms
# with its kernel does part of the layer's work.
_ENCODER = {"attention": 1, "matmul": 2, "layer_norm": 2, "relu": 1, "arithmetic": 2}
_DECODER = {"attention": 2, "matmul": 2, "layer_norm": 3, "relu": 1, "arithmetic": 3}
COMPOSITE = {"TransformerEncoderLayer": _ENCODER, "TransformerDecoderLayer": _DECODER,
             "TransformerEncoder": {k: n * 1000 for k, n in _ENCODER.items()},
             "TransformerDecoder": {k: n * 1000 for k, n in _DECODER.items()},
             "Transformer": {k: (_ENCODER.get(k, 0) + _DECODER.get(k, 0)) * 1000 for k in _DECODER}}
# nn modules that compute nothing of a reference's (called, they pass their input on).
NO_COMPUTE_MODULES = {"Identity", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                      "FeatureAlphaDropout", "Flatten", "Unflatten", "Parameter", "Module"}
# Tensor arithmetic by name (torch.add, x.mul_()): one unit, "arithmetic", like + - * / and comparisons.
ARITHMETIC = {n + s for n in ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
                              "floor_divide", "rsub", "neg", "negative", "remainder", "fmod", "eq", "ne", "lt", "le",
                              "gt", "ge", "greater", "less", "logical_and", "logical_or", "logical_not",
                              "logical_xor", "bitwise_and", "bitwise_or", "bitwise_not", "bitwise_xor")
              for s in ("", "_")}
# Views whose .contiguous() copies (a "copy" unit, like .clone()): a reference's channel shuffle is work too.
REORDERS = {"transpose", "permute", "t", "movedim", "swapaxes", "swapdims", "mT", "T"}
MANY = 1000  # how many times a unit inside a loop counts (on both sides: loops compare with loops)
MOST = 10 ** 12  # a count's cap
# Calls of these modules compute nothing a reference does (clocks, devices, grid sizes, initialisation).
SAFE_MODULES = ("torch.cuda.", "torch.backends.", "torch.nn.Parameter", "torch.Size", "math.", "triton.",
                "torch.device", "torch.dtype", "torch.nn.init.", "torch.get_default_dtype", "warnings.")
# nn.Module's own attribute names: a name built at run time that could be one of them is a hidden call.
NN_MODULE_NAMES = {
    "add_module", "append", "apply", "bfloat16", "buffers", "call_super_init", "children", "clear", "compile", "cpu",
    "cuda", "double", "dump_patches", "eval", "extend", "extra_repr", "float", "forward", "get_buffer",
    "get_extra_state", "get_parameter", "get_submodule", "half", "insert", "ipu", "items", "keys",
    "load_state_dict", "modules", "mtia", "named_buffers", "named_children", "named_modules", "named_parameters",
    "parameters", "pop", "register_backward_hook", "register_buffer", "register_forward_hook",
    "register_forward_pre_hook", "register_full_backward_hook", "register_full_backward_pre_hook",
    "register_load_state_dict_post_hook", "register_load_state_dict_pre_hook", "register_module",
    "register_parameter", "register_state_dict_post_hook", "register_state_dict_pre_hook", "requires_grad_",
    "set_extra_state", "set_submodule", "share_memory", "state_dict", "to", "to_empty", "train", "training", "type",
    "update", "values", "xpu", "zero_grad"}
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
    "scipy": "scipy computes outside the solution's kernels",
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


def site(node):
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def scope_nodes(body):
    """The nodes of a scope's statements, not those inside the definitions nested in it (their own scopes)."""
    todo = list(body) if isinstance(body, list) else [body]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, DEFS):
            # Decorators, defaults and base classes run in the enclosing scope.
            todo.extend(getattr(node, "decorator_list", []))
            todo.extend(getattr(node, "bases", []))
            if isinstance(node, FUNCTIONS):
                todo.extend(d for d in node.args.defaults + node.args.kw_defaults if d is not None)
            continue
        todo.extend(ast.iter_child_nodes(node))


def built_name(node):
    """A regular expression for a name built from text and values (f"layer_{i}", "w" + str(i)), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.escape(node.value)
    if isinstance(node, ast.JoinedStr):
        return "".join(re.escape(v.value) if isinstance(v, ast.Constant) and isinstance(v.value, str) else ".*"
                       for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = built_name(node.left), built_name(node.right)
        return (left if left is not None else ".*") + (right if right is not None else ".*")
    return None


class File:
    """Names a module binds (imports: alias -> dotted origin; top-level functions, classes, values) and its
    scopes: every function, lambda and class, where it is defined and the names local to it."""

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
        self.parent = {}     # id(def) -> the function it is defined in (None: the module); classes are no scope
        self.class_of = {}   # id(method) -> the ClassDef whose body defines it
        self.scopes = [None]  # the module, then every function, lambda and class
        self.locals = {}     # id(function) -> names local to it
        self.nodes = {}      # id(def) -> def
        todo = [(tree.body, None, None)]
        while todo:
            body, fn, cls = todo.pop()
            for node in scope_nodes(body):
                if not isinstance(node, DEFS):
                    continue
                self.nodes[id(node)] = node
                self.parent[id(node)] = fn
                self.scopes.append(node)
                if isinstance(node, ast.ClassDef):
                    todo.append((node.body, fn, node))
                else:
                    if cls is not None and node in cls.body:
                        self.class_of[id(node)] = cls
                    todo.append((node.body, node, None))
        for node in self.scopes[1:]:
            if isinstance(node, FUNCTIONS):
                self.locals[id(node)] = self.local_names(node)
        self.training_fixed = self.mode_never_changed()

    @staticmethod
    def local_names(fn):
        a = fn.args
        names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
        names |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
        for node in scope_nodes(fn.body):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not fn:
                names.add(node.name)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= {(x.asname or x.name).split(".")[0] for x in node.names}
        return names

    def mode_never_changed(self):
        """Whether nothing in the file switches a module out of training mode: then `self.training` is True on
        the measured path (the runner, like KernelBench's harness, never calls eval())."""
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute) and node.attr == "training" and isinstance(node.ctx, ast.Store):
                return False
            if isinstance(node, ast.Constant) and node.value in ("eval", "train", "training"):
                return False  # getattr(self, "eval")()
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute) and node.func.attr in ("eval", "train"):
                    return False
                if dotted(node.func) in ("setattr", "object.__setattr__") and (
                        len(node.args) < 2 or re.fullmatch(built_name(node.args[1]) or ".*", "training")):
                    return False
        return True

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


# ------------------------------------------------------------------------------------------------ values
# What names, attributes, parameters and containers may hold, over the whole file: a union over every
# assignment, argument and return (flow-insensitive, a few rounds to a fixed point), so that forward's calls
# are followed however the solution stores what it calls. Each abstract value is a tuple:
#   ("ext", site)            a module load_inline built: its attributes are the solution's kernels
#   ("kernel", name)         one of the solution's kernels (a load_inline function, a TileLang / CuTe DSL one)
#   ("triton", name) ("launch", name)   a @triton.jit function; kernel[grid], its launcher
#   ("mod", op, site)        an instance of a torch.nn module class (op "" when it computes nothing)
#   ("torchfn", name) ("torchcls", name)   a torch function or class held as a value
#   ("seq", site, kind)      a container (Sequential, ModuleList, ModuleDict, list, tuple, dict)
#   ("cls", id) ("inst", id) ("fn", id) ("meth", class id, id) ("apply", id) ("super", class id, inst)
#                            the solution's own classes, their instances, functions, bound methods,
#                            autograd.Function.apply, super() inside a method
#   ("load_inline",) ("partial",) ("builtin", name) ("none",) ("unknown",)
UNKNOWN = ("unknown",)
NONE = ("none",)
CAP = 64  # values kept per name: a bound on the analysis, never a finding
# Decorators that leave a function what it was (for what it computes).
TRANSPARENT_DECORATORS = {"staticmethod", "classmethod", "property", "functools.lru_cache", "functools.cache",
                          "functools.wraps", "torch.no_grad", "torch.inference_mode", "torch.enable_grad",
                          "torch.autograd.function.once_differentiable", "torch.cuda.amp.custom_fwd",
                          "torch.amp.custom_fwd", "lru_cache", "cache"}
BUILTIN_NAMES = SAFE_BUILTINS | {"getattr", "hasattr", "setattr", "min", "max", "abs", "round", "sorted",
                                 "reversed", "iter", "next", "all", "any", "sum", "map", "filter", "divmod",
                                 "hash", "Exception", "IndexError", "KeyError", "set", "frozenset", "None"}


class Values:
    def __init__(self, f):
        self.f = f
        self.env = {}       # (scope id (0: module), name) -> values
        self.attrs = {}     # (owner value, name) -> values
        self.patterns = {}  # (owner value, regex) -> values registered under names built at run time
        self.loose = {}     # name -> values assigned as attributes of objects the check cannot name
        self.elements = {}  # container value -> its elements
        self.returns = {}   # id(function) -> values it returns
        self.class_ids = {id(n): n for n in f.scopes[1:] if isinstance(n, ast.ClassDef)}
        self.frozen = False
        for node in f.scopes[1:]:
            cls = f.class_of.get(id(node))
            if cls is not None and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args.posonlyargs + node.args.args
                kind = self.decorator_kind(node)
                if a and kind != "staticmethod":
                    self.add(self.env, (id(node), a[0].arg), {("cls" if kind == "classmethod" else "inst", id(cls))})
        for _ in range(10):
            self.changed = False
            for scope in f.scopes:
                self.run(scope)
            if not self.changed:
                break
        self.frozen = True

    # -- state
    def nothing(self):
        """What is not known yet: nothing while the rounds run (a value found in a later round is not preceded
        by an `unknown` that would stay), unknown once they are done."""
        return {UNKNOWN} if self.frozen else set()

    def add(self, table, key, values):
        if self.frozen:
            return
        cur = table.setdefault(key, set())
        for v in values:
            if len(cur) >= CAP:
                break
            if v not in cur:
                cur.add(v)
                self.changed = True

    def decorator_kind(self, fn):
        for dec in getattr(fn, "decorator_list", []):
            r = self.f.resolve(dec.func if isinstance(dec, ast.Call) else dec) or ""
            if r in ("staticmethod", "classmethod"):
                return r
        return None

    def def_value(self, node):
        """What a def statement binds its name to."""
        if isinstance(node, ast.ClassDef):
            return ("cls", id(node))
        for dec in node.decorator_list:
            r = self.f.resolve(dec.func if isinstance(dec, ast.Call) else dec) or ""
            if r.startswith("triton."):
                return ("triton", node.name)
            if r.startswith(("tilelang", "cutlass", "cute")):
                return ("kernel", node.name)
            if r not in TRANSPARENT_DECORATORS:
                return UNKNOWN
        return ("fn", id(node))

    # -- the statements of one scope, once per round
    def run(self, scope):
        body = self.f.tree.body if scope is None else scope.body
        if isinstance(scope, ast.Lambda):
            self.add(self.returns, id(scope), self.ev(scope.body, scope))
            return
        for node in scope_nodes(body):
            if isinstance(node, DEFS) and not isinstance(node, ast.Lambda):
                if not (isinstance(scope, ast.ClassDef) and isinstance(node, FUNCTIONS)):  # methods: method()
                    self.bind(node.name, {self.def_value(node)}, scope)
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and scope is not None:
                for a in node.names:  # an import inside a function binds a local name
                    full = a.name if isinstance(node, ast.Import) else f"{node.module}.{a.name}"
                    self.bind((a.asname or a.name).split(".")[0],
                              {self.classify(full if a.asname or isinstance(node, ast.ImportFrom)
                                             else a.name.split(".")[0])}, scope)
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    self.assign(t, node.value, self.ev(node.value, scope), scope)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                vals = self.ev(node.value, scope)
                if isinstance(node, ast.AugAssign):  # layers += [Block()] extends; anything else computes
                    vals = {v for v in vals if v[0] == "seq"} or {UNKNOWN}
                self.assign(node.target, node.value, vals, scope)
            elif isinstance(node, ast.NamedExpr):
                self.assign(node.target, node.value, self.ev(node.value, scope), scope)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                self.bind_loop(node.target, node.iter, scope)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                self.assign(node.optional_vars, None, {UNKNOWN}, scope)
            elif isinstance(node, ast.Return) and node.value is not None and scope is not None:
                self.add(self.returns, id(scope), self.ev(node.value, scope))
            elif isinstance(node, ast.Call):
                self.effects(node, scope)

    def scope_key(self, scope):
        return 0 if scope is None else id(scope)

    def bind(self, name, vals, scope):
        if isinstance(scope, ast.ClassDef):
            self.add(self.attrs, (("cls", id(scope)), name), vals)
        else:
            self.add(self.env, (self.scope_key(scope), name), vals)

    def assign(self, target, value_node, vals, scope):
        if isinstance(target, ast.Name):
            self.bind(target.id, vals, scope)
        elif isinstance(target, ast.Attribute):
            for owner in self.ev(target.value, scope):
                self.set_attr(owner, target.attr, vals)
        elif isinstance(target, ast.Subscript):
            for owner in self.ev(target.value, scope):
                if owner[0] == "seq":
                    self.add(self.elements, owner, vals)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value_node, (ast.Tuple, ast.List)) and len(value_node.elts) == len(target.elts):
                for t, v in zip(target.elts, value_node.elts):
                    self.assign(t, v, self.ev(v, scope), scope)
            else:
                inner = set().union(*[self.elements.get(v, set()) for v in vals if v[0] == "seq"]) or self.nothing()
                for t in target.elts:
                    self.assign(t, None, inner, scope)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, None, vals, scope)

    def set_attr(self, owner, name, vals):
        if owner[0] in ("inst", "cls", "seq", "mod"):
            self.add(self.attrs, (owner, name), vals)
        elif owner[0] == "super":
            self.add(self.attrs, (("inst", owner[2]), name), vals)
        elif owner[0] not in ("none", "ext", "mod"):
            self.add(self.loose, name, vals)

    def register(self, owners, name_node, vals):
        """setattr(obj, name, v), obj.add_module(name, v): constant names are attributes; built ones
        (f"layer_{i}") are kept as patterns that getattr with a matching built name finds."""
        for owner in owners:
            if isinstance(name_node, ast.Constant) and isinstance(name_node.value, str):
                self.set_attr(owner, name_node.value, vals)
            else:
                pattern = built_name(name_node) or ".*"
                key = ("inst", owner[2]) if owner[0] == "super" else owner
                self.add(self.patterns, (key, pattern), vals)

    def bind_loop(self, target, it, scope):
        """for x in xs / for i, x in enumerate(xs) / for a, b in zip(xs, ys) / for k, v in d.items()."""
        if isinstance(it, ast.Call) and isinstance(target, ast.Tuple):
            fn = dotted(it.func) or ""
            if fn == "enumerate" and it.args and len(target.elts) == 2:
                self.assign(target.elts[0], None, {UNKNOWN}, scope)
                self.assign(target.elts[1], None, self.iterate(it.args[0], scope), scope)
                return
            if fn == "zip" and len(it.args) == len(target.elts):
                for t, a in zip(target.elts, it.args):
                    self.assign(t, None, self.iterate(a, scope), scope)
                return
            if isinstance(it.func, ast.Attribute) and it.func.attr == "items" and len(target.elts) == 2:
                self.assign(target.elts[0], None, {UNKNOWN}, scope)
                self.assign(target.elts[1], None, self.iterate(it, scope), scope)
                return
        self.assign(target, None, self.iterate(it, scope), scope)

    def iterate(self, it, scope):
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in ("items", "values"):
            it = it.func.value
        out = set()
        for v in self.ev(it, scope):
            if v[0] == "seq":
                out |= self.elements.get(v, set())
            elif v[0] == "inst":  # iterating a module of the solution's (a ModuleList subclass): its submodules
                out |= {x for (o, _), vals in self.attrs.items() if o == v for x in vals}
            else:
                out.add(UNKNOWN)
        return out or self.nothing()

    def effects(self, call, scope):
        """Calls that store values: list.append / extend / insert, add_module, setattr, dict update."""
        func = call.func
        if isinstance(func, ast.Attribute):
            m = func.attr
            owners = [o for o in self.ev(func.value, scope) if o[0] in ("seq", "inst", "super")]
            if not owners:
                return
            if m in ("append", "add") and call.args:
                vals = self.ev(call.args[-1], scope)
            elif m == "insert" and len(call.args) == 2:
                vals = self.ev(call.args[1], scope)
            elif m in ("extend", "update") and call.args:
                vals = self.iterate(call.args[0], scope)
            elif m in ("add_module", "register_module") and len(call.args) == 2:
                self.register(owners, call.args[0], self.ev(call.args[1], scope))
                return
            else:
                return
            for o in owners:
                if o[0] == "seq":
                    self.add(self.elements, o, vals)
        elif dotted(func) == "setattr" and len(call.args) == 3:
            self.register(self.ev(call.args[0], scope), call.args[1], self.ev(call.args[2], scope))

    # -- what an expression may be
    def lookup(self, name, scope):
        s = scope
        if isinstance(s, ast.ClassDef):
            v = self.attrs.get((("cls", id(s)), name))
            if v:
                return v
            s = self.f.parent.get(id(s))
        while s is not None:
            if isinstance(s, ast.ClassDef):
                s = self.f.parent.get(id(s))
                continue
            if name in self.f.locals.get(id(s), ()):
                return self.env.get((id(s), name)) or self.nothing()
            s = self.f.parent.get(id(s))
        v = self.env.get((0, name))
        if v:
            return v
        if name in self.f.aliases:
            return {self.classify(self.f.resolve_name(name))}
        if name in BUILTIN_NAMES:
            return {("builtin", name)}
        return self.nothing()

    @staticmethod
    def classify(resolved):
        last = resolved.rsplit(".", 1)[-1]
        if resolved == "torch.utils.cpp_extension.load_inline":
            return ("load_inline",)
        if resolved == "functools.partial":
            return ("partial",)
        if resolved.startswith("torch.") and last[:1].isupper():
            return ("torchcls", resolved)
        if is_torch_fn(resolved) or resolved.startswith("torch.ops."):
            return ("torchfn", resolved)
        return ("unknown", resolved)

    def ev(self, node, scope):
        """The values an expression may have (a set of the tuples above)."""
        if isinstance(node, ast.Constant):
            return {NONE} if node.value is None else {("const",)}
        if isinstance(node, ast.Name):
            return self.lookup(node.id, scope)
        if isinstance(node, ast.Attribute):
            d = dotted(node)
            head = d.split(".")[0] if d else None
            if head and head in self.f.aliases and self.lookup(head, scope) == {self.classify(self.f.resolve_name(head))}:
                return {self.classify(self.f.resolve_name(d))}
            out = set()
            for v in self.ev(node.value, scope):
                out |= self.attr_of(v, node.attr)
            return out or self.nothing()
        if isinstance(node, ast.Subscript):
            out = set()
            for v in self.ev(node.value, scope):
                if v[0] == "triton":
                    out.add(("launch", v[1]))
                elif v[0] == "seq":
                    out |= self.elements.get(v, set()) or self.nothing()
                else:
                    out.add(UNKNOWN)
            return out
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.GeneratorExp,
                             ast.DictComp)):
            seq = ("seq", site(node), "dict" if isinstance(node, (ast.Dict, ast.DictComp)) else "list")
            if not self.frozen:
                if isinstance(node, ast.Dict):
                    items = [v for v in node.values if v is not None]
                elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
                    items = node.elts
                else:
                    items = [node.value if isinstance(node, ast.DictComp) else node.elt]
                for e in items:
                    if isinstance(e, ast.Starred):
                        self.add(self.elements, seq, self.iterate(e.value, scope))
                    else:
                        self.add(self.elements, seq, self.ev(e, scope))
            return {seq}
        if isinstance(node, ast.IfExp):
            return self.ev(node.body, scope) | self.ev(node.orelse, scope)
        if isinstance(node, ast.BoolOp):
            return set().union(*[self.ev(v, scope) for v in node.values])
        if isinstance(node, (ast.NamedExpr, ast.Starred, ast.Await)):
            return self.ev(node.value, scope)
        if isinstance(node, ast.Lambda):
            return {("fn", id(node))}
        return {UNKNOWN}

    def method(self, cid, name, seen=None):
        """(id of the defining class, FunctionDef) of a method, through base classes of this file."""
        seen = seen if seen is not None else set()
        cls = self.class_ids.get(cid)
        if cls is None or cid in seen:
            return None
        seen.add(cid)
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return cid, node
        for b in self.bases(cls):
            if b[0] == "cls":
                m = self.method(b[1], name, seen)
                if m is not None:
                    return m
        return None

    def bases(self, cls):
        return set().union(*[self.ev(b, self.f.parent.get(id(cls))) for b in cls.bases]) if cls.bases else set()

    def torch_base(self, cid, seen=None):
        """The torch class a class of the solution's derives from (torch.nn.Linear, torch.autograd.Function)."""
        seen = seen if seen is not None else set()
        cls = self.class_ids.get(cid)
        if cls is None or cid in seen:
            return None
        seen.add(cid)
        for b in self.bases(cls):
            if b[0] == "torchcls" and b[1] not in ("torch.nn.Module", "torch.nn.modules.module.Module"):
                return b[1]
            if b[0] == "cls":
                r = self.torch_base(b[1], seen)
                if r:
                    return r
        return None

    def class_attr(self, cid, name, seen=None):
        seen = seen if seen is not None else set()
        if cid in seen or cid not in self.class_ids:
            return set()
        seen.add(cid)
        out = set(self.attrs.get((("cls", cid), name), set()))
        for b in self.bases(self.class_ids[cid]):
            if b[0] == "cls":
                out |= self.class_attr(b[1], name, seen)
        return out

    def attr_of(self, v, name):
        kind = v[0]
        if kind == "ext":
            return {("kernel", name)}
        if kind == "none":
            return {("raise",)}  # an attribute of None raises: no normal path goes on from there
        if kind in ("inst", "cls", "super"):
            cid = v[1]
            inst = ("inst", v[2]) if kind == "super" else v
            out = set()
            if kind == "inst":
                out |= self.attrs.get((v, name), set()) | self.loose.get(name, set())
                out |= {x for (o, p), vals in self.patterns.items() if o == v and re.fullmatch(p, name) for x in vals}
            if kind == "super":
                m = None
                for b in self.bases(self.class_ids.get(cid)) if cid in self.class_ids else ():
                    if b[0] == "cls":
                        m = self.method(b[1], name)
                        if m:
                            break
                base = self.torch_base(cid)
                if m is None and name == "forward" and base:  # super().forward(x) of an nn.Conv2d subclass
                    out.add(("mod", module_op(base) or base.rsplit(".", 1)[-1].lower(), (0, 0)))
            else:
                out |= self.class_attr(cid, name)
                m = self.method(cid, name)
            if m is not None:
                static = self.decorator_kind(m[1]) == "staticmethod"
                out.add(("fn", id(m[1])) if static or kind == "cls" else ("meth", inst[1], id(m[1])))
            if kind == "cls" and name == "apply" and self.is_function_class(cid):
                out.add(("apply", cid))
            return out or self.nothing()
        if kind == "seq":
            out = set(self.attrs.get((v, name), set()))
            out |= {x for (o, p), vals in self.patterns.items() if o == v and re.fullmatch(p, name) for x in vals}
            return out or self.nothing()
        if kind == "mod" and name == "forward":
            return {v}
        return {UNKNOWN}

    def runs_on_call(self, v):
        """What calling an instance (or autograd.Function.apply) runs."""
        if v[0] == "apply":
            return self.attr_of(("cls", v[1]), "forward")
        if self.method(v[1], "__call__") or self.class_attr(v[1], "__call__") or self.attrs.get((v, "__call__")):
            return self.attr_of(v, "__call__")
        return self.attr_of(v, "forward")

    def is_function_class(self, cid):
        return (self.torch_base(cid) or "").startswith(("torch.autograd.Function", "torch.autograd.function."))

    def call(self, node, scope):
        out = set()
        for c in self.ev(node.func, scope):
            out |= self.call_value(c, node, scope)
        return out or self.nothing()

    def call_value(self, c, node, scope):
        kind = c[0]
        args = node.args
        if kind == "load_inline":
            return {("ext", site(node))}
        if kind == "partial":
            return self.ev(args[0], scope) if args else {UNKNOWN}
        if kind == "torchcls":
            last = c[1].rsplit(".", 1)[-1]
            if last in CONTAINERS:
                seq = ("seq", site(node), last)
                for a in args:
                    if last == "Sequential" and not isinstance(a, ast.Starred) and not (
                            isinstance(a, ast.Call) and (dotted(a.func) or "").endswith("OrderedDict")):
                        self.add(self.elements, seq, self.ev(a, scope))
                    else:
                        self.add(self.elements, seq, self.iterate(a.value if isinstance(a, ast.Starred) else a, scope))
                return {seq}
            op = last if last in COMPOSITE else module_op(c[1]) or ("" if last in NO_COMPUTE_MODULES else last.lower())
            return {("mod", op, site(node))}
        if kind == "cls":
            init = self.method(c[1], "__init__")
            if init is not None:
                self.bind_args(init[1], [{("inst", c[1])}], node, scope)
            return {("inst", c[1])}
        if kind == "fn":
            fn = self.f.nodes.get(c[1])
            self.bind_args(fn, [], node, scope)
            return self.returns.get(c[1], set()) or self.nothing()
        if kind == "meth":
            fn = self.f.nodes.get(c[2])
            self.bind_args(fn, [{("inst", c[1])}], node, scope)
            return self.returns.get(c[2], set()) or self.nothing()
        if kind in ("apply", "inst"):
            m = self.method(c[1], "forward")
            if m is None:
                return {UNKNOWN}
            self.bind_args(m[1], [{UNKNOWN} if kind == "apply" else {c}], node, scope)
            return self.returns.get(id(m[1]), set()) or self.nothing()
        if kind == "builtin":
            name = c[1]
            if name == "getattr" and len(args) >= 2:
                owners = self.ev(args[0], scope)
                if isinstance(args[1], ast.Constant) and isinstance(args[1].value, str):
                    return set().union(*[self.attr_of(o, args[1].value) for o in owners])
                return self.built_lookup(owners, args[1]) or {UNKNOWN}
            if name in ("list", "tuple", "sorted", "reversed", "iter") and args:
                seq = ("seq", site(node), "list")
                self.add(self.elements, seq, self.iterate(args[0], scope))
                return {seq}
            if name == "next" and args:
                return self.iterate(args[0], scope)
            if name == "super":
                cls = self.f.class_of.get(id(scope)) if scope is not None else None
                if cls is None:
                    return {UNKNOWN}
                a = scope.args.posonlyargs + scope.args.args
                selfs = self.lookup(a[0].arg, scope) if a else set()
                return {("super", id(cls), s[1]) for s in selfs if s[0] == "inst"} or self.nothing()
        return {UNKNOWN}

    def built_lookup(self, owners, name_node):
        """getattr(obj, f"layer_{i}") on an object of the solution's: every attribute whose name the pattern
        matches. None when it cannot be told (another object, a name that could be one of nn.Module's own or a
        method): a hidden call."""
        pattern = self.safe_built(owners, name_node)
        if pattern is None:
            return None
        out = set()
        for o in owners:
            out |= {x for (ow, n), vals in self.attrs.items() if ow == o and re.fullmatch(pattern, n) for x in vals}
            out |= {x for (ow, p), vals in self.patterns.items() if ow == o for x in vals}
        return out or None

    def safe_built(self, owners, name_node):
        """The pattern of a built name on the solution's own objects that cannot name one of nn.Module's own
        attributes or a method, else None."""
        pattern = built_name(name_node)
        if pattern is None or pattern.startswith((".*", "_", "\\_")) or not owners:
            return None
        for o in owners:
            if o[0] not in ("inst", "seq") or any(re.fullmatch(pattern, n) for n in NN_MODULE_NAMES):
                return None
            if o[0] == "inst" and any(re.fullmatch(pattern, m.name) for m in self.methods_of(o[1])):
                return None
        return pattern

    def methods_of(self, cid, seen=None):
        seen = seen if seen is not None else set()
        cls = self.class_ids.get(cid)
        if cls is None or cid in seen:
            return []
        seen.add(cid)
        out = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for b in self.bases(cls):
            if b[0] == "cls":
                out += self.methods_of(b[1], seen)
        return out

    def bind_args(self, fn, first, call, scope):
        """Binds a call's arguments (after `first`, the implicit ones) to fn's parameters."""
        if fn is None or self.frozen:
            return
        a = fn.args
        params = a.posonlyargs + a.args
        given = list(first) + [self.ev(x, scope) for x in call.args if not isinstance(x, ast.Starred)]
        for p, vals in zip(params, given):
            self.add(self.env, (id(fn), p.arg), vals)
        for p in params[len(given):] + a.kwonlyargs:
            self.add(self.env, (id(fn), p.arg), {UNKNOWN} if any(isinstance(x, ast.Starred) for x in call.args)
                     else set())
        names = {p.arg for p in params + a.kwonlyargs}
        for k in call.keywords:
            if k.arg in names:
                self.add(self.env, (id(fn), k.arg), self.ev(k.value, scope))
        defaults = a.defaults
        for p, d in zip(params[len(params) - len(defaults):], defaults):
            self.add(self.env, (id(fn), p.arg), self.ev(d, self.f.parent.get(id(fn))))
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if d is not None:
                self.add(self.env, (id(fn), p.arg), self.ev(d, self.f.parent.get(id(fn))))


def const_test(f, test):
    """True / False for a test whose value on the measured path is known, else None: constants and
    `self.training`, which is True there (the runner never calls eval(), nor does KernelBench's harness) unless
    the file switches modes itself."""
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = const_test(f, test.operand)
        return None if inner is None else not inner
    if f.training_fixed and isinstance(test, ast.Attribute) and test.attr == "training" \
            and isinstance(test.value, ast.Name) and test.value.id == "self":
        return True
    return None


SHAPE_ATTRIBUTES = {"shape", "ndim", "dtype", "device", "is_cuda", "is_contiguous", "requires_grad", "itemsize"}
SHAPE_METHODS = {"size", "numel", "dim", "ndimension", "stride", "element_size", "nelement", "is_contiguous",
                 "data_ptr", "storage_offset", "get_device", "index", "__len__"}
SHAPE_FUNCTIONS = {"len", "int", "float", "min", "max", "abs", "round", "divmod", "range", "tuple", "list",
                   "bool", "isinstance"}
KERNEL = "@kernel"  # the unit a call of the solution's own kernel adds


class Ctx:
    """Where a statement is: its scope (function, class), whether it is conditional (behind an if, an except, a
    conditional expression, an earlier conditional return, one of several values a callee may be), how many
    times a unit inside counts (loops), how deep the calls are, and where break / continue go."""

    def __init__(self, scope, conditional=False, weight=1, depth=0, loop_exits=None, shapes=None, loop_names=()):
        self.scope, self.conditional, self.weight, self.depth = scope, conditional, weight, depth
        self.loop_exits = loop_exits
        self.shapes = shapes if shapes is not None else set()
        self.loop_names = loop_names  # names a loop binds: `for layer in self.layers: layer(x)` calls every one

    def but(self, **kw):
        c = Ctx(self.scope, self.conditional, self.weight, self.depth, self.loop_exits, self.shapes, self.loop_names)
        for k, v in kw.items():
            setattr(c, k, v)
        return c


class Walk:
    """Walks a forward method as it runs on the measured path, following calls into the solution's own
    functions, methods, submodules, containers and autograd Functions (bounded depth), with early returns,
    exception handlers and branches that cannot run (`if not self.training`) modelled.

    Findings: compute operators (each marked `conditional` where it does not run on every path), kernel calls,
    and what the check cannot attribute. The analysis proper counts units of work per path: a compute operator
    (canonical name), tensor arithmetic, a copy, a call of the solution's kernel; a state is {unit: count}.
    `join` merges paths: min for what forward surely does (the solution), max for what it may do (the
    reference). A unit inside a loop counts MANY times, on both sides."""

    def __init__(self, f, values, join):
        self.f, self.v, self.join_fn = f, values, join
        self.ops = []             # (canonical, spelled, line, conditional)
        self.kernel_calls = []    # (name, line)
        self.off_path_kernels = []  # lines of kernel calls in branches the measured path never takes
        self.unattributed = []    # (what, line): work the check cannot tell from the solution's kernels'
        self.may = set()          # units done through PyTorch on some path
        self.summaries = {}
        self.active = set()

    # -- states
    @staticmethod
    def plus(state, unit, n):
        s = dict(state)
        s[unit] = min(MOST, s.get(unit, 0) + n)
        return s

    @staticmethod
    def seq(a, b):
        if a is None or b is None:
            return None  # one of them never returns
        s = dict(a)
        for k, n in b.items():
            s[k] = min(MOST, s.get(k, 0) + n)
        return s

    def join(self, states):
        states = [s for s in states if s is not None]
        if not states:
            return None
        keys = set().union(*states)
        return {k: n for k in keys for n in [self.join_fn(s.get(k, 0) for s in states)] if n}

    def unseen(self, what, line):
        if len(self.unattributed) < MAX_ITEMS:
            self.unattributed.append((what, line))

    def op(self, state, ctx, canon, via, line):
        """A unit of the reference's kind of work, done here through PyTorch."""
        if canon == "dropout":
            return state
        if canon not in ("arithmetic", "copy"):
            self.ops.append((canon, via, line, ctx.conditional))
        for unit in [canon] + COVERS.get(canon, []):
            self.may.add(unit)
            state = self.plus(state, unit, ctx.weight)
        return state

    def kernel(self, state, ctx, name, line):
        self.kernel_calls.append((name, line))
        return self.plus(state, KERNEL, ctx.weight)

    # -- shapes (grid sizes, strides, loop bounds: not tensors' values)
    def shapeish(self, n, ctx):
        if isinstance(n, ast.Constant):
            return True
        if isinstance(n, ast.Name):
            return n.id in ctx.shapes
        if isinstance(n, ast.Attribute):
            if n.attr in SHAPE_ATTRIBUTES:
                return True
            d = dotted(n)
            # The module's own settings, constants of math / triton / torch (torch.float32).
            return bool(d) and (d.startswith(("self.", "math.", "triton.")) or self.f.resolve_name(d).startswith("torch."))
        if isinstance(n, ast.Compare) and all(isinstance(o, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for o in n.ops):
            return True  # identity and membership: `ext is None`, `k in cache`
        if isinstance(n, ast.Subscript):
            return self.shapeish(n.value, ctx) and self.shapeish(n.slice, ctx)
        if isinstance(n, ast.Slice):
            return all(self.shapeish(x, ctx) for x in (n.lower, n.upper, n.step) if x is not None)
        if isinstance(n, (ast.Tuple, ast.List)):
            return all(self.shapeish(e, ctx) for e in n.elts)
        if isinstance(n, ast.Call):
            fn = n.func
            if isinstance(fn, ast.Attribute) and fn.attr in SHAPE_METHODS:
                return all(self.shapeish(a, ctx) for a in n.args)
            d = dotted(fn) or ""
            if d in SHAPE_FUNCTIONS or d.startswith("math.") or self.f.resolve_name(d) in ("triton.cdiv",):
                return all(self.shapeish(a, ctx) for a in n.args)
            return False
        if isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp)):
            return all(self.shapeish(c, ctx) for c in ast.iter_child_nodes(n) if isinstance(c, ast.expr))
        return False

    def note_shapes(self, node, ctx):
        """Names assigned from shape expressions (B, C = x.shape; n = x.numel(); for i in range(n))."""
        if isinstance(node, ast.Assign) and self.shapeish(node.value, ctx):
            for t in node.targets:
                ctx.shapes.update(s.id for s in ast.walk(t) if isinstance(s, ast.Name))
        elif isinstance(node, ast.AnnAssign) and node.value is not None and self.shapeish(node.value, ctx) \
                and isinstance(node.target, ast.Name):
            ctx.shapes.add(node.target.id)
        elif isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.Call) \
                and dotted(node.iter.func) == "range" and all(self.shapeish(a, ctx) for a in node.iter.args):
            ctx.shapes.update(s.id for s in ast.walk(node.target) if isinstance(s, ast.Name))

    # -- functions: a summary per (function, conditional): the state added by one call on its normal paths
    def function(self, fn, ctx):
        key = (id(fn), ctx.conditional)
        if key in self.summaries:
            return self.summaries[key]
        if key in self.active or ctx.depth > MAX_DEPTH:
            self.unseen(f"calls nested more than {MAX_DEPTH} deep or recursive (not followed)", fn.lineno)
            return {}
        self.active.add(key)
        inner = Ctx(fn, ctx.conditional, 1, ctx.depth + 1)
        if isinstance(fn, ast.Lambda):
            out = self.expr(fn.body, {}, inner)
        else:
            fall, rets = self.block(fn.body, {}, inner)
            out = self.join(rets + [fall])
        self.active.discard(key)
        self.summaries[key] = out
        return out

    # -- statements: (state falling through or None, states returned)
    def block(self, stmts, state, ctx):
        rets = []
        for s in stmts:
            if state is None:
                break  # dead: after a return, raise, break or continue
            state, r, may_exit = self.stmt(s, state, ctx)
            rets += r
            if may_exit and not ctx.conditional:
                ctx = ctx.but(conditional=True)
        return state, rets

    def stmt(self, node, state, ctx):
        self.note_shapes(node, ctx)
        if isinstance(node, ast.Return):
            if node.value is not None:
                state = self.expr(node.value, state, ctx)
            return None, [state], True
        if isinstance(node, ast.Raise):
            if node.exc is not None:
                self.expr(node.exc, state, ctx)
            return None, [], True
        if isinstance(node, (ast.Break, ast.Continue)):
            if ctx.loop_exits is not None:
                ctx.loop_exits.append(state)
            return None, [], True
        if isinstance(node, ast.If):
            state = self.expr(node.test, state, ctx)
            known = const_test(self.f, node.test)
            branches = [node.body] if known is True else [node.orelse] if known is False else [node.body, node.orelse]
            if known is not None:
                self.off_path(node.orelse if known else node.body, ctx)
            inner = ctx if known is not None else ctx.but(conditional=True)
            falls, rets, may_exit = [], [], False
            for b in branches:
                fall, r = self.block(b, state, inner)
                falls.append(fall)
                rets += r
                may_exit = may_exit or fall is None or bool(r) or self.exits(b)
            return self.join(falls), rets, may_exit
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            state = self.expr(node.iter if not isinstance(node, ast.While) else node.test, state, ctx)
            exits = []
            names = () if isinstance(node, ast.While) else tuple(
                n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
            inner = ctx.but(weight=min(MOST, ctx.weight * MANY), loop_exits=exits,
                            loop_names=ctx.loop_names + names)
            fall, rets = self.block(node.body, state, inner)
            after = self.join([fall] + exits) if fall is not None or exits else state
            fall2, rets2 = self.block(node.orelse, after, ctx)
            return fall2, rets + rets2, bool(rets) or self.exits(node.body, loops=False)
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            fall, rets = self.block(node.body, state, ctx)
            if fall is not None:
                fall, r = self.block(node.orelse, fall, ctx)
                rets += r
            falls = [fall]
            for h in node.handlers:
                hf, hr = self.block(h.body, state, ctx.but(conditional=True))
                falls.append(hf)
                rets += hr
            fall = self.join(falls)
            if fall is not None:
                fall, r = self.block(node.finalbody, fall, ctx)
                rets += r
            return fall, rets, bool(rets) or any(self.exits(h.body) for h in node.handlers)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                state = self.expr(item.context_expr, state, ctx)
            return self.block(node.body, state, ctx) + (self.exits(node.body),)
        if type(node).__name__ == "Match":
            state = self.expr(node.subject, state, ctx)
            falls, rets = [], []
            for case in node.cases:
                fall, r = self.block(case.body, state, ctx.but(conditional=True))
                falls.append(fall)
                rets += r
            return self.join(falls + [state]), rets, True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return state, [], False  # definitions run only when called; calls of them are followed
        if isinstance(node, ast.AugAssign) and not (self.shapeish(node.target, ctx) and self.shapeish(node.value, ctx)):
            self.unseen("arithmetic on tensors (augmented assignment)", node.lineno)
            state = self.op(state, ctx, "arithmetic", "augmented assignment", node.lineno)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                state = self.expr(child, state, ctx)
        return state, [], False

    @staticmethod
    def exits(stmts, loops=True):
        """Whether a block may leave early: return, raise (and break / continue, when `loops`)."""
        kinds = (ast.Return, ast.Raise) + ((ast.Break, ast.Continue) if loops else ())
        return any(isinstance(n, kinds) for s in stmts for n in scope_nodes([s]))

    def off_path(self, stmts, ctx):
        """Kernel calls in a branch that does not run on the measured path (`if not self.training:`)."""
        for n in scope_nodes(stmts):
            if isinstance(n, ast.Call) and any(c[0] in ("kernel", "launch") for c in self.v.ev(n.func, ctx.scope)):
                self.off_path_kernels.append(n.lineno)

    # -- expressions: the state after evaluating one
    def expr(self, node, state, ctx):
        if isinstance(node, ast.IfExp):
            state = self.expr(node.test, state, ctx)
            known = const_test(self.f, node.test)
            if known is not None:
                return self.expr(node.body if known else node.orelse, state, ctx)
            inner = ctx.but(conditional=True)
            return self.join([self.expr(node.body, state, inner), self.expr(node.orelse, state, inner)])
        if isinstance(node, ast.BoolOp):
            # `a or b`, `a and b`: only the first operand surely runs.
            state = self.expr(node.values[0], state, ctx)
            alts = [state]
            for v in node.values[1:]:
                alts.append(self.expr(v, alts[-1], ctx.but(conditional=True)))
            return self.join(alts)
        if isinstance(node, ast.Lambda):
            return state
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for g in node.generators:
                state = self.expr(g.iter, state, ctx)
            names = tuple(n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name))
            inner = ctx.but(weight=min(MOST, ctx.weight * MANY), loop_names=ctx.loop_names + names)
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for p in parts + [c for g in node.generators for c in g.ifs]:
                state = self.expr(p, state, inner)
            return state
        if isinstance(node, ast.Call):
            for child in [node.func] + node.args + [k.value for k in node.keywords]:
                if child is node.func and not isinstance(child, (ast.Call, ast.Subscript, ast.Attribute)):
                    continue
                state = self.expr(child.value if child is node.func and isinstance(child, ast.Attribute) else child,
                                  state, ctx)
            return self.call(node, state, ctx)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            state = self.op(state, ctx, "matmul", "@", node.lineno)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and not self.shapeish(node, ctx):
            state = self.op(state, ctx, "pow", "**", node.lineno)
        elif isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare)) and not self.shapeish(node, ctx):
            self.unseen("arithmetic or comparison on tensors", getattr(node, "lineno", 0))
            state = self.op(state, ctx, "arithmetic", "tensor arithmetic", getattr(node, "lineno", 0))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                state = self.expr(child, state, ctx)
        return state

    def call(self, node, state, ctx):
        callees = self.v.ev(node.func, ctx.scope)
        known = sorted((c for c in callees if c[0] not in ("unknown", "raise")), key=repr)
        unknown = any(c[0] == "unknown" for c in callees)
        func = node.func
        if known and not unknown and (
                (isinstance(func, ast.Name) and func.id in ctx.loop_names) or (isinstance(func, ast.Subscript) and any(
                    isinstance(n, ast.Name) and n.id in ctx.loop_names for n in ast.walk(func.slice)))):
            # A loop over a container calls each of its elements in turn.
            for c in known:
                state = self.call_value(c, node, state, ctx) if state is not None else None
            return state
        # Several values: each is one path (an argument passed differently, a module built in an if / else).
        inner = ctx.but(conditional=True) if len(known) + unknown > 1 else ctx
        outs = [self.call_value(c, node, state, inner) for c in known]
        if unknown:
            outs.append(self.call_unknown(node, state, inner))
        return self.join(outs)

    def call_value(self, c, node, state, ctx):
        kind, line = c[0], getattr(node, "lineno", 0)
        label = clip(dotted(node.func) or (dotted(node.func.value) if isinstance(node.func, ast.Subscript) else None)
                     or "a kernel")
        if kind in ("kernel", "launch"):
            return self.kernel(state, ctx, label, line)
        if kind == "mod":
            if (c, "forward") in self.v.attrs:  # m.forward = ...: the instance runs what it was given
                held = sorted(self.v.attrs[(c, "forward")], key=repr)
                return self.join([self.call_value(t, node, state, ctx.but(conditional=True)) for t in held])
            for unit, n in COMPOSITE.get(c[1], {c[1]: 1} if c[1] else {}).items():
                state = self.op(state, ctx.but(weight=min(MOST, ctx.weight * n)), unit, dotted(node.func) or c[1], line)
            return state
        if kind == "torchfn":
            return self.torch_call(c[1], node, state, ctx)
        if kind == "seq":
            if c[2] != "Sequential":
                self.unseen("a call of a container", line)
                return state
            return self.seq(state, self.scaled(self.sequential(c, node, ctx), ctx))
        if kind in ("inst", "apply"):
            # What calling it runs: its class's __call__ where the solution defines one, else forward (a method,
            # or whatever the instance or class was given as one); autograd.Function.apply runs forward.
            runs = [t for t in self.v.runs_on_call(c) if t[0] not in ("unknown", "raise")]
            if not runs:
                base = self.v.torch_base(c[1])
                op = module_op(base) if base else None
                if op:
                    return self.op(state, ctx, op, label, line)
                self.unseen(f"{label}() (a module of the solution's without forward)", line)
                return state
            inner = ctx.but(conditional=True) if len(runs) > 1 else ctx
            return self.join([self.call_value(t, node, state, inner) for t in runs])
        if kind in ("fn", "meth"):
            fn = self.f.nodes.get(c[-1])
            return self.seq(state, self.scaled(self.function(fn, ctx), ctx)) if fn is not None else state
        if kind == "cls":
            self.unseen(f"{label}() builds an object of the solution's class inside forward", line)
            return state
        if kind == "none":
            return None  # calling None raises
        return state  # builtins, load_inline, torch classes built (their call is the next one)

    def sequential(self, c, node, ctx):
        """What calling an nn.Sequential adds: each element called in turn (a summary per container, like a
        function's)."""
        key = (c, ctx.conditional)
        if key in self.summaries:
            return self.summaries[key]
        if key in self.active or ctx.depth > MAX_DEPTH:
            self.unseen(f"containers nested more than {MAX_DEPTH} deep or in themselves (not followed)", c[1][0])
            return {}
        self.active.add(key)
        state = {}
        for e in sorted(self.v.elements.get(c, set()), key=repr):
            if state is not None:
                state = self.call_value(e, node, state, ctx.but(weight=1, depth=ctx.depth + 1))
        self.active.discard(key)
        self.summaries[key] = state
        return state

    def scaled(self, summary, ctx):
        if summary is None:
            return None
        return {k: min(MOST, n * ctx.weight) for k, n in summary.items()}

    def torch_call(self, resolved, node, state, ctx):
        line = getattr(node, "lineno", 0)
        if resolved.startswith("torch.ops."):  # torch.ops.aten.relu(.default)(x)
            q = resolved.split(".")
            name = q[3] if len(q) > 3 else q[-1]
            return self.op(state, ctx, self.canonical(name, node), resolved, line)
        name = resolved.rsplit(".", 1)[1]
        if name in GLUE_FN:
            return state
        return self.op(state, ctx, self.canonical(name, node), resolved, line)

    @staticmethod
    def canonical(name, node):
        if name in ARITHMETIC:
            return "arithmetic"
        if name == "clone" or (name == "contiguous" and isinstance(node.func, ast.Attribute)
                               and isinstance(node.func.value, ast.Call)
                               and isinstance(node.func.value.func, ast.Attribute)
                               and node.func.value.func.attr in REORDERS):
            return "copy"
        return OPS.get(name, name)

    def call_unknown(self, node, state, ctx):
        """A callee the values do not name: a method of a tensor (x.relu(), y.sum(dim=1)), a builtin, a function
        of a module that is not torch's."""
        func, line = node.func, getattr(node, "lineno", 0)
        d = dotted(func)
        if isinstance(func, ast.Attribute):
            name = func.attr
            if name in GLUE_METHODS:
                return state
            if any(o[0] in ("inst", "cls", "seq", "super") for o in self.v.ev(func.value, ctx.scope)):
                # An attribute of the solution's own objects the check cannot resolve: not a tensor method,
                # whatever its name (self.norm(x) is whatever self.norm holds).
                self.unseen(f"{clip(d or name)}() (not resolved to a kernel, module or function)", line)
                return state
            if name in ARITHMETIC or name in ("clone", "contiguous") or OPS.get(name):
                canon = self.canonical(name, node)
                if canon != "contiguous":
                    return self.op(state, ctx, canon, "." + name + "()", line)
                return state
            if not (d and self.f.resolve_name(d).startswith(SAFE_MODULES)):
                self.unseen(f"{clip(d or name)}() (not a kernel of the solution's, not an allocation, view or copy)",
                            line)
            return state
        if d and (d in SAFE_BUILTINS or (d in SHAPE_FUNCTIONS and self.shapeish(node, ctx))
                  or self.f.resolve_name(d).startswith(SAFE_MODULES)):
            return state
        self.unseen(f"{clip(d or 'a computed value')}() (not a kernel of the solution's, not an allocation, view "
                    "or copy)", line)
        return state


class Kernels:
    """The solution's load_inline calls and Triton kernels as the findings name them, and the names that hold
    its extensions (their rebinding is refused); which calls reach its kernels is Values' and Walk's to say."""

    def __init__(self, f):
        self.f = f
        self.load_inline = []     # {line, name, cuda, cpp, where}
        self.load_files = []      # lines of torch.utils.cpp_extension.load(...)
        self.bindings = set()     # module-level names and self attributes holding a load_inline module
        self.triton = set()
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
        # self.ext = ext (a module-level binding kept on the instance).
        for node in [n for _ in range(2) for n in ast.walk(f.tree)]:
            if isinstance(node, ast.Assign) and dotted(node.value) in self.bindings:
                self.bindings.update(d for d in map(dotted, node.targets) if d)
        for fn in f.functions.values():
            for dec in fn.decorator_list:
                target = dec.func if isinstance(dec, ast.Call) else dec
                r = f.resolve(target) or ""
                if r.startswith("triton."):
                    self.triton.add(fn.name)
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


NUMPY_CONSTANTS = {"pi", "e", "inf", "nan", "euler_gamma", "newaxis", "float16", "float32", "float64", "int8",
                   "int16", "int32", "int64", "uint8", "bool_"}
# nn.Module's repr: runs when live code prints or formats something (print, str, format, %, f"{self...}").
REPR_METHODS = {"extra_repr", "__repr__", "__str__", "__format__"}
FORMATTING = {"print", "repr", "str", "format", "logging", "warnings"}


def live_code(f):
    """(scope, node) for the code that can run: module level and class bodies, and every function that code
    names (a call, an attribute, a name, a string), runs implicitly (a dunder method, a decorated function, an
    override of nn.Module's own methods) or is a lambda of live code. nn.Module's repr (extra_repr, __repr__,
    __str__) runs only when live code prints or formats values. The rest never runs: what it contains hides
    nothing."""
    functions = [n for n in f.scopes[1:] if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    live, mentioned, formats, out = set(), set(), [False], []

    def take(scope, body):
        for node in scope_nodes(body):
            out.append((scope, node))
            if isinstance(node, ast.Name):
                mentioned.add(node.id)
            elif isinstance(node, ast.Attribute):
                mentioned.add(node.attr)
                formats[0] = formats[0] or node.attr == "format"
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
                mentioned.add(node.value)
            elif isinstance(node, ast.FormattedValue) and (dotted(node.value) or "").split(".")[0] == "self":
                formats[0] = True  # f"{self.block}": a module's repr
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant):
                formats[0] = True
            elif isinstance(node, ast.Call) and (dotted(node.func) or "").split(".")[0] in FORMATTING:
                formats[0] = True
            elif isinstance(node, ast.Lambda):
                take(node, node.body)

    take(None, f.tree.body)
    for cls in (n for n in f.scopes[1:] if isinstance(n, ast.ClassDef)):
        take(cls, [s for s in cls.body if not isinstance(s, DEFS)])
    grew = True
    while grew:
        grew = False
        for fn in functions:
            if id(fn) in live:
                continue
            method = id(fn) in f.class_of
            dunder = fn.name.startswith("__") and fn.name.endswith("__")
            if (fn.name in REPR_METHODS and formats[0]) or (fn.name not in REPR_METHODS and (
                    fn.name in mentioned or dunder or (method and fn.name in NN_MODULE_NAMES) or any(
                        (f.resolve(d.func if isinstance(d, ast.Call) else d) or "") not in ("staticmethod", "classmethod")
                        for d in fn.decorator_list))):
                live.add(id(fn))
                take(fn, fn.body)
                grew = True
    return out


def constish(f, node):
    """An expression of constants (numbers, module constants, math and numpy functions of them)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        v = f.values.get(node.id)
        return v is not None and v is not node and constish(f, v)
    if isinstance(node, ast.Attribute):
        return (f.resolve(node) or "").startswith(("numpy.", "math."))
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Tuple, ast.List)):
        return all(constish(f, c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))
    if isinstance(node, ast.Call):
        return (f.resolve(node.func) or "").startswith(("numpy.", "math.")) and not node.keywords \
            and all(constish(f, a) for a in node.args)
    return False


def numpy_use(f, node, parent):
    """numpy named where it may compute on tensors (anything but constants: np.log2(8), x * np.pi)."""
    if not (f.resolve(node) or "").split(".")[0] == "numpy" or isinstance(parent, ast.Attribute):
        return False
    if isinstance(parent, ast.Call) and parent.func is node:
        return not constish(f, parent)
    if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare)) or (
            isinstance(node, ast.Attribute) and node.attr in NUMPY_CONSTANTS):
        return False
    return not (isinstance(parent, ast.Call) and constish(f, parent))


def own_built_name(values, scope, fn, call):
    """getattr / hasattr / setattr of a name built at run time on the solution's own objects, where the name
    cannot be one of nn.Module's own or a method: what it reaches is still known."""
    owners = values.ev(call.args[0], scope)
    if fn == "getattr":
        return values.built_lookup(owners, call.args[1]) is not None
    return values.safe_built(owners, call.args[1]) is not None


def hidden_calls(f, kernels, values):
    """Constructs that hide what the solution calls or compute outside its kernels (HIDDEN_*), and rebinding of
    the names that hold its kernels: each is a reason to refuse it, since its text no longer says what runs.
    Judged in the code that can run (live_code); names built at run time are allowed on the solution's own
    objects where the name cannot be one of nn.Module's (setattr(self, f"layer_{i}", ...), getattr of it)."""
    found = []

    def add(line, detail):
        if len(found) < MAX_ITEMS:
            found.append({"line": line, "detail": clip(detail)})

    code = live_code(f)
    parents = {id(c): n for _, n in code for c in ast.iter_child_nodes(n)}
    called = {id(n.func) for _, n in code if isinstance(n, ast.Call)}
    for scope, node in code:
        if isinstance(node, ast.Call):
            r = f.resolve(node.func) or ""
            name = dotted(node.func) or ""
            if r in ("getattr", "setattr", "delattr", "hasattr") and (
                    len(node.args) < 2 or not (isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str))) \
                    and not (r != "delattr" and len(node.args) >= 2 and own_built_name(values, scope, r, node)):
                add(node.lineno, f"{r}() with a name built at run time: reaches attributes the text does not name")
            for key, why in HIDDEN_CALLS.items():
                if r == key or r.startswith(key + "."):
                    add(node.lineno, f"{key}: {why}")
            last = name.rsplit(".", 1)[-1]
            if last.startswith("register_") and last.endswith("hook"):
                add(node.lineno, f"{last}(): runs code outside forward, around every call")
            if last == "numpy" and isinstance(node.func, ast.Attribute):
                add(node.lineno, ".numpy(): hands tensors to numpy, which computes outside the solution's kernels")
        if isinstance(node, (ast.Name, ast.Attribute)) and numpy_use(f, node, parents.get(id(node))):
            add(node.lineno, f"{clip(dotted(node))}: numpy computes outside the solution's kernels (only constants "
                             "may be computed with it)")
        written = [t for t in getattr(node, "targets", [getattr(node, "target", None)])
                   if isinstance(t, ast.Attribute)] if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign,
                                                                         ast.Delete)) else []
        if isinstance(node, ast.Call) and (f.resolve(node.func) or "") in ("setattr", "delattr") and node.args:
            written = [ast.Attribute(value=node.args[0], attr="?", ctx=ast.Store())]
        for t in written:
            if any(v[0] in ("ext", "triton", "kernel", "launch") for v in values.ev(t.value, scope)):
                add(node.lineno, f"assigns {clip(dotted(t) or t.attr)}: replaces part of the solution's extension or "
                                 "Triton kernel")
            if t.attr == "__class__":
                add(node.lineno, "assigns __class__: replaces an object's class, and with it what calling it runs")
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


CPP_TEXT = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)


def cpp_code(text):
    """C++ source without its comments (string and character literals kept): `// x = torch.tanh(x)` is no call."""
    return CPP_TEXT.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'" else " ", text)


def cpp_ops(tree):
    """Torch operators called from C++ source strings (a load_inline extension that calls at::matmul does the
    reference's work with PyTorch as surely as forward calling torch.matmul)."""
    found = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if not CPP_HINT.search(node.value):
            continue
        text = cpp_code(node.value)
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


def ops_list(walk):
    seen = {}
    for op, via, line, cond in walk.ops:
        prev = seen.get(op)
        if prev is None or (prev["conditional"] and not cond):
            seen[op] = {"op": clip(op), "via": clip(via), "line": line, "conditional": cond}
            if op in COVERS:
                seen[op]["covers"] = COVERS[op]
    return sorted(seen.values(), key=lambda o: o["op"])[:MAX_ITEMS]


def units(state):
    return {clip(k): n for k, n in sorted(state.items()) if k != KERNEL and n > 0}


def check_solution(f):
    kernels = Kernels(f)
    values = Values(f)
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
           "kernel_calls": [], "kernel_reachable": False, "kernel_every_path": False, "torch_ops": [],
           "forward_units": {}, "torch_units": [],
           "cpp_torch_ops": cpp_ops(f.tree), "tampering": tampering(f), "dynamic_code": dynamic_code(f),
           "hidden_calls": hidden_calls(f, kernels, values)}
    why = []
    if fwd is not None:
        walk = Walk(f, values, min)
        # Calling the model runs its forward, or what the instance or class was given as one
        # (`self.forward = self._forward_cuda`).
        call = ast.Call(func=ast.Name(id="forward", ctx=ast.Load()), args=[], keywords=[], lineno=fwd.lineno)
        state = walk.call_value(("inst", id(cls)), call, {}, Ctx(None))
        # A forward that raises on every path of the measured one (`if self.training: raise ...`) fails when it
        # runs: that, not the static check, is its verdict.
        out["forward_raises"] = state is None
        state = state or {}
        out["kernel_calls"] = [{"call": clip(n), "line": ln} for n, ln in walk.kernel_calls][:MAX_ITEMS]
        out["kernel_reachable"] = bool(walk.kernel_calls)
        out["kernel_off_path"] = sorted(set(walk.off_path_kernels))[:MAX_ITEMS]
        out["kernel_every_path"] = state.get(KERNEL, 0) > 0
        # What forward surely does through PyTorch on every path that returns, in units of the reference's
        # work (the every-operator rule compares it with the reference's: static_check.cpp).
        out["forward_units"] = dict(list(units(state).items())[:MAX_ITEMS])
        out["torch_units"] = sorted(clip(u) for u in walk.may if u in ("arithmetic", "copy"))
        out["torch_ops"] = ops_list(walk)
        why += [f"line {o['line']}: torch operator {o['via']}" for o in out["torch_ops"]]
        why += [f"line {ln}: {what}" for what, ln in walk.unattributed]
    if out["hidden_calls"] or out["tampering"] or out["dynamic_code"]:
        why.append("the text hides calls (refused)")
    if not out["kernel_reachable"]:
        why.append("forward reaches no kernel of the solution's on the measured path")
    # Trusted attribution: forward reaches nothing but the solution's kernels, allocation, views, copies and
    # shape arithmetic, so its outputs can only come from those kernels (whose extensions kforge reads for
    # torch operators when it builds them). Anything else leaves only the runner's in-process count.
    out["attribution"] = {"trusted": not why, "why": [clip(w) for w in why[:8]]}
    return out


def check_problem(f):
    """The reference's work in units (each compute operator, tensor arithmetic, copies, counted by the places
    forward reaches them; the largest count over its paths), and its compute operators by name."""
    cls, fwd = forward_of(f, "Model")
    if fwd is None:
        return {"reference_ops": [], "reference_units": {}, "has_model": cls is not None}
    values = Values(f)
    walk = Walk(f, values, max)
    found = units(walk.function(fwd, Ctx(None)) or {})
    # Modules its __init__ builds count once even where forward's calls of them are not followed.
    todo = [v for (o, _), vals in values.attrs.items() if o == ("inst", id(cls)) for v in vals]
    seen = set()
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if v[0] == "mod" and v[1] and v[1] != "dropout":
            for unit, n in COMPOSITE.get(v[1], {v[1]: 1}).items():
                found.setdefault(unit, n)
        elif v[0] == "seq":
            todo.extend(values.elements.get(v, ()))
    ops = sorted(k for k in found if k not in ("arithmetic", "copy"))
    return {"reference_ops": ops[:MAX_ITEMS], "reference_units": dict(sorted(found.items())[:MAX_ITEMS]),
            "has_model": True}


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
