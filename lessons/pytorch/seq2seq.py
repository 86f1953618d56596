import json, torch; from safetensors import safe_open; nn = torch.nn; torch.set_grad_enabled(False)
f = safe_open("model.safetensors", "pt"); meta = f.metadata(); W = {k: f.get_tensor(k) for k in f.keys()}
def load(module, prefix):  # a torch.nn module holding the file's tensors named prefix…
    module.double().load_state_dict({k[len(prefix):]: v for k, v in W.items() if k.startswith(prefix)}); return module
(V, h), L, att = W["decoder.out.weight"].shape, int(meta["layers"]), meta["attention"] == "true"
emb_x, emb_y = (load(nn.Embedding(*W[p + "weight"].shape), p) for p in ("encoder.embedding.", "decoder.embedding."))
out = load(nn.Linear(h, V), "decoder.out.")
if att:  # the alignment network f_θ(s, h_j) = v(tanh(W_q(s) + W_k(h_j)))
    a = W["decoder.attention.v.weight"].shape[1]
    f_att = load(nn.ModuleDict({"W_q": nn.Linear(h, a, bias=False), "W_k": nn.Linear(h, a, bias=False),
                                "v": nn.Linear(a, 1, bias=False)}), "decoder.attention.")
def gru(w, X, H):  # the lectures' GRU: R multiplies H_{t-1} before W_hh (torch.nn.GRU applies it after)
    (xr, xz, xh), (Whr, Whz, Whh) = (X @ w("weight_ih").T + w("bias")).chunk(3), w("weight_hh").chunk(3)  # r, z, h̃
    R, Z = torch.sigmoid(xr + H @ Whr.T), torch.sigmoid(xz + H @ Whz.T)
    return Z * H + (1 - Z) * torch.tanh(xh + (R * H) @ Whh.T)
def stack(side, X, S):  # one step of the L layers from their states S (updated); the top layer's new state
    for l in range(L): S[l] = X = gru(lambda name: W[f"{side}.rnn.{name}_l{l}"], X, S[l])
    return X
x, ys, t, S = json.loads(meta["x"]), json.loads(meta["y"]), int(meta["t"]), [torch.zeros(h).double()] * L
hs = torch.stack([stack("encoder", emb_x(torch.tensor(x_t)), S) for x_t in x])  # h_1 … h_T; S: each layer's h_T
def decode(y):  # the decoder fed <bos>, y_1, y_2 …: log P(y_t' | y_<t', x) and α_t' at t' = 1 … len(y)
    s, logP, A, c = list(S), [], [], hs[-1]  # s_0 = h_T, layer by layer; c = h_T
    for y_prev in [int(meta["bos"])] + y[:-1]:
        if att:  # α_t'j = softmax_j(e_t'j), c_t' = Σ_j α_t'j h_j
            A.append(torch.softmax(f_att.v(torch.tanh(f_att.W_q(s[-1]) + f_att.W_k(hs)))[:, 0], 0)); c = A[-1] @ hs
        logP.append(torch.log_softmax(out(stack("decoder", torch.cat([emb_y(torch.tensor(y_prev)), c]), s)), 0))
    return torch.stack(logP), torch.stack(A) if att else torch.zeros(len(y), 0)
src, tgt = (json.loads(meta[k]) for k in ("source_vocab", "target_vocab"))
print([src[i] for i in x], [[tgt[w] for w in y] for y in ys])  # x, and what the decoder reads after <bos>
if meta["H"] == "h": H = hs[t - 1]  # the encoder's h_t (its top layer's)
elif meta["H"] == "P":  # at step t' of each run: α_t'j (with attention), then P(y_t' | y_<t', x)
    H = torch.cat([torch.cat([A[t - 1], logP[t - 1].exp()]) for logP, A in map(decode, ys)])
else: H = torch.stack([decode(y)[0].gather(1, torch.tensor(y)[:, None]).sum() for y in ys])  # log P(y | x) of each y
print(H)
