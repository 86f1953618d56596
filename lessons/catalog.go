package lessons

// Catalog lists the lessons in lecture order. Only lessons whose model really runs
// are listed; adding a section is one file and one line here.
func Catalog() []*Lesson {
	return []*Lesson{
		rnnLesson,
		bpttLesson,
		gruLesson,
		lstmLesson,
		deepLesson,
		birnnLesson,
		mtDataLesson,
		encDecLesson,
		seq2seqLesson,
		beamLesson,
		bleuLesson,
		attentionLesson,
		embeddingsLesson,
	}
}

// Find returns the lesson with the given slug.
func Find(slug string) (*Lesson, bool) {
	for _, l := range Catalog() {
		if l.Slug == slug {
			return l, true
		}
	}
	return nil, false
}

// LoadCheckpoints parses every bundled checkpoint now rather than on the first page
// build (about 0.1 s with the BLEU scores derived from the translators' recorded
// translations), so a server can refuse to start with a broken binary.
func LoadCheckpoints() error {
	for _, load := range []func() error{
		func() error { _, err := checkpoints(); return err },
		func() error { _, err := charCheckpoint(); return err },
		func() error { _, err := archModels(); return err },
		func() error { _, err := seqCheckpoints(); return err },
		func() error { _, err := deepCheckpoints(); return err },
		func() error { _, err := blankCheckpoints(); return err },
		func() error { _, err := translatorCheckpoints(); return err },
		func() error { _, err := embedCheckpoint(); return err },
		func() error { _, err := recordedTranslations(); return err },
		func() error { _, err := attentionLengthScores(); return err },
		func() error { _, err := bleuCorpus(); return err },
	} {
		if err := load(); err != nil {
			return err
		}
	}
	return nil
}
