#!/usr/bin/python3
"""Writes the fixtures of package torchload (torchload/testdata/): small PyTorch recurrent
models saved with torch.save (the zip format) and as safetensors with PyTorch's own names,
each with a JSON of what PyTorch computes on a fixed input, and hostile pickles that must
be refused.

Run with Debian's torch (apt-get install python3-torch), from the repository root:

    /usr/bin/python3 bench/pytorch/torchload_fixtures.py

For every model NAME it writes NAME.pt, NAME.safetensors and NAME.json. The JSON holds
the architecture, the input (x, or text and vocab), PyTorch's own output, h_n, c_n and
logits (from the nn modules, in the model's dtype, float32 unless the name says otherwise),
and every gate of every layer, direction and step recomputed here from the weights in
float64 with PyTorch's equations (the recomputation is checked against the nn module's
output first, so the gates are the ones the module computed). The F16 and BF16 variants
are run in float64 from their rounded weights (PyTorch 1.13 has no half GRU on the CPU).

Nothing here unpickles the hostile files: they are written byte by byte.
"""
import collections
import io
import json
import os
import struct
import zipfile

import torch
import torch.nn as nn

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "torchload", "testdata")
T = 5  # steps of every fixed input

# The marker a hostile pickle would create if anything ran it; the Go test checks it
# does not exist afterwards.
MARKER = "/tmp/unroll-torchload-pwned"


def gates_of(kind, sd, prefix, layers, bidir, x, nonlinearity="tanh"):
    """Recomputes every layer/direction/step in float64 from the state_dict sd.
    Returns (output T×(dirs·h), h_n, c_n or None, steps) where steps is a list of
    {"layer", "direction", "gates": {name: T×h}} in natural time order."""
    dirs = 2 if bidir else 1
    inp = x.double()
    T = inp.shape[0]
    h_n, c_n, steps = [], [], []
    for l in range(layers):
        outs = []
        for d in range(dirs):
            sfx = f"_l{l}" + ("_reverse" if d == 1 else "")
            W_ih = sd[prefix + "weight_ih" + sfx].double()
            W_hh = sd[prefix + "weight_hh" + sfx].double()
            hsz = W_hh.shape[1]
            b_ih = sd.get(prefix + "bias_ih" + sfx)
            b_hh = sd.get(prefix + "bias_hh" + sfx)
            b_ih = torch.zeros(W_ih.shape[0], dtype=torch.float64) if b_ih is None else b_ih.double()
            b_hh = torch.zeros(W_hh.shape[0], dtype=torch.float64) if b_hh is None else b_hh.double()
            h = torch.zeros(hsz, dtype=torch.float64)
            c = torch.zeros(hsz, dtype=torch.float64)
            g = collections.defaultdict(lambda: [None] * T)
            hs = [None] * T
            order = range(T) if d == 0 else reversed(range(T))
            for t in order:
                xt = inp[t]
                gi = W_ih @ xt + b_ih
                gh = W_hh @ h + b_hh
                if kind == "gru":
                    r = torch.sigmoid(gi[:hsz] + gh[:hsz])
                    z = torch.sigmoid(gi[hsz:2 * hsz] + gh[hsz:2 * hsz])
                    n = torch.tanh(gi[2 * hsz:] + r * gh[2 * hsz:])
                    h = (1 - z) * n + z * h
                    g["R"][t], g["Z"][t], g["H_tilde"][t] = r, z, n
                elif kind == "lstm":
                    a = gi + gh
                    i = torch.sigmoid(a[:hsz])
                    f = torch.sigmoid(a[hsz:2 * hsz])
                    gg = torch.tanh(a[2 * hsz:3 * hsz])
                    o = torch.sigmoid(a[3 * hsz:])
                    c = f * c + i * gg
                    h = o * torch.tanh(c)
                    g["I"][t], g["F"][t], g["O"][t], g["C_tilde"][t] = i, f, o, gg
                    g["C"][t] = c
                else:
                    a = gi + gh
                    h = torch.tanh(a) if nonlinearity == "tanh" else torch.relu(a)
                g["H"][t] = h
                hs[t] = h
            h_n.append(h)
            c_n.append(c)
            outs.append(torch.stack(hs))
            steps.append({"layer": l, "direction": d,
                          "gates": {k: torch.stack(v).tolist() for k, v in g.items()}})
        inp = torch.cat(outs, dim=1)
    return inp, torch.stack(h_n), (torch.stack(c_n) if kind == "lstm" else None), steps


