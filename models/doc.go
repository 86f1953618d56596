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
//
// Reading order. The plain version of each computation comes first; the fast paths
// are optimisations of it, and each has a test that holds the two equal.
//
//  1. cell.go (the Cell interface, a step's trace) and kernels.go (the affine map
//     A = X_t W_x + H_{t-1} W_h + b and its backward pass, σ, the products).
//  2. The cells, one step forward (Step) and back (StepBack), in the lectures' order:
//     rnn.go, gru.go (lecture 4.3; TestGRUByHand works the lecture's example), lstm.go.
//     Every backward pass is checked by finite differences in its test file.
//  3. bptt.go: Forward and Backward over a sequence. ForwardSteps is the plain loop
//     state_t = Step(X_t, state_{t-1}); read it first (TestBPTTFiniteDifferences).
//  4. The optimisations, each an exact replacement:
//     - gru_sequence.go: the lecture-form GRU's fused sequence pass, which Forward and
//     Backward take for it (a SequenceCell): the products of all T steps' inputs at
//     once, rows split across cores. TestGRUSequenceMatchesSteps and
//     TestBPTTStepwiseMatchesSequence hold it to T calls of Step and StepBack.
//     - gemm.go, with gemm_amd64.go and its assembly: cache-blocked products and an
//     AVX2 fused multiply-add kernel for them where the CPU has it (gemm_other.go
//     elsewhere). TestBlockedProducts holds them to three plain loops.
//     - seq2seq_train.go: the encoder-decoder's fused training step;
//     TestSeq2SeqFusedMatchesSteps holds it to the step-by-step one.
//  5. What is built from the cells: stack.go, the stacks: Deep (L layers, lecture 4.5),
//     Bidirectional (two directions), then Stack, L layers × D directions in PyTorch's
//     layout (layer l+1 reads [→H_t, ←H_t] of layer l), which torchload and the yours
//     page run, with StepValues, the table of what a trace holds at each step
//     (TestStackFiniteDifferences; TestStackMatchesPyTorch against torchload's PyTorch
//     fixtures). Then layers.go (the embedding and the dense output layer),
//     seq2seq*.go, attention.go, transformer*.go, decoding (beam*.go) and the metrics
//     (bleu.go, ter.go, wer.go).
package models
