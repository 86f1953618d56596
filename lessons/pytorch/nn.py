import json, torch; from safetensors import safe_open
f = safe_open("model.safetensors", "pt"); meta = f.metadata(); d, h = int(meta["input_size"]), int(meta["hidden_size"])
net = getattr(torch.nn, meta["module"])(d, h, batch_first=True, **json.loads(meta["options"])).double(); net.load_state_dict({k[4:]: f.get_tensor(k) for k in f.keys() if k.startswith("rnn.")})
x = torch.tensor(json.loads(meta["x"]), dtype=torch.float64)[None] if "x" in meta else torch.nn.functional.one_hot(torch.tensor(json.loads(meta["inputs"])), d).double()[None]
H = net(x)[0][0, int(meta["step"]) - 1].detach(); print(H)  # H_t at the page's step t