def write_safetensors(path, sd):
    """safetensors by hand (json + struct): the python package is not in Debian 12."""
    header, blobs, off = {}, [], 0
    names = {torch.float32: "F32", torch.float64: "F64", torch.float16: "F16", torch.bfloat16: "BF16"}
    for k, v in sd.items():
        v = v.contiguous()
        raw = v.view(torch.int16).numpy().tobytes() if v.dtype == torch.bfloat16 else v.numpy().tobytes()
        header[k] = {"dtype": names[v.dtype], "shape": list(v.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def rounded(t):
    return [[round(v, 12) for v in row] for row in t.tolist()] if t.dim() == 2 else [round(v, 12) for v in t.tolist()]


def fixture(name, module, kind, rnn, prefix, x, dtype=torch.float32, embed=None, head=None,
            ids=None, text=None, vocab=None, nonlinearity="tanh"):
    module = module.to(dtype)
    sd = module.state_dict()
    torch.save(sd, os.path.join(OUT, name + ".pt"))
    write_safetensors(os.path.join(OUT, name + ".safetensors"), sd)

    # PyTorch's own numbers, from the nn modules (float64 for the half variants).
    run = module if dtype in (torch.float32, torch.float64) else module.double()
    with torch.no_grad():
        inp = run_embed = None
        if embed is not None:
            inp = getattr(run, embed)(torch.tensor(ids)).unsqueeze(1)
        else:
            inp = x.to(next(run.parameters()).dtype).unsqueeze(1)
        out = getattr(run, rnn)(inp)
        output, hid = out
        h_n, c_n = (hid if kind == "lstm" else (hid, None))
        output, h_n = output.squeeze(1), h_n.squeeze(1)
        c_n = None if c_n is None else c_n.squeeze(1)
        logits = None if head is None else getattr(run, head)(output)
        sd64 = {k: v.double() for k, v in run.state_dict().items()}
        xin = inp.squeeze(1).double()
    layers, bidir = getattr(module, rnn).num_layers, getattr(module, rnn).bidirectional
    o2, hn2, cn2, steps = gates_of(kind, sd64, prefix, layers, bidir, xin, nonlinearity)
    tol = 1e-5 if dtype == torch.float32 else 1e-12
    assert (o2 - output.double()).abs().max() < tol, name
    assert (hn2 - h_n.double()).abs().max() < tol, name
    if c_n is not None:
        assert (cn2 - c_n.double()).abs().max() < tol, name

    r = getattr(module, rnn)
    doc = {
        "architecture": {"kind": kind if kind != "rnn" else "rnn_" + nonlinearity, "layers": layers,
                         "bidirectional": bidir, "input_size": r.input_size,
                         "hidden_size": r.hidden_size, "bias": r.bias,
                         "embedding": None if embed is None else list(getattr(module, embed).weight.shape),
                         "head": None if head is None else list(getattr(module, head).weight.shape),
                         "parameters": sum(p.numel() for p in module.parameters())},
        "dtype": str(dtype).replace("torch.", ""),
        "output": rounded(output.double()), "h_n": rounded(h_n.double()),
        "c_n": None if c_n is None else rounded(c_n.double()),
        "logits": None if logits is None else rounded(logits.double()),
        "steps": steps,
    }
    if text is not None:
        doc["input"] = {"text": text, "vocab": vocab}
    else:
        doc["input"] = {"x": x.double().tolist()}
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(doc, f, separators=(",", ":"))


class Wrap(nn.Module):
    """Puts an nn.RNN/GRU/LSTM under the attribute name, so its names get that prefix."""

    def __init__(self, attr, m):
        super().__init__()
        setattr(self, attr, m)


class CharGRU(nn.Module):
    def __init__(self, V, e, h):
        super().__init__()
        self.embed = nn.Embedding(V, e)
        self.gru = nn.GRU(e, h)
        self.head = nn.Linear(h, V)


class Nested(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Wrap("rnn", nn.RNN(3, 4, num_layers=3))
        self.rnn = self.net.rnn  # the attribute fixture() runs


def models():
    torch.manual_seed(7)
    x = torch.randn(T, 3)
    gru = Wrap("rnn", nn.GRU(3, 4, num_layers=2, bidirectional=True))
    fixture("gru_bi2", gru, "gru", "rnn", "rnn.", x)
    gru_state = gru.state_dict()
    for dt, nm in ((torch.float64, "f64"), (torch.float16, "f16"), (torch.bfloat16, "bf16")):
        m = Wrap("rnn", nn.GRU(3, 4, num_layers=2, bidirectional=True))
        m.load_state_dict(gru_state)
        fixture("gru_bi2_" + nm, m, "gru", "rnn", "rnn.", x, dtype=dt)
    strided("gru_bi2_strided", gru.state_dict())
    lstm1 = Wrap("encoder", nn.LSTM(3, 4, bidirectional=True))
    fixture("lstm_bi1", lstm1, "lstm", "encoder", "encoder.", x)
    # The same weights as a plain dict of nn.Parameters (torch._utils._rebuild_parameter).
    torch.save(dict(lstm1.named_parameters()), os.path.join(OUT, "lstm_bi1_params.pt"))
    # A bare nn.LSTM: no prefix at all.
    lstm2 = Wrap("m", nn.LSTM(3, 4, num_layers=2, bidirectional=True))
    lstm2_sd = lstm2.m
    fixture_bare("lstm_bi2", lstm2_sd, "lstm", x)
    fixture("rnn_relu_nobias", Wrap("rnn", nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bias=False)),
            "rnn", "rnn", "rnn.", x, nonlinearity="relu")
    n = Nested()
    fixture_nested("rnn_tanh3", n, x)
    vocab = list("abcde .")
    text = "bad cab"
    ids = [vocab.index(ch) for ch in text]
    fixture("char_gru", CharGRU(len(vocab), 5, 6), "gru", "gru", "gru.", None, embed="embed", head="head",
            ids=ids, text=text, vocab=vocab)


def strided(name, sd):
    """The state_dict of gru_bi2 with every tensor a view into one shared storage, after 3
    padding elements: 2-D tensors stored transposed (stride (1, rows)), so the reader must
    follow offsets and strides. Its numbers are gru_bi2.json's."""
    parts, views, off = [torch.zeros(3)], {}, 3
    for k, v in sd.items():
        parts.append(v.t().flatten() if v.dim() == 2 else v.flatten())
        views[k] = (off, v.shape)
        off += v.numel()
    flat = torch.cat(parts)
    out = collections.OrderedDict()
    for k, (o, shape) in views.items():
        n = shape.numel()
        out[k] = flat[o:o + n].view(shape[1], shape[0]).t() if len(shape) == 2 else flat[o:o + n]
        assert torch.equal(out[k], sd[k])
    torch.save(out, os.path.join(OUT, name + ".pt"))


def fixture_bare(name, lstm, kind, x):
    class Bare(nn.Module):
        def __init__(self):
            super().__init__()
            self.m = lstm

        def state_dict(self, *a, **k):
            return self.m.state_dict(*a, **k)
    fixture(name, Bare(), kind, "m", "", x)


def fixture_nested(name, n, x):
    class Only(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = n.net

        @property
        def rnn(self):
            return self.net.rnn
    fixture(name, Only(), "rnn", "rnn", "net.rnn.", x)


def zip_pickle(path, pkl):
    """A torch.save-shaped zip (archive/data.pkl, archive/version) around pkl."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, data in (("archive/data.pkl", pkl), ("archive/version", b"3\n")):
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)


def hostile():
    cmd = ("touch " + MARKER).encode()
    # Protocol 2 with GLOBAL, as torch.save writes: os.system("touch …").
    p = b"\x80\x02cos\nsystem\nq\x00X" + struct.pack("<I", len(cmd)) + cmd + b"\x85R."
    zip_pickle(os.path.join(OUT, "hostile_os_system.pt"), p)
    # posix.system, as pickle.dumps(os.system) spells it on Linux.
    zip_pickle(os.path.join(OUT, "hostile_posix_system.pt"),
               b"\x80\x02cposix\nsystem\nX" + struct.pack("<I", len(cmd)) + cmd + b"\x85R.")
    # Protocol 4 with STACK_GLOBAL, hidden in the middle of a valid-looking OrderedDict.
    q = (b"\x80\x04" +
         b"\x8c\x0bcollections\x94\x8c\x0bOrderedDict\x94\x93\x94)R\x94" +
         b"\x8c\x01a\x94\x8c\x08builtins\x94\x8c\x04eval\x94\x93\x94" +
         b"\x8c" + bytes([len("__import__('os').system('" + "touch " + MARKER + "')")]) +
         ("__import__('os').system('" + "touch " + MARKER + "')").encode() + b"\x85R\x94s.")
    zip_pickle(os.path.join(OUT, "hostile_builtins_eval.pt"), q)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    models()
    hostile()
