import json, torch; from safetensors import safe_open
f = safe_open("model.safetensors", "pt"); meta = f.metadata(); W = {k: f.get_tensor(k) for k in f.keys()}
d, h = int(meta["input_size"]), int(meta["hidden_size"])
# nn.LSTM's blocks I, F, C̃, O, transposed for X_t W; its two biases add up to b (bias_hh is 0)
(W_xi, W_xf, W_xc, W_xo), (W_hi, W_hf, W_hc, W_ho) = W["rnn.weight_ih_l0"].T.chunk(4, 1), W["rnn.weight_hh_l0"].T.chunk(4, 1)
b_i, b_f, b_c, b_o = (W["rnn.bias_ih_l0"] + W["rnn.bias_hh_l0"]).chunk(4)
p_i, p_f, p_o = W["rnn.peephole_l0"].chunk(3)  # the diagonal peephole weights (all 0: the LSTM without them)
x = torch.nn.functional.one_hot(torch.tensor(json.loads(meta["inputs"])), d).double()
H, C = torch.zeros(h, dtype=torch.float64), torch.zeros(h, dtype=torch.float64)
for X in x[:int(meta["step"])]:  # t = 1 … the page's step
    I = torch.sigmoid(X @ W_xi + H @ W_hi + C * p_i + b_i)  # the gates see C_{t-1}
    F = torch.sigmoid(X @ W_xf + H @ W_hf + C * p_f + b_f)
    C = F * C + I * torch.tanh(X @ W_xc + H @ W_hc + b_c)
    O = torch.sigmoid(X @ W_xo + H @ W_ho + C * p_o + b_o)  # O_t sees the new C_t
    H = O * torch.tanh(C)
H = H if meta["H"] == "H" else C; print(H)  # H_t, or C_t, at the page's step
