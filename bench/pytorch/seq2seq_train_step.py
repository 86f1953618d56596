#!/usr/bin/env python3
"""PyTorch CPU reference for zoo.BenchmarkTranslatorTrainStep.

One step = one Adam update of the GRU encoder-decoder of lecture 4.6 on a
minibatch, the job zoo.Translator.TrainStep does for the bundled translator
seq2seq-corpus:

    encoder  h_t  = GRU(E_src[x_t], h_{t-1}),  h_0 = 0,  c = h at each source's own length
    decoder  s_t' = GRU([E_tgt[y_{t'-1}]; c], s_{t'-1}),  s_0 = c,  y_0 = <bos>
    output   o_t' = s_t' W + b,  loss = sum over real labels of -log softmax(o_t')[y_t']
                                        / number of real labels

with teacher forcing (the decoder reads <bos> then the labels shifted right by
one), padding masked out of the loss, the global gradient norm clipped to 1 and
Adam (lr 0.005, betas 0.9 and 0.999, eps 1e-8).  Sizes: embeddings 32, hidden
64, source vocabulary 292, target vocabulary 508, batch 32, source and target
padded to 10 steps (each sentence's real length drawn from 3..10, so the masks
do something).

Both GRUs are torch.nn.GRU, PyTorch's fused C++ GRU (its reset-after candidate
form; the Go model uses the lecture's reset-before form: the same products).
Every step draws a fresh minibatch of token ids, like the Go benchmark, which
draws one from the corpus.

Timing: torch.set_num_threads(1); a warm-up, then the best of 5 rounds of 50
steps, reported in ms/step, for float32 (the comparison of record) and float64
(the Go code's precision) for reference.

Run with Debian's interpreter, which has python3-torch:
    /usr/bin/python3 bench/pytorch/seq2seq_train_step.py
    /usr/bin/python3 bench/pytorch/seq2seq_train_step.py --src-steps 8 --tgt-steps 9
The second pads to the corpus minibatches' usual lengths (see bench/README.md).
"""
import argparse
import time

import torch
from torch import nn

EMBED, HIDDEN = 32, 64
SRC_VOCAB, TGT_VOCAB = 292, 508
BATCH = 32
SRC_STEPS, TGT_STEPS = 10, 10   # padded lengths; --src-steps and --tgt-steps change them
MIN_LEN = 3                     # shortest real sentence, in tokens
PAD, BOS, EOS = 0, 1, 2         # as models/vocab.go numbers them
LR, CLIP = 0.005, 1.0
ROUNDS, STEPS_PER_ROUND, WARMUP = 5, 50, 20


class Seq2Seq(nn.Module):
    def __init__(self, dtype):
        super().__init__()
        self.src_embed = nn.Embedding(SRC_VOCAB, EMBED, dtype=dtype)
        self.encoder = nn.GRU(EMBED, HIDDEN, batch_first=True, dtype=dtype)
        self.tgt_embed = nn.Embedding(TGT_VOCAB, EMBED, dtype=dtype)
        self.decoder = nn.GRU(EMBED + HIDDEN, HIDDEN, batch_first=True, dtype=dtype)
        self.out = nn.Linear(HIDDEN, TGT_VOCAB, dtype=dtype)

    def loss(self, src, src_len, labels, mask):
        states, _ = self.encoder(self.src_embed(src))               # B×T×h, every step
        rows = torch.arange(src.shape[0])
        context = states[rows, src_len - 1]                          # h at each source's own length
        dec_in = torch.cat([torch.full_like(labels[:, :1], BOS), labels[:, :-1]], dim=1)
        emb = self.tgt_embed(dec_in)                                 # B×T'×e
        ctx = context.unsqueeze(1).expand(-1, emb.shape[1], -1)      # the same c at every step
        s, _ = self.decoder(torch.cat([emb, ctx], dim=2), context.unsqueeze(0).contiguous())
        logits = self.out(s)                                         # B×T'×V, one product
        nll = nn.functional.cross_entropy(logits.reshape(-1, TGT_VOCAB), labels.reshape(-1), reduction="none")
        return (nll * mask.reshape(-1)).sum() / mask.sum()


def draw_batch(gen):
    """A padded minibatch: ids, lengths, labels ending in <eos>, and the label mask."""
    def side(vocab, steps):
        lens = torch.randint(MIN_LEN, steps + 1, (BATCH,), generator=gen)
        ids = torch.randint(EOS + 1, vocab, (BATCH, steps), generator=gen)
        pos = torch.arange(steps).unsqueeze(0)
        ids[pos >= lens.unsqueeze(1)] = PAD
        return ids, lens, pos
    src, src_len, _ = side(SRC_VOCAB, SRC_STEPS)
    labels, tgt_len, pos = side(TGT_VOCAB, TGT_STEPS)
    labels[torch.arange(BATCH), tgt_len - 1] = EOS
    mask = (pos < tgt_len.unsqueeze(1))
    return src, src_len, labels, mask


def make_step(model, opt, gen, dtype):
    def step():
        src, src_len, labels, mask = draw_batch(gen)
        opt.zero_grad(set_to_none=False)
        loss = model.loss(src, src_len, labels, mask.to(dtype))
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        opt.step()
        return loss.item()
    return step


def time_steps(step):
    for _ in range(WARMUP):
        step()
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(STEPS_PER_ROUND):
            step()
        best = min(best, (time.perf_counter() - start) / STEPS_PER_ROUND)
    return best


def main():
    global SRC_STEPS, TGT_STEPS
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--src-steps", type=int, default=SRC_STEPS, help="source length, padded")
    args.add_argument("--tgt-steps", type=int, default=TGT_STEPS, help="target length, padded")
    a = args.parse_args()
    SRC_STEPS, TGT_STEPS = a.src_steps, a.tgt_steps
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, 1 thread; embed {EMBED}, hidden {HIDDEN}, vocab {SRC_VOCAB}/{TGT_VOCAB}, "
          f"batch {BATCH}, {SRC_STEPS}/{TGT_STEPS} steps; best of {ROUNDS} x {STEPS_PER_ROUND} steps")
    for dtype in (torch.float32, torch.float64):
        torch.manual_seed(1)
        model = Seq2Seq(dtype)
        opt = torch.optim.Adam(model.parameters(), lr=LR, betas=(0.9, 0.999), eps=1e-8)
        gen = torch.Generator().manual_seed(1)
        step = make_step(model, opt, gen, dtype)
        ms = time_steps(step) * 1e3
        print(f"{str(dtype).removeprefix('torch.'):8s} {ms:7.2f} ms/step  (loss after training {step():.4f})")


if __name__ == "__main__":
    main()
