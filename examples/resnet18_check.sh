#!/usr/bin/env bash
# CTest's ResNet-18 check: PyTorch writes a random torchvision ResNet-18, an input and its
# logits (resnet18_reference.py); ember's examples/resnet18 loads the model and must give
# the same logits within 1e-4 relative. Exit 77 (CTest's skip) when the Python has no torch
# and torchvision, saying why.
# Use: resnet18_check.sh RESNET18_BINARY PYTHON WORK_DIR
set -euo pipefail
bin=$1 py=$2 dir=$3
if ! "$py" -c "import torch, torchvision" 2>/dev/null; then
  echo "skipped: $py cannot import torch and torchvision (Debian: apt-get install python3-torch python3-torchvision)"
  exit 77
fi
"$py" "$(dirname "$0")/resnet18_reference.py" "$dir"
"$bin" "$dir/resnet18.safetensors" "$dir/input.safetensors" "$dir/logits.safetensors"
