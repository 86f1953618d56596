#!/usr/bin/env python3
"""Prints the torchGRU and torchLSTM test cases of models/gru_test.go and
models/lstm_test.go: one run of torch.nn.GRU and torch.nn.LSTM (float64, T=3,
B=2, d=2, h=3) with every output and gradient, as Go literals.

    /usr/bin/python3 bench/pytorch/cell_golden.py

The tests map PyTorch's weights to the lectures' names (see the doc comments of
models.GRU and models.LSTM) and must reproduce these numbers to 1e-12.
"""
import torch

T, B, D, H = 3, 2, 2, 3
TYPES = {1: "[]float64", 2: "[][]float64", 3: "[][][]float64"}


def literal(t):
    t = t.detach().double()
    if t.dim() == 1:
        return "{" + ", ".join(repr(float(v)) for v in t) + "}"
    return "{" + ", ".join(literal(r) for r in t) + "}"


def field(name, t):
    print(f"\t{name}: {TYPES[t.dim()]}{literal(t)},")


def case(name, module):
    with torch.no_grad():
        for p in module.parameters():
            p.uniform_(-0.8, 0.8)
    x = (torch.rand(T, B, D, dtype=torch.float64) * 2 - 1).requires_grad_()
    h0 = (torch.rand(1, B, H, dtype=torch.float64) * 2 - 1).requires_grad_()
    dh = torch.rand(T, B, H, dtype=torch.float64) * 2 - 1
    lstm = isinstance(module, torch.nn.LSTM)
    if lstm:
        c0 = (torch.rand(1, B, H, dtype=torch.float64) * 2 - 1).requires_grad_()
        out, _ = module(x, (h0, c0))
    else:
        out, _ = module(x, h0)
    (out * dh).sum().backward()
    print(f"var {name} = torchCase{{")
    field("weightIH", module.weight_ih_l0)
    field("weightHH", module.weight_hh_l0)
    field("biasIH", module.bias_ih_l0)
    field("biasHH", module.bias_hh_l0)
    field("x", x)
    field("h0", h0[0])
    if lstm:
        field("c0", c0[0])
    field("dH", dh)
    field("out", out)
    field("gradWeightIH", module.weight_ih_l0.grad)
    field("gradWeightHH", module.weight_hh_l0.grad)
    field("gradBiasIH", module.bias_ih_l0.grad)
    field("gradBiasHH", module.bias_hh_l0.grad)
    field("gradX", x.grad)
    field("gradH0", h0.grad[0])
    if lstm:
        field("gradC0", c0.grad[0])
    print("}")


def main():
    torch.manual_seed(7)
    case("torchGRU", torch.nn.GRU(D, H, dtype=torch.float64))
    case("torchLSTM", torch.nn.LSTM(D, H, dtype=torch.float64))


if __name__ == "__main__":
    main()
