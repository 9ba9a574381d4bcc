"""kiln.InferenceSession: the calls of onnxruntime.InferenceSession, so that a script written for
ONNX Runtime runs on kiln after `import kiln as ort`."""
from ._kiln import Worker, backends, load_model

# ONNX Runtime's element type names (NodeArg.type is "tensor(<name>)") by kiln's name.
_ORT_ELEMENT_TYPE = {
    "float32": "float", "float64": "double", "float16": "float16", "bfloat16": "bfloat16",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "bool": "bool", "string": "string", "complex64": "complex64", "complex128": "complex128",
    "float8e4m3fn": "float8e4m3fn", "float8e4m3fnuz": "float8e4m3fnuz",
    "float8e5m2": "float8e5m2", "float8e5m2fnuz": "float8e5m2fnuz", "float8e8m0": "float8e8m0",
    "float4e2m1": "float4e2m1", "int4": "int4", "uint4": "uint4", "int2": "int2", "uint2": "uint2",
}

# Provider names as ONNX Runtime spells them, and the kiln backend each runs on. The GPU
# providers of ONNX Runtime run on kiln's Vulkan compute backend; kiln's own backend names are
# accepted as they are.
PROVIDER_BACKENDS = {
    "CPUExecutionProvider": "cpu",
    "CUDAExecutionProvider": "gpu-compute",
    "TensorrtExecutionProvider": "gpu-compute",
    "ROCMExecutionProvider": "gpu-compute",
    "MIGraphXExecutionProvider": "gpu-compute",
    "DmlExecutionProvider": "gpu-compute",
    "CoreMLExecutionProvider": "gpu-compute",
    "WebGpuExecutionProvider": "gpu-compute",
    "KilnGpuComputeExecutionProvider": "gpu-compute",
    "KilnGpuPixelExecutionProvider": "gpu-pixel",
    "cpu": "cpu",
    "gpu-compute": "gpu-compute",
    "gpu-pixel": "gpu-pixel",
}
_BACKEND_PROVIDER = {"cpu": "CPUExecutionProvider",
                     "gpu-compute": "KilnGpuComputeExecutionProvider",
                     "gpu-pixel": "KilnGpuPixelExecutionProvider"}


def get_all_providers():
    return list(PROVIDER_BACKENDS)


def get_available_providers():
    """The provider names whose kiln backend is built in, best first (as ONNX Runtime orders)."""
    order = {"gpu-compute": 0, "gpu-pixel": 1, "cpu": 2}
    names = [n for n, b in PROVIDER_BACKENDS.items() if b in backends and n.endswith("Provider")]
    return sorted(names, key=lambda n: order[PROVIDER_BACKENDS[n]])


def get_device():
    return "GPU" if "gpu-compute" in backends else "CPU"


def _ort_type(info):
    element = _ORT_ELEMENT_TYPE.get(info.elem_type, info.elem_type)
    if info.kind == "sequence":
        return f"seq(tensor({element}))"
    if info.kind == "optional":
        inner = f"seq(tensor({element}))" if info.element_kind == "sequence" else f"tensor({element})"
        return f"optional({inner})"
    if info.kind == "map":
        return f"map({element})"
    return f"tensor({element})"


class NodeArg:
    """A model input or output as ONNX Runtime describes it: .name, .type ("tensor(float)"),
    .shape (ints, names of symbolic dims, None where unknown)."""

    def __init__(self, info):
        self.name = info.name
        self.type = _ort_type(info)
        self.shape = info.shape if info.shape is not None else []

    def __repr__(self):
        return f"NodeArg(name='{self.name}', type='{self.type}', shape={self.shape})"


class SessionOptions:
    """The SessionOptions fields kiln reads: intra_op_num_threads (0: every core). The rest are
    accepted and ignored (kiln always optimizes the graph once at load)."""

    def __init__(self):
        self.intra_op_num_threads = 0
        self.inter_op_num_threads = 0
        self.graph_optimization_level = None
        self.log_severity_level = 2
        self.enable_profiling = False


class ModelMetadata:
    def __init__(self, model):
        self.producer_name = model.producer
        self.graph_name = ""
        self.domain = ""
        self.description = ""
        self.version = model.ir_version
        self.custom_metadata_map = {}


def _backend_of(provider):
    name = provider[0] if isinstance(provider, (tuple, list)) else provider
    if name not in PROVIDER_BACKENDS:
        raise ValueError(f"unknown provider '{name}' (kiln knows: {', '.join(PROVIDER_BACKENDS)})")
    return PROVIDER_BACKENDS[name]


class InferenceSession:
    """onnxruntime.InferenceSession on kiln.

    providers: tried in order, as ONNX Runtime does; the first whose backend is built in and
    starts is used ("CPUExecutionProvider" or "cpu" always does). None means the CPU.
    """

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None,
                 **kwargs):
        self._model = load_model(path_or_bytes)
        threads = sess_options.intra_op_num_threads if sess_options is not None else 0
        wanted = [_backend_of(p) for p in (providers or ["CPUExecutionProvider"])]
        names = [p[0] if isinstance(p, (tuple, list)) else p
                 for p in (providers or ["CPUExecutionProvider"])]
        errors = []
        self._worker = None
        for name, backend in zip(names, wanted):
            if backend not in backends:
                errors.append(f"{backend}: not built into this kiln")
                continue
            try:
                self._worker = Worker(self._model, backend, num_threads=threads)
                self._provider = name
                break
            except RuntimeError as e:  # a GPU backend without a device: try the next provider
                errors.append(f"{backend}: {e}")
        if self._worker is None:
            raise ValueError("no requested provider could start: " + "; ".join(errors))
        self._inputs = [NodeArg(i) for i in self._model.inputs]
        self._outputs = [NodeArg(o) for o in self._model.outputs]
        self._output_names = [o.name for o in self._outputs]

    def get_inputs(self):
        return list(self._inputs)

    def get_outputs(self):
        return list(self._outputs)

    def get_overridable_initializers(self):
        return []

    def get_providers(self):
        """The provider in use, as it was asked for, then the CPU (kiln runs what a GPU backend
        lacks on the CPU, as ONNX Runtime falls back to CPUExecutionProvider)."""
        name = self._provider if self._provider.endswith("Provider") else \
            _BACKEND_PROVIDER[self._worker.backend]
        return [name] if self._worker.backend == "cpu" else [name, "CPUExecutionProvider"]

    def get_provider_options(self):
        return {p: {} for p in self.get_providers()}

    def get_session_options(self):
        return SessionOptions()

    def get_modelmeta(self):
        return ModelMetadata(self._model)

    def run(self, output_names, input_feed, run_options=None):
        """Runs the model on `input_feed` ({name: array}) and returns the outputs named in
        `output_names` (all when None or empty) as a list of numpy arrays."""
        return self._worker.run(input_feed, output_names or self._output_names)

    @property
    def worker(self):
        """The kiln.Worker behind the session (for placements(), async readback, ...)."""
        return self._worker

    @property
    def model(self):
        return self._model
