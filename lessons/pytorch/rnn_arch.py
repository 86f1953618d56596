import json, torch; from safetensors import safe_open
f = safe_open("model.safetensors", "pt"); meta = f.metadata(); W = {k: f.get_tensor(k) for k in f.keys()}
def linear(name):  # a torch.nn.Linear from the file's name.weight and name.bias
    m = torch.nn.Linear(*W[name + ".weight"].shape[::-1]).double(); m.load_state_dict({k: W[name + "." + k] for k in ("weight", "bias")}); return m
inp, out = linear("in"), linear("out")  # in: [X_t, ŷ_{t-1}] W + b_h, W = [W_xh; W_oh]; out: H_t W_hq + b_q
V = out.out_features; X = torch.nn.functional.one_hot(torch.tensor(json.loads(meta["inputs"])), V).double()
y = torch.zeros(V, dtype=torch.float64)  # ŷ_0 = 0
with torch.no_grad():
    for t in range(int(meta["step"])):  # B: the previous output, not the previous hidden state, feeds H_t
        H = torch.tanh(inp(torch.cat([X[t], y])))  # H_t = tanh(X_t W_xh + ŷ_{t-1} W_oh + b_h)
        y = torch.softmax(out(H), -1)  # ŷ_t = softmax(H_t W_hq + b_q)
H = torch.cat([H, y]); print(H)  # H_t and ŷ_t at the page's step t
