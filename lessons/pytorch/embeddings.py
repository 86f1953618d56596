import json, torch; from safetensors import safe_open
f = safe_open("model.safetensors", "pt"); meta = f.metadata(); words = json.loads(meta["words"])
def embedding(name): return torch.nn.Embedding.from_pretrained(f.get_tensor(name))  # row w is word w's vector
E, Θ = embedding("embedding.weight"), embedding("context.weight")  # skip-gram's e_w and θ_w
c, t, n = (torch.tensor(json.loads(meta[k])) for k in ("c", "t", "negatives"))  # the page's pair (c, t) and its k negatives n_i
e_c, θ = E(c), Θ(torch.cat([t[None], n]))  # e_c; θ_t, then the θ_{n_i}
s = torch.sigmoid(θ @ e_c)  # P(y = 1 | c, ·) = σ(θᵀ e_c): the bars
L = -torch.nn.functional.logsigmoid(θ[0] @ e_c) - torch.nn.functional.logsigmoid(-θ[1:] @ e_c).sum()  # the example's loss
glove = (f.get_tensor("glove.e.weight") + f.get_tensor("glove.theta.weight")) / 2  # GloVe's (e_w + θ_w)/2
w, K = int(meta["word"]), int(meta["neighbours"])  # the typed word and how many neighbours the page lists
def nearest(V):  # the K words of largest sim(e_v, e_w) = cos φ, w itself left out
    cos = torch.nn.functional.cosine_similarity(V, V[w][None]); cos[w] = -2
    top = cos.topk(K); print(words[w], "→", [f"{words[v]} {x:.2f}" for v, x in zip(top.indices, top.values)]); return top.values
H = torch.cat([s, L[None], nearest(E.weight), nearest(glove)]).detach(); print(H)  # σ(θ_tᵀe_c), σ(θ_{n_i}ᵀe_c), L, then the neighbours' cosines
