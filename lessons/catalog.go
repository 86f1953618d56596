package lessons

import "unroll/zoo"

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
		transformerLesson,
		embeddingsLesson,
		sentimentLesson,
		captioningLesson, // seed 003 has image captioning after sentiment classification
		yoursLesson,
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
// build (zoo.Load), so a server can refuse to start with a broken binary.
func LoadCheckpoints() error { return zoo.Load() }
