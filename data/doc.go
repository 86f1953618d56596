// Package data holds the datasets and tasks the lessons train and run on, each
// with its generator: the English–French corpus and the lexicon and grammar it is
// generated from (corpus.go, lexicon.go), the date-normalisation task (dates.go),
// the checksum, skip and reset sequence tasks (tasks.go), the market series
// (series.go), the fill-in-the-blank sentences (fillblank.go), the embeddings'
// word corpus (words.go), the generated reviews of the sentiment lesson
// (reviews.go), the captioning lesson's images of shapes and their captions
// (scenes.go) and the character-level language model's text (chars.go).
//
// Everything here is deterministic in its seed, so the bundled checkpoints,
// trained on these data by cmd/train, stay valid as long as the generators do not
// change. The package imports only the standard library, gonum and unroll/models
// (for tokenisation and the skip-gram types): no simulation, lesson or web code.
package data
