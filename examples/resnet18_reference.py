"""Writes what examples/resnet18 compares with: torchvision's ResNet-18 (random weights and
batch-norm statistics, seed 0) as a safetensors state_dict, an input batch, and PyTorch's
logits for it in eval mode. Needs Debian's python3-torch and python3-torchvision.

Use: python3 resnet18_reference.py DIR   (writes DIR/resnet18.safetensors, input, logits)
"""
import json
import os
import struct
import sys

import torch
import torchvision

DTYPES = {torch.float32: "F32", torch.int64: "I64"}


def save_safetensors(tensors, path):
    """The safetensors format by hand: an 8-byte header length, the JSON header, the bytes."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        data = t.numpy().tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None)
    # Running statistics and affine parameters away from their defaults, so that the
    # comparison exercises eval-mode batch norm for real.
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
            m.num_batches_tracked.fill_(10)
    model.eval()
    x = torch.randn(2, 3, 224, 224)
    with torch.no_grad():
        logits = model(x)
    save_safetensors(model.state_dict(), os.path.join(out, "resnet18.safetensors"))
    save_safetensors({"input": x}, os.path.join(out, "input.safetensors"))
    save_safetensors({"logits": logits}, os.path.join(out, "logits.safetensors"))
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}: wrote {out}")


if __name__ == "__main__":
    main()
