import json, torch; from safetensors import safe_open
f = safe_open("model.safetensors", "pt"); meta = f.metadata(); num = lambda key: json.loads(meta[key])
W_xh = f.get_tensor("rnn.weight_ih_l0").T.requires_grad_()  # X_t W_xh: nn.RNN's weight, transposed
W_hh = f.get_tensor("rnn.weight_hh_l0").T.requires_grad_()
b_h = f.get_tensor("rnn.bias_l0").requires_grad_()
phi = {"tanh": torch.tanh, "relu": torch.relu, "identity": lambda A: A}[meta["activation"]]
alpha, k, theta, clip_on = num("alpha"), num("truncate"), num("clip"), meta["clip_on"]
X, u = torch.tensor(num("x"), dtype=torch.float64), torch.tensor(num("u"), dtype=torch.float64)
T, dL_dH = len(X), {}

def arrive(t):  # the backward pass reaches H_t with g = ∂L/∂H_t: clip it (clip_on = state), keep
    def hook(g):
        if clip_on == "state" and 0 < theta < g.norm(): g = g * (theta / g.norm())
        dL_dH[t] = g; return g
    return hook

Hs, H = [], torch.zeros(len(b_h), dtype=torch.float64)  # H_0 = 0
for t in range(1, T + 1):
    if t == T - k + 1: H = H.detach()  # truncation (k > 0): no gradient reaches H_{T-k} or before
    H = (1 - alpha) * H + alpha * phi(X[t - 1] @ W_xh + H @ W_hh + b_h)  # leaky; alpha = 1: plain
    H.register_hook(arrive(t)); Hs.append(H)
(H @ u).backward()  # L = H_T u^T, so ∂L/∂H_T = u
g = torch.cat([p.grad.flatten() for p in (W_xh, W_hh, b_h)]).norm()  # ‖g‖ over every weight
if clip_on == "params" and 0 < theta < g: W_hh.grad *= theta / g
t, zero = num("t"), torch.zeros(len(b_h), dtype=torch.float64)  # t: the time step of the page's step
H = torch.cat([Hs[t - 1].detach(), dL_dH.get(t, zero), W_hh.grad.norm()[None]])  # H_t, ∂L/∂H_t, ‖∂L/∂W_hh‖
print(H)
