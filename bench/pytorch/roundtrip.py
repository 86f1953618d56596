#!/usr/bin/env python3
"""Runs the page's "Use in PyTorch" lines on exported models and compares with Unroll.

For each of gru, lstm and rnn, and for the stacks deep-rnn-lstm3, deep-rnn-rnn2 and birnn,
bench/pytorch/{name}.safetensors is the file GET /lessons/{slug}/model.safetensors served,
and {name}.json the page's own H_t (a stack's top layer) at the file's step, as Unroll
computed it; both are written by the Go tests

    UNROLL_PYTORCH_BENCH=$PWD/bench/pytorch go test ./web -run 'TestModelSafetensors(Stacks)?$'

This script copies each file to model.safetensors in a temporary directory, runs
SNIPPET there (verbatim the lines the page shows: web's TestPyTorchSnippetIsTheScripts
holds them equal to lessons.PyTorchSnippet) and compares its H with Unroll's.
Output: bench/pytorch/roundtrip.out (/usr/bin/python3 bench/pytorch/roundtrip.py > ...; Debian's python3-torch).

Debian has python3-torch but no python3-safetensors: if the safetensors package is
missing, a minimal safe_open (the part the snippet uses, F64 and F32 only) stands in
for it, said in the output.
"""
import json, os, shutil, struct, sys, tempfile, types

import torch

SNIPPET = r'''import json, torch; from safetensors import safe_open
f = safe_open("model.safetensors", "pt"); meta = f.metadata(); d, h = int(meta["input_size"]), int(meta["hidden_size"])
net = getattr(torch.nn, meta["module"])(d, h, batch_first=True, **json.loads(meta["options"])).double(); net.load_state_dict({k[4:]: f.get_tensor(k) for k in f.keys() if k.startswith("rnn.")})
x = torch.tensor(json.loads(meta["x"]), dtype=torch.float64)[None] if "x" in meta else torch.nn.functional.one_hot(torch.tensor(json.loads(meta["inputs"])), d).double()[None]
H = net(x)[0][0, int(meta["step"]) - 1].detach(); print(H)  # H_t at the page's step t
'''

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
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        import safetensors  # noqa: F401
        print("safetensors", safetensors.__version__)
    except ImportError:
        shim_safetensors()
        print("safetensors: not installed; the script's minimal safe_open stands in")
    print("torch", torch.__version__)
    worst = 0.0
    # the pages' single-layer models (TestModelSafetensors), then deep-rnn's stacks and
    # birnn's bidirectional RNN (TestModelSafetensorsStacks): H is the top layer's output
    for slug in ("gru", "lstm", "rnn", "deep-rnn-lstm3", "deep-rnn-rnn2", "birnn"):
        want = json.load(open(os.path.join(here, slug + ".json")))
        tmp = tempfile.mkdtemp(prefix="unroll-pytorch-")
        try:
            shutil.copy(os.path.join(here, slug + ".safetensors"), os.path.join(tmp, "model.safetensors"))
            cwd = os.getcwd()
            os.chdir(tmp)
            ns = {}
            try:
                exec(SNIPPET, ns)
            finally:
                os.chdir(cwd)
        finally:
            shutil.rmtree(tmp)
        H = ns["H"].detach().tolist()
        diff = max(abs(a - b) for a, b in zip(H, want["H"]))
        worst = max(worst, diff)
        ok = len(H) == len(want["H"]) and diff <= TOL
        m = ns['meta']
        T = len(json.loads(m['x'] if 'x' in m else m['inputs']))
        print(f"{slug}: torch.nn.{m['module']} {m['options']} d={ns['d']} h={ns['h']} T={T} "
              f"step {want['step']}: max |H_torch - H_unroll| = {diff:.3g} {'ok' if ok else 'FAIL'}")
        if not ok:
            sys.exit(1)
    print(f"all within {TOL:g} (worst {worst:.3g})")


if __name__ == "__main__":
    main()
