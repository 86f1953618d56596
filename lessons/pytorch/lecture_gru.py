import json, torch; from safetensors import safe_open
f = safe_open("model.safetensors", "pt"); meta = f.metadata()
d, h, L = int(meta["input_size"]), int(meta["hidden_size"]), int(meta["num_layers"])
fixed = json.loads(meta["clamp"])  # a gate the page holds fixed: {"R": value}, {"Z": value} or {}

def layer(l):  # layer l's (W_x, W_h, b) of R, Z and H̃: nn.GRU's row blocks, transposed for X_t W
    get = lambda name: f.get_tensor(f"rnn.{name}_l{l}").chunk(3)
    wx, wh, b = get("weight_ih"), get("weight_hh"), get("bias")
    return [(wx[k].T, wh[k].T, b[k]) for k in range(3)]

def gru(X, H, gates):  # the lectures' GRU: the reset gate R_t acts on H_{t-1} before W_hh
    (W_xr, W_hr, b_r), (W_xz, W_hz, b_z), (W_xh, W_hh, b_h) = gates
    R = torch.full_like(H, fixed["R"]) if "R" in fixed else torch.sigmoid(X @ W_xr + H @ W_hr + b_r)
    Z = torch.full_like(H, fixed["Z"]) if "Z" in fixed else torch.sigmoid(X @ W_xz + H @ W_hz + b_z)
    H_tilde = torch.tanh(X @ W_xh + (R * H) @ W_hh + b_h)
    return Z * H + (1 - Z) * H_tilde

if "x" in meta: x = torch.tensor(json.loads(meta["x"]), dtype=torch.float64)  # numbers, a row a step
else: x = torch.nn.functional.one_hot(torch.tensor(json.loads(meta["inputs"])), d).double()  # tokens
layers = [layer(l) for l in range(L)]
Hs = [torch.zeros(h, dtype=torch.float64) for _ in layers]  # H_0 = 0 in every layer
for X in x[:int(meta["step"])]:  # t = 1 … the page's step
    for l, gates in enumerate(layers):
        Hs[l] = X = gru(X, Hs[l], gates)  # layer l + 1 reads the layer below's H_t
H = Hs[-1]; print(H)  # H_t at the page's step (of the top layer)
