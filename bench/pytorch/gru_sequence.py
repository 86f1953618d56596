#!/usr/bin/env python3
"""PyTorch CPU reference for models.BenchmarkGRUSequence.

One iteration = the forward pass of the lecture-4.3 GRU over a batch of B
sequences (T=32, d=32, h=64, float64) plus full backpropagation through time
of the loss L = sum over t of sum(H_t), i.e. every upstream gradient dH_t is a
matrix of ones.  Gradients are computed for all nine parameters, the inputs X_t
and the initial state H_0, as the Go benchmark does.

The equations are written out with torch tensors, row-vector convention:
    R_t  = sigmoid(X_t W_xr + H_{t-1} W_hr + b_r)
    Z_t  = sigmoid(X_t W_xz + H_{t-1} W_hz + b_z)
    H~_t = tanh(X_t W_xh + (R_t * H_{t-1}) W_hh + b_h)
    H_t  = Z_t * H_{t-1} + (1 - Z_t) * H~_t

Timing: best per-iteration time over several rounds of many repetitions, for
torch.set_num_threads(1) and (2); the best of the two is reported.  The script
also prints torch.nn.GRU (PyTorch's fused C++ GRU, which uses the reset-after
candidate form) for reference.

Run with Debian's interpreter, which has python3-torch:
    /usr/bin/python3 bench/pytorch/gru_sequence.py
"""
import time

import torch

T, D, H = 32, 32, 64
BATCHES = (1, 32)
ROUNDS = 5            # best of ROUNDS timing rounds, to shrug off noise from other processes
MIN_ROUND_SECONDS = 0.5  # each round runs at least this long


def make_params(gen):
    a = 1.0 / H ** 0.5

    def uniform(*shape):
        return ((torch.rand(*shape, generator=gen, dtype=torch.float64) * 2 - 1) * a).requires_grad_()

    names = ["W_xr", "W_hr", "b_r", "W_xz", "W_hz", "b_z", "W_xh", "W_hh", "b_h"]
    shapes = [(D, H), (H, H), (H,), (D, H), (H, H), (H,), (D, H), (H, H), (H,)]
    return {n: uniform(*s) for n, s in zip(names, shapes)}


def gru_sequence(p, xs, h0):
    """Forward over the sequence; returns the list of H_t."""
    h = h0
    out = []
    for x in xs:
        r = torch.sigmoid(x @ p["W_xr"] + h @ p["W_hr"] + p["b_r"])
        z = torch.sigmoid(x @ p["W_xz"] + h @ p["W_hz"] + p["b_z"])
        h_tilde = torch.tanh(x @ p["W_xh"] + (r * h) @ p["W_hh"] + p["b_h"])
        h = z * h + (1 - z) * h_tilde
        out.append(h)
    return out


def one_iteration(p, xs, h0):
    for t in list(p.values()) + list(xs) + [h0]:
        t.grad = None
    hs = gru_sequence(p, xs, h0)
    loss = torch.stack(hs).sum()  # dH_t = ones for every t
    loss.backward()


def nn_gru_iteration(gru, xseq, h0):
    gru.zero_grad(set_to_none=True)
    xseq.grad = None
    h0.grad = None
    out, _ = gru(xseq, h0)
    out.sum().backward()


def time_it(fn):
    fn()  # warm up
    fn()
    n = 1
    while True:  # find a repetition count that takes about MIN_ROUND_SECONDS
        start = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= MIN_ROUND_SECONDS:
            break
        n *= 2
    best = elapsed / n
    for _ in range(ROUNDS - 1):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - start) / n)
    return best, n


def main():
    gen = torch.Generator().manual_seed(1)
    p = make_params(gen)
    print(f"torch {torch.__version__}, T={T} d={D} h={H} float64, loss = sum of all H_t")
    for b in BATCHES:
        xs = [torch.rand(b, D, generator=gen, dtype=torch.float64).requires_grad_() for _ in range(T)]
        h0 = torch.zeros(b, H, dtype=torch.float64, requires_grad=True)
        gru = torch.nn.GRU(D, H, dtype=torch.float64)
        xseq = torch.stack([x.detach() for x in xs]).requires_grad_()
        h0n = torch.zeros(1, b, H, dtype=torch.float64, requires_grad=True)
        results = {}
        for threads in (1, 2):
            torch.set_num_threads(threads)
            results[threads] = (time_it(lambda: one_iteration(p, xs, h0)),
                                time_it(lambda: nn_gru_iteration(gru, xseq, h0n)))
        for threads, ((t_eq, n_eq), (t_nn, n_nn)) in results.items():
            print(f"B={b:<3d} threads={threads}  written-out equations: {t_eq * 1e6:10.1f} µs/iter ({n_eq} reps)"
                  f"   torch.nn.GRU: {t_nn * 1e6:10.1f} µs/iter ({n_nn} reps)")
        best_eq = min(r[0][0] for r in results.values())
        best_nn = min(r[1][0] for r in results.values())
        print(f"B={b:<3d} best                  written-out equations: {best_eq * 1e6:10.1f} µs/iter"
              f"   torch.nn.GRU: {best_nn * 1e6:10.1f} µs/iter")


if __name__ == "__main__":
    main()
