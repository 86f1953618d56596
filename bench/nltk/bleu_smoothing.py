#!/usr/bin/env python3
"""Writes models/testdata/bleu_nltk.json: sentence and corpus BLEU as NLTK computes them
with general weights and its smoothing methods 1 and 2, for models.TestBLEUAgainstNLTK.

Run with Debian's python3-nltk (apt install python3-nltk): /usr/bin/python3 bench/nltk/bleu_smoothing.py
"""
import json
import nltk
from nltk.translate.bleu_score import sentence_bleu, corpus_bleu, SmoothingFunction

SENTENCES = [  # (candidate, references)
    ("the cat", ["the cat"]),
    ("the cat the cat on the mat", ["the cat is on the mat", "there is a cat on the mat"]),
    ("a cat sat", ["the cat sat on the mat"]),
    ("the the the the the the the", ["the cat is on the mat", "there is a cat on the mat"]),
    ("on the mat the cat sat quietly", ["the cat sat on the mat"]),
    ("cat", ["the cat sat"]),
]
WEIGHTS = [(0.25, 0.25, 0.25, 0.25), (0.5, 0.5), (0.4, 0.3, 0.2, 0.1), (1.0,), (0.5, 0.5, 0.0, 0.0)]
METHODS = {"epsilon": "method1", "add-one": "method2"}

sf = SmoothingFunction()  # epsilon 0.1
cases = []
for cand, refs in SENTENCES:
    c, rs = cand.split(), [r.split() for r in refs]
    for w in WEIGHTS:
        for name, method in METHODS.items():
            score = sentence_bleu(rs, c, weights=w, smoothing_function=getattr(sf, method))
            cases.append({"candidate": cand, "references": refs, "w": list(w), "smoothing": name, "bleu": score})
# The corpus uses the sentences of at least 4 words only: for a sentence shorter than n,
# NLTK adds 1 to the corpus's n-gram total (its modified_precision divides by
# max(1, count)), where the paper adds nothing (a 1-word sentence has no bigrams).
corpus = []
long = [(c, rs) for c, rs in SENTENCES if len(c.split()) >= 4]
cands = [c.split() for c, _ in long]
refss = [[r.split() for r in rs] for _, rs in long]
for w in WEIGHTS:
    for name, method in METHODS.items():
        corpus.append({"w": list(w), "smoothing": name,
                       "bleu": corpus_bleu(refss, cands, weights=w, smoothing_function=getattr(sf, method))})
out = {"nltk": nltk.__version__, "sentences": long, "sentence": cases, "corpus": corpus}
with open("models/testdata/bleu_nltk.json", "w") as f:
    json.dump(out, f, indent=1)
print(f"wrote {len(cases)} sentence and {len(corpus)} corpus cases (NLTK {nltk.__version__})")
