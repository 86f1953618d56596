package lessons

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
	"unroll/sim"
)

// Every lesson's model is a sim.Forker: a student's "Explore on my own" copies the
// class's run, trained weights included, and changes it on their own. A copy shares
// nothing the training writes with the original (its own weights, the optimiser's
// state, the training stream, the loss curve, the caches its frames are computed from
// and any meta it updates in place); what every page reads and nobody writes (the
// bundled checkpoints a page has not started training, datasets, vocabularies, and
// what a model computed when it was built) stays shared. fork_test.go checks, for
// every lesson, that a copy trains on exactly as the original does and that training
// either changes nothing of the other.

// forkLabelled is a copy of m seen through the fact table ft, as Lesson.Model made it.
func forkLabelled(m sim.Model, ft factTable) (sim.Model, error) {
	f, ok := m.(sim.Forker)
	if !ok {
		return nil, fmt.Errorf("lessons: a %T cannot be copied", m)
	}
	c, err := f.Fork()
	if err != nil {
		return nil, err
	}
	return labelled(c, ft), nil
}

// fork is a copy of the training stream at its position and of the loss curve.
func (s scratch) fork() scratch {
	out := scratch{trained: s.trained, lossCurve: slices.Clone(s.lossCurve)}
	if s.trainSrc != nil {
		out.trainSrc = models.CopyPCG(s.trainSrc)
		out.trainRng = rand.New(out.trainSrc)
	}
	return out
}

// ownsWeights reports whether training has given the page weights of its own (the
// first TrainStep replaces the shared bundled ones).
func (s scratch) ownsWeights() bool { return s.trainRng != nil }

// Fork copies the language model once it trains its own; the steps it wrote are
// computed again from the copy (run).
func (m *rnnModel) Fork() (sim.Model, error) {
	c := *m
	c.scratch = m.scratch.fork()
	if m.ownsWeights() {
		c.lm = m.lm.Clone()
	}
	c.steps, c.gen, c.stepsB, c.stepsC = nil, nil, nil, nil
	return &c, nil
}

// Fork copies the classifier once it trains its own.
func (m *gruModel) Fork() (sim.Model, error) {
	c := *m
	c.scratch = m.scratch.fork()
	if m.ownsWeights() {
		c.clf = m.clf.Clone()
	}
	c.steps = nil
	return &c, nil
}

// Fork copies the LSTM once it trains its own; the GRU and the RNN beside it are
// the bundled ones, never trained here, and their runs were computed at build.
func (m *lstmModel) Fork() (sim.Model, error) {
	c := *m
	c.scratch = m.scratch.fork()
	if m.ownsWeights() {
		c.lstm = m.lstm.Clone()
	}
	c.steps, c.grads, c.gradFor = nil, nil, ""
	return &c, nil
}

// Fork copies the stack once it trains its own.
func (m *deepModel) Fork() (sim.Model, error) {
	c := *m
	c.scratch = m.scratch.fork()
	if m.ownsWeights() {
		c.net = m.net.Clone()
	}
	c.run, c.scores = nil, nil
	return &c, nil
}

// Fork copies both models once they train their own.
func (m *birnnModel) Fork() (sim.Model, error) {
	c := *m
	c.scratch = m.scratch.fork()
	if m.ownsWeights() {
		c.uni, c.bi = m.uni.Clone(), m.bi.Clone()
	}
	c.runs = nil
	return &c, nil
}

// Fork copies the skip-gram model once it trains its own, and the static frame,
// which training updates in place: its meta, and the map's points (the next map is
// aligned with them).
func (e *embedModel) Fork() (sim.Model, error) {
	c := *e
	c.scratch = e.scratch.fork()
	if e.ownsWeights() {
		c.m = e.m.Clone()
	}
	if e.gl != nil {
		c.gl = e.gl.Clone()
		c.glove = mat.DenseCopyOf(e.glove)
	}
	c.points = slices.Clone(e.points)
	// the arrays after the points (GloVe's co-occurrence grid) are shared read-only
	arrays := append([]sim.Array{sim.Matrix("points", len(e.points)/2, 2, c.points)}, e.static.Arrays[1:]...)
	c.static = sim.Frame{Arrays: arrays, Meta: maps.Clone(e.static.Meta)}
	return &c, nil
}

// Fork copies the translator and its optimiser once the page trains its own, the
// training stream, the curves, and the static meta that training updates in place.
// The traces of untrained weights were computed at build and are shared (an untrained
// page keeps no weights to compute them again).
func (m *seq2seqModel) Fork() (sim.Model, error) {
	c := *m
	c.static = maps.Clone(m.static)
	c.lossCurve = slices.Clone(m.lossCurve)
	c.bleuCurve = slices.Clone(m.bleuCurve)
	if m.opt != nil {
		cp := models.NewCopier()
		c.tr, c.opt = m.tr.Clone(cp), cp.Adam(m.opt)
		c.rngSrc = models.CopyPCG(m.rngSrc)
		c.rng = rand.New(c.rngSrc)
		c.tf, c.fr = nil, nil
	}
	return &c, nil
}

// The models of the lessons that do not train compute everything at build and only
// read it afterwards: a copy may share it all.

// Fork is a copy that shares everything: nothing changes after the build.
func (m *bpttModel) Fork() (sim.Model, error) { c := *m; return &c, nil }

// Fork is a copy that shares everything: nothing changes after the build.
func (m *mtDataModel) Fork() (sim.Model, error) { c := *m; return &c, nil }

// Fork is a copy that shares everything: nothing changes after the build.
func (m *encDecModel) Fork() (sim.Model, error) { c := *m; return &c, nil }

// Fork is a copy that shares everything: nothing changes after the build.
func (m *beamModel) Fork() (sim.Model, error) { c := *m; return &c, nil }

// Fork is a copy that shares everything: nothing changes after the build.
func (m *bleuSentence) Fork() (sim.Model, error) { c := *m; return &c, nil }

// Fork is a copy that shares everything: nothing changes after the build.
func (m *attentionModel) Fork() (sim.Model, error) { c := *m; return &c, nil }
