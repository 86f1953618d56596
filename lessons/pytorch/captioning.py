import json, torch; from safetensors import safe_open
f = safe_open("model.safetensors", "pt"); meta = f.metadata(); W = {k: f.get_tensor(k) for k in f.keys()}
def load(m, name): m.double().load_state_dict({k[len(name) + 1:]: v for k, v in W.items() if k.startswith(name + ".")}); return m
enc, out = (load(torch.nn.Linear(*W[n + ".weight"].shape[::-1]), n) for n in ("encoder", "out"))  # (W_v, b_v) and (V, c)
E = load(torch.nn.Embedding(*W["embedding.weight"].shape), "embedding")  # e(y)
Wi, Wh, b = (W["decoder." + n].chunk(3) for n in ("weight_ih_l0", "weight_hh_l0", "bias_l0"))  # blocks r, z, h̃
def gru(i, h):  # the lectures' GRU: the reset gate r acts on h⁽ᵗ⁻¹⁾ before W_hh
    r, z = (torch.sigmoid(Wi[g] @ i + Wh[g] @ h + b[g]) for g in (0, 1))
    return z * h + (1 - z) * torch.tanh(Wi[2] @ i + Wh[2] @ (r * h) + b[2])
vocab, approach = json.loads(meta["vocab"]), int(meta["approach"])  # 1: h⁽⁰⁾ = x; 2: x at every step; 3: both
with torch.no_grad():
    x = torch.tanh(enc(torch.tensor(json.loads(meta["image"]), dtype=torch.float64)))  # x = tanh(v W_v + b_v)
    h = torch.zeros_like(x) if approach == 2 else x  # h⁽⁰⁾
    y, caption = vocab.index("<bos>"), []  # y⁽⁰⁾
    for t in range(int(meta["step"])):  # greedy, up to the page's step: each step feeds back its most probable word
        i = E(torch.tensor(y)) if approach == 1 else torch.cat([E(torch.tensor(y)), x])  # i⁽ᵗ⁾ = e(y⁽ᵗ⁻¹⁾), or [e(y⁽ᵗ⁻¹⁾); x]
        h = gru(i, h); P = torch.softmax(out(h), -1); y = int(P.argmax())  # h⁽ᵗ⁾, ŷ⁽ᵗ⁾ and y⁽ᵗ⁾
        caption.append(vocab[y])
print(*caption); H = torch.cat([x, h, P]); print(H)  # x, h⁽ᵗ⁾ and ŷ⁽ᵗ⁾ at the page's step t
