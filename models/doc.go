// Package models is the numerical core of Unroll: recurrent cells, backpropagation
// through time, stacks, sequence-to-sequence models, decoding and metrics, written in
// the lectures' notation.
//
// Conventions, followed by every file in the package:
//
//   - Row vectors, as the lectures write them: an input X_t is B×d (one example per
//     row), a hidden state H_t is B×h, weights W_x* are d×h and W_h* are h×h, so a
//     gate is σ(X_t W_x* + H_{t-1} W_h* + b_*). Biases are stored as 1×h matrices.
//   - Parameters are named exactly as docs/api.md names them (W_xr, W_hr, b_r, …) and are
//     reached through Params(), so optimisers, clipping, checkpoints and gradient
//     checks work on any model.
//   - Randomness arrives as a *rand.Rand (math/rand/v2); nothing reads global state.
//   - Wrong shapes are programmer errors and panic with a "models: …" message; bad data
//     (NaN, Inf, an empty sequence) is returned as an error.
package models
