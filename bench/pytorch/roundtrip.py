#!/usr/bin/env python3
"""Runs the page's "Use in PyTorch" Python on exported models and compares with Unroll.

For each bench/pytorch/{name}.json, {name}.safetensors is the file GET
/lessons/{slug}/model.safetensors served, and {name}.json names the lesson's script and
holds the page's own numbers H at the file's step (for the nn.RNN/GRU/LSTM models, H_t,
a stack's top layer), as Unroll computed them; both are written by the Go tests

    UNROLL_PYTORCH_BENCH=$PWD/bench/pytorch go test ./web -run 'TestModelSafetensors|PyTorch'

This script copies each file to model.safetensors in a temporary directory, runs the
lesson's script from lessons/pytorch there (the very file the page shows: web's
TestPyTorchSnippetIsTheScripts holds them equal) and compares its H with Unroll's.
Output: bench/pytorch/roundtrip.out (/usr/bin/python3 bench/pytorch/roundtrip.py > ...; Debian's python3-torch).

Debian has python3-torch but no python3-safetensors: if the safetensors package is
missing, a minimal safe_open (the part the snippet uses, F64 and F32 only) stands in
for it, said in the output.
"""
import json, os, shutil, struct, sys, tempfile, types

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPTS = os.path.join(ROOT, "lessons", "pytorch")

TOL = 1e-12


def shim_safetensors():
    """A stand-in for safetensors.safe_open(path, "pt"): keys, get_tensor, metadata."""

    class safe_open:
        def __init__(self, path, framework, device="cpu"):
            assert framework == "pt"
            raw = open(path, "rb").read()
            n = struct.unpack("<Q", raw[:8])[0]
            self._header = json.loads(raw[8:8 + n])
            self._meta = self._header.pop("__metadata__", {})
            self._data = raw[8 + n:]

        def keys(self):
            return list(self._header)

        def metadata(self):
            return self._meta

        def get_tensor(self, name):
            t = self._header[name]
            start, end = t["data_offsets"]
            dtype = {"F64": torch.float64, "F32": torch.float32}[t["dtype"]]
            return torch.frombuffer(bytearray(self._data[start:end]), dtype=dtype).reshape(t["shape"])

    mod = types.ModuleType("safetensors")
    mod.safe_open = safe_open
    sys.modules["safetensors"] = mod


def main():
    try:
        import safetensors  # noqa: F401
        print("safetensors", safetensors.__version__)
    except ImportError:
        shim_safetensors()
        print("safetensors: not installed; the script's minimal safe_open stands in")
    print("torch", torch.__version__)
    worst = 0.0
    names = sorted(n[:-5] for n in os.listdir(HERE) if n.endswith(".json"))
    for name in names:
        want = json.load(open(os.path.join(HERE, name + ".json")))
        if "script" not in want:
            continue
        snippet = open(os.path.join(SCRIPTS, want["script"])).read()
        tmp = tempfile.mkdtemp(prefix="unroll-pytorch-")
        try:
            shutil.copy(os.path.join(HERE, name + ".safetensors"), os.path.join(tmp, "model.safetensors"))
            cwd = os.getcwd()
            os.chdir(tmp)
            ns = {"__name__": "__main__"}
            torch.set_grad_enabled(True)  # each script starts as in a fresh python (seq2seq.py turns it off)
            try:
                exec(compile(snippet, want["script"], "exec"), ns)
            finally:
                os.chdir(cwd)
        finally:
            shutil.rmtree(tmp)
        H = torch.as_tensor(ns["H"], dtype=torch.float64).detach().flatten().tolist()
        diff = max(abs(a - b) for a, b in zip(H, want["H"]))
        worst = max(worst, diff)
        ok = len(H) == len(want["H"]) and diff <= TOL
        m = ns["meta"]
        what = f"torch.nn.{m['module']} {m['options']} d={ns['d']} h={ns['h']}" if "module" in m else want["script"]
        print(f"{name}: {what} step {want['step']}: {len(H)} numbers, max |H_torch - H_unroll| = {diff:.3g} {'ok' if ok else 'FAIL'}")
        if not ok:
            sys.exit(1)
    print(f"all within {TOL:g} (worst {worst:.3g})")


if __name__ == "__main__":
    main()
