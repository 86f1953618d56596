import json, math, torch; from torch import nn; from safetensors import safe_open
f = safe_open("model.safetensors", "pt"); meta = f.metadata()
d, h, d_ff, N = (int(meta[k]) for k in ("d_model", "nhead", "dim_feedforward", "num_layers"))
d_k, V_x, V_y = d // h, int(meta["src_vocab"]), int(meta["tgt_vocab"])
masked, s = meta["mask"] == "true", 1 / math.sqrt(d_k) if meta["scale"] == "true" else 1  # the page's switches

def layer(attentions, norms):  # W_Q = [W_1^Q … W_h^Q] (so W_K, W_V, W_O) as nn.Linear without bias
    W = lambda: nn.ModuleDict({w: nn.Linear(d, d, bias=False) for w in ("W_Q", "W_K", "W_V", "W_O")})
    LN = lambda: nn.LayerNorm(d, eps=float(meta["layer_norm_eps"]))
    return nn.ModuleDict({a: W() for a in attentions} | {n: LN() for n in norms}
                         | {"linear1": nn.Linear(d, d_ff), "linear2": nn.Linear(d_ff, d)})
net = nn.ModuleDict({"src_embedding": nn.Embedding(V_x, d), "tgt_embedding": nn.Embedding(V_y, d),
    "encoder": nn.ModuleList(layer(["self_attn"], ["norm1", "norm2"]) for _ in range(N)),
    "decoder": nn.ModuleList(layer(["self_attn", "cross_attn"], ["norm1", "norm2", "norm3"]) for _ in range(N)),
    "out": nn.Linear(d, V_y)}).double()
net.load_state_dict({k: f.get_tensor(k) for k in f.keys()})  # strict: every name and shape is checked

def PE(n):  # PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / 10000^(2i/d))
    angle = torch.arange(n).double()[:, None] / 10000 ** ((torch.arange(d) // 2 * 2).double() / d)
    return torch.where(torch.arange(d) % 2 == 0, angle.sin(), angle.cos())

def MultiHead(a, Xq, Xkv, M=0):  # Concat(head_1, …, head_h) W^O
    Q, K, V = (x.view(len(x), h, d_k).transpose(0, 1)  # [i]: head i's Xq W_i^Q, Xkv W_i^K, Xkv W_i^V
               for x in (a.W_Q(Xq), a.W_K(Xkv), a.W_V(Xkv)))
    A = (s * (Q @ K.transpose(1, 2)) + M).softmax(-1)  # A[i] = softmax(s Q_i K_iᵀ + M), head i's weights
    return a.W_O((A @ V).transpose(0, 1).reshape(len(Xq), d))  # head_i = A[i] V_i

FFN = lambda l, Z: l.linear2(l.linear1(Z).relu())  # ReLU(Z W⁽¹⁾ + b⁽¹⁾) W⁽²⁾ + b⁽²⁾

def encoder(x):  # H, the last encoder layer's output
    X = net.src_embedding(x) + PE(len(x))
    for l in net.encoder:
        Z = l.norm1(X + MultiHead(l.self_attn, X, X))
        X = l.norm2(Z + FFN(l, Z))
    return X

def decoder(y, H):  # P(y_t′ | y_<t′, x) = softmax(Y_t′ W + b) at every position t′
    Y = net.tgt_embedding(y) + PE(len(y))
    M = torch.full((len(y), len(y)), -math.inf).double().triu(1) if masked else 0  # −∞ on the keys j > t′
    for l in net.decoder:
        Z1 = l.norm1(Y + MultiHead(l.self_attn, Y, Y, M))
        Z2 = l.norm2(Z1 + MultiHead(l.cross_attn, Z1, H))
        Y = l.norm3(Z2 + FFN(l, Z2))
    return net.out(Y).softmax(-1)

x, y = (torch.tensor(json.loads(meta[k])) for k in ("source", "decoder_inputs"))  # x; <bos>, ŷ_1, …, ŷ_{t′−1}
with torch.no_grad(): H = decoder(y, encoder(x))[-1]
print(H)  # P(y_t′ | ŷ_<t′, x) at the page's step t′: the page's softmax
