import json, torch; from safetensors import safe_open
f = safe_open("model.safetensors", "pt"); meta = f.metadata(); W = {k: f.get_tensor(k) for k in f.keys()}
def load(m, name): m.double().load_state_dict({k[len(name) + 1:]: v for k, v in W.items() if k.startswith(name + ".")}); return m
E = load(torch.nn.Embedding(*W["embedding.weight"].shape), "embedding")  # e⟨t⟩ = E o_x⟨t⟩
avg, out = (load(torch.nn.Linear(*W[n + ".weight"].shape[::-1]), n) for n in ("avg", "out"))  # (W, b) and (W_ya, b_y)
Wx, Wh, b = W["gru.weight_ih_l0"].chunk(3), W["gru.weight_hh_l0"].chunk(3), W["gru.bias_l0"].chunk(3)  # blocks r, z, h̃
def gru(e, a):  # the lectures' GRU: the reset gate R acts on a⟨t−1⟩ before W_hh
    R, Z = (torch.sigmoid(Wx[g] @ e + Wh[g] @ a + b[g]) for g in (0, 1))
    return Z * a + (1 - Z) * torch.tanh(Wx[2] @ e + Wh[2] @ (R * a) + b[2])
x, t = torch.tensor(json.loads(meta["inputs"])), int(meta["step"])  # the review's word ids, the page's step t
with torch.no_grad():
    e, a = E(x), torch.zeros(out.in_features, dtype=torch.float64)  # e⟨1⟩ … e⟨T_x⟩, a⟨0⟩ = 0
    for e_t in e[:t]: a = gru(e_t, a)  # a⟨t⟩
    p_rnn = torch.softmax(out(a), -1)[1]  # the GRU's P(positive) from a⟨t⟩ (class 1 is positive)
    p_avg = torch.softmax(avg(e[:t].mean(0)), -1)[1]  # the average model's, from the first t words
    vote = (avg.weight[1] - avg.weight[0]) @ e[t - 1]  # word t's vote v⟨t⟩ = (w₊ − w₋) e⟨t⟩
H = torch.cat([a, torch.stack([p_rnn, p_avg, vote])]); print(H)  # a⟨t⟩, then P(positive) of the GRU and the average, v⟨t⟩
