"""kiln: an ONNX inference engine.

    import kiln
    model = kiln.load_model("model.onnx")
    worker = kiln.Worker(model, backend="cpu")      # or "gpu-compute", "gpu-pixel"
    worker.schedule({"x": x})                       # returns at once
    y = worker.peek_output("y").numpy()             # waits for that output

    session = kiln.InferenceSession("model.onnx")   # the onnxruntime.InferenceSession calls
    y, = session.run(None, {"x": x})

See python/README.md in the kiln repository.
"""
from ._kiln import (Error, LayerStep, LayerSteps, Model, NodePlacement, Tensor, ValueInfo, Worker,
                    backends, load_model, load_tensor)
from ._async import tensor_await as _tensor_await
from ._session import (InferenceSession, NodeArg, SessionOptions, get_all_providers,
                       get_available_providers, get_device)

Tensor.__await__ = _tensor_await
Error.__module__ = "kiln"  # shown as kiln.Error in tracebacks

__all__ = [
    "Error", "InferenceSession", "LayerStep", "LayerSteps", "Model", "NodeArg", "NodePlacement",
    "SessionOptions", "Tensor", "ValueInfo", "Worker", "backends", "get_all_providers",
    "get_available_providers", "get_device", "load_model", "load_tensor",
]
