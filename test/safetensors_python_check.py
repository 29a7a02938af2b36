"""The Python side of test_safetensors_python.cpp: checks a file ember wrote, bit for bit,
with the `safetensors` and `numpy` packages, and writes files for ember to check.

  check <file> <seed>   reads ember's file (numpy loader; BF16 through deserialize)
  write <dir> <seed>    writes python_numpy.safetensors and python_raw.safetensors
  archive <file> <seed> reads an archive of torch::save (dotted names, typed metadata)
"""
import sys

import numpy as np
import safetensors
from safetensors.numpy import save_file

# safetensors dtype name -> numpy dtype (BF16 has none in numpy: raw bytes only).
DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "BF16": None, "I64": np.int64,
          "I32": np.int32, "I16": np.int16, "I8": np.int8, "U8": np.uint8, "BOOL": np.bool_}
ORDER = ["F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U8", "BOOL"]
SHAPE = (3, 4)
SIZES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "BOOL": 1}
M64 = (1 << 64) - 1


def pattern(seed, idx, n, boolean):
    """The same bytes as pattern_bytes() in test_safetensors_python.cpp."""
    out = bytearray(n)
    base = (seed ^ ((idx * 0x9E3779B97F4A7C15) & M64)) & M64
    for k in range(n):
        v = (base + k * 0xBF58476D1CE4E5B9) & M64
        b = (v >> 29) & 0xFF
        out[k] = b & 1 if boolean else b
    return bytes(out)


def expected(seed, idx, name):
    return pattern(seed, idx, 12 * SIZES[name], name == "BOOL")


def fail(msg):
    print("MISMATCH:", msg)
    sys.exit(1)


def check(path, seed):
    with open(path, "rb") as f:
        raw = dict(safetensors.deserialize(f.read()))
    # numpy has no bfloat16: every other tensor goes through the numpy loader.
    with safetensors.safe_open(path, framework="numpy") as f:
        meta = f.metadata()
        arrays = {k: f.get_tensor(k) for k in f.keys() if k != "t_BF16"}
    if meta != {"writer": "ember", "seed": str(seed)}:
        fail(f"metadata {meta}")
    for idx, name in enumerate(ORDER):
        key = "t_" + name
        want = expected(seed, idx, name)
        info = raw[key]
        if info["dtype"] != name or list(info["shape"]) != list(SHAPE) or bytes(info["data"]) != want:
            fail(f"{key}: deserialize gave {info['dtype']} {info['shape']}")
        if DTYPES[name] is not None:
            a = arrays[key]
            if a.dtype != DTYPES[name] or a.shape != SHAPE or a.tobytes() != want:
                fail(f"{key}: numpy gave {a.dtype} {a.shape}")
    # ember wrote a transposed view: its C-contiguous bytes are the transpose's.
    a = arrays["strided"]
    want = np.frombuffer(pattern(seed, 99, 4 * 15, False), dtype="<f4").reshape(3, 5).T
    if a.shape != (5, 3) or a.tobytes() != np.ascontiguousarray(want).tobytes():
        fail("strided")
    print("python read ember's file:", len(arrays), "numpy arrays,", len(raw), "raw tensors, all bit-exact")


def write(directory, seed):
    arrays = {}
    for idx, name in enumerate(ORDER):
        if DTYPES[name] is not None:
            arrays["t_" + name] = np.frombuffer(expected(seed, idx, name), dtype=DTYPES[name]).reshape(SHAPE).copy()
    save_file(arrays, directory + "/python_numpy.safetensors", metadata={"writer": "numpy", "seed": str(seed)})
    data = expected(seed, ORDER.index("BF16"), "BF16")
    buf = np.frombuffer(data, dtype=np.uint8).copy()
    out = directory + "/python_raw.safetensors"
    if hasattr(safetensors, "TensorSpec"):  # safetensors >= 0.8
        spec = safetensors.TensorSpec(dtype="bfloat16", shape=list(SHAPE), data_ptr=buf.ctypes.data, data_len=len(data))
        safetensors.serialize_file({"t_BF16": spec}, out, metadata={"writer": "raw"})
    else:
        safetensors.serialize_file({"t_BF16": {"dtype": "bfloat16", "shape": list(SHAPE), "data": data}}, out,
                                   metadata={"writer": "raw"})
    print("python wrote", len(arrays) + 1, "tensors")


def archive(path, seed):
    """The archive test_safetensors_python.cpp writes through serialize::OutputArchive."""
    with safetensors.safe_open(path, framework="numpy") as f:
        meta = f.metadata()
        arrays = {k: f.get_tensor(k) for k in f.keys()}
    want = {"epoch": f"int64:{seed}", "lr": "float64:0.125", "note": "str:ember", "ok": "bool:true",
            "model.1": "archive:"}
    if meta != want:
        fail(f"metadata {meta}")
    if sorted(arrays) != ["model.0.bias", "model.0.weight"]:
        fail(f"names {sorted(arrays)}")
    w, b = arrays["model.0.weight"], arrays["model.0.bias"]
    if w.dtype != np.float32 or w.tolist() != [[0, 1, 2], [3, 4, 5]]:
        fail(f"model.0.weight: {w.dtype} {w.tolist()}")
    if b.dtype != np.float64 or b.tolist() != [-1.5, 2.25]:
        fail(f"model.0.bias: {b.dtype} {b.tolist()}")
    print("python read ember's archive: dotted names and typed metadata")


if __name__ == "__main__":
    cmd, target, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    {"check": check, "write": write, "archive": archive}[cmd](target, seed)
