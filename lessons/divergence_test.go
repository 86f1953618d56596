package lessons

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"unroll/sim"
)

// Issue 10 measures how far training replay (a URL's trained=N) drifts between two
// kinds of machine: TestTrainingDivergenceDump trains each of divergenceLessons
// divergenceSteps steps from its defaults, the way a page does (UNROLL_DIVERGENCE_STEPS=n
// for n steps instead, at most the lesson's MaxTrained; UNROLL_DIVERGENCE_SET=
// "seq2seq:start=scratch,gru:seed=2" to change parameters), and writes the weights,
// the last loss and every number of the page's snapshot to a file;
// TestTrainingDivergenceCompare reads two such files and reports the largest
// differences. Both skip unless asked. Reproduce (docs/measurements.md):
//
//	UNROLL_DIVERGENCE_OUT=$d/amd64.json go test ./lessons -run TestTrainingDivergenceDump -v
//	GOARCH=arm64 go test -c -o $d/lessons.test ./lessons
//	(cd lessons && UNROLL_DIVERGENCE_OUT=$d/arm64.json qemu-aarch64 $d/lessons.test -test.run TestTrainingDivergenceDump -test.v)
//	UNROLL_DIVERGENCE_COMPARE=$d/amd64.json,$d/arm64.json go test ./lessons -run TestTrainingDivergenceCompare -v
const (
	divergenceOutEnv     = "UNROLL_DIVERGENCE_OUT"
	divergenceCompareEnv = "UNROLL_DIVERGENCE_COMPARE"
	divergenceStepsEnv   = "UNROLL_DIVERGENCE_STEPS"
	divergenceSetEnv     = "UNROLL_DIVERGENCE_SET"
	divergenceSteps      = 300 // the measure: 300 training steps
)

// divergenceLessons are the lessons the issue names: one trains a translator on,
// one a GRU classifier from scratch.
var divergenceLessons = []string{"seq2seq", "gru"}

// divergenceDump is one machine's run of each lesson.
type divergenceDump struct {
	GOARCH  string                    `json:"goarch"`
	Lessons map[string]*divergenceRun `json:"lessons"`
}

// divergenceRun is what one lesson's run holds after divergenceSteps steps.
type divergenceRun struct {
	Steps   int                  `json:"steps"`
	Loss    float64              `json:"loss"`    // the last step's training loss, full precision
	Weights map[string][]float64 `json:"weights"` // every parameter, row-major, by name
	Arrays  map[string][]float64 `json:"arrays"`  // the snapshot's arrays as the page decodes them (float32)
	Numbers map[string]float64   `json:"numbers"` // every number of the snapshot's meta and static meta, by path
	Strings map[string]string    `json:"strings"` // every string of the same (translations, formatted numbers)
}

func TestTrainingDivergenceDump(t *testing.T) {
	out := os.Getenv(divergenceOutEnv)
	if out == "" {
		t.Skipf("set %s=<file> to train %v %d steps and write what they hold (issue 10)", divergenceOutEnv, divergenceLessons, divergenceSteps)
	}
	steps := divergenceSteps
	if s := os.Getenv(divergenceStepsEnv); s != "" {
		var err error
		if steps, err = strconv.Atoi(s); err != nil || steps < 1 {
			t.Fatalf("%s=%q: want a number of steps", divergenceStepsEnv, s)
		}
	}
	changes := map[string]map[string]string{} // by lesson
	if s := os.Getenv(divergenceSetEnv); s != "" {
		for _, c := range strings.Split(s, ",") {
			slug, nv, ok1 := strings.Cut(c, ":")
			name, value, ok2 := strings.Cut(nv, "=")
			if !ok1 || !ok2 {
				t.Fatalf("%s: %q is not lesson:name=value", divergenceSetEnv, c)
			}
			if changes[slug] == nil {
				changes[slug] = map[string]string{}
			}
			changes[slug][name] = value
		}
	}
	d := divergenceDump{GOARCH: runtime.GOARCH, Lessons: map[string]*divergenceRun{}}
	for _, slug := range divergenceLessons {
		l, ok := Find(slug)
		if !ok {
			t.Fatalf("no lesson %q", slug)
		}
		v, err := l.Params.Apply(l.Params.Defaults(), changes[slug])
		if err != nil {
			t.Fatal(err)
		}
		r, err := sim.NewRun(l.Params, l.Model, v)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Apply(sim.Command{Type: sim.TrainCommand, Steps: min(steps, l.MaxTrained)}); err != nil {
			t.Fatal(err)
		}
		for r.Training() {
			r.Continue()
		}
		// The snapshot at the last step holds the static frame and every step's frame.
		if _, err := r.Apply(sim.Command{Type: sim.SeekCommand, Step: r.Steps()}); err != nil {
			t.Fatal(err)
		}
		snap, err := r.Apply(sim.Command{Type: sim.ResumeCommand})
		if err != nil {
			t.Fatal(err)
		}
		msg, err := sim.DecodeMessage(snap[len(snap)-1].Data)
		if err != nil {
			t.Fatal(err)
		}
		run := &divergenceRun{Steps: r.Trained(), Weights: map[string][]float64{}, Arrays: map[string][]float64{}, Numbers: map[string]float64{}, Strings: map[string]string{}}
		switch m := unlabelled(r.Model()).(type) {
		case *seq2seqModel:
			run.Loss = m.lossCurve[len(m.lossCurve)-1]
			for _, p := range m.tr.Params() {
				run.Weights[p.Name] = slices.Clone(p.Value.RawMatrix().Data)
			}
		case *gruModel:
			run.Loss = m.lossCurve[len(m.lossCurve)-1]
			for _, p := range m.clf.Params() {
				run.Weights[p.Name] = slices.Clone(p.Value.RawMatrix().Data)
			}
		default:
			t.Fatalf("%s: no way to reach the weights of a %T", slug, m)
		}
		for _, a := range msg.Arrays {
			run.Arrays[a.Name] = a.Data
		}
		walkJSON("meta", msg.Header.Meta, run.Numbers, run.Strings)
		walkJSON("static", msg.Header.Static, run.Numbers, run.Strings)
		d.Lessons[slug] = run
		t.Logf("%s: loss %v after %d steps; %d parameters, %d arrays, %d numbers and %d strings in the snapshot",
			slug, run.Loss, r.Trained(), len(run.Weights), len(run.Arrays), len(run.Numbers), len(run.Strings))
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// walkJSON collects every number and string of a decoded JSON value by its path.
func walkJSON(path string, v any, nums map[string]float64, strs map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			walkJSON(path+"."+k, e, nums, strs)
		}
	case []any:
		for i, e := range v {
			walkJSON(fmt.Sprintf("%s[%d]", path, i), e, nums, strs)
		}
	case float64:
		nums[path] = v
	case string:
		strs[path] = v
	}
}

// divergence is the largest difference between two lists of values: absolute, and
// relative to the larger magnitude of the pair (pairs of zeros skipped).
type divergence struct {
	abs, rel float64
	largest  float64 // the largest magnitude of any value, for scale
	differ   int     // values not bit-identical
	total    int
}

func (d *divergence) add(a, b float64) {
	d.total++
	d.largest = max(d.largest, math.Abs(a), math.Abs(b))
	if a == b || (math.IsNaN(a) && math.IsNaN(b)) {
		return
	}
	d.differ++
	diff := math.Abs(a - b)
	d.abs = max(d.abs, diff)
	if m := max(math.Abs(a), math.Abs(b)); m > 0 {
		d.rel = max(d.rel, diff/m)
	}
}

func (d divergence) String() string {
	return fmt.Sprintf("%.1e | %.1e | %d of %d (largest |value| %.2g)", d.abs, d.rel, d.differ, d.total, d.largest)
}

func readDivergence(t *testing.T, path string) divergenceDump {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d divergenceDump
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return d
}

// compareLists adds every pair of values of a and b under the same name to d, and
// reports names that only one side has.
func compareLists(t *testing.T, what string, a, b map[string][]float64, d *divergence) {
	t.Helper()
	for name, va := range a {
		vb, ok := b[name]
		if !ok || len(va) != len(vb) {
			t.Errorf("%s %q: %d values on one side, %d on the other", what, name, len(va), len(vb))
			continue
		}
		for i := range va {
			d.add(va[i], vb[i])
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			t.Errorf("%s %q: only on the second side", what, name)
		}
	}
}

func TestTrainingDivergenceCompare(t *testing.T) {
	files := strings.Split(os.Getenv(divergenceCompareEnv), ",")
	if len(files) != 2 {
		t.Skipf("set %s=<a.json>,<b.json> to compare two TestTrainingDivergenceDump files", divergenceCompareEnv)
	}
	a, b := readDivergence(t, files[0]), readDivergence(t, files[1])
	t.Logf("%s against %s: largest absolute | largest relative difference | values that differ", a.GOARCH, b.GOARCH)
	for _, slug := range divergenceLessons {
		ra, rb := a.Lessons[slug], b.Lessons[slug]
		if ra == nil || rb == nil {
			t.Errorf("%s: missing from one file", slug)
			continue
		}
		if ra.Steps != rb.Steps {
			t.Errorf("%s: trained %d steps in one file, %d in the other", slug, ra.Steps, rb.Steps)
		}
		var loss, weights, arrays, numbers divergence
		loss.add(ra.Loss, rb.Loss)
		compareLists(t, "parameter", ra.Weights, rb.Weights, &weights)
		compareLists(t, "array", ra.Arrays, rb.Arrays, &arrays)
		na, nb := map[string][]float64{}, map[string][]float64{}
		for k, v := range ra.Numbers {
			na[k] = []float64{v}
		}
		for k, v := range rb.Numbers {
			nb[k] = []float64{v}
		}
		compareLists(t, "number", na, nb, &numbers)
		strDiffer := 0
		for k, v := range ra.Strings {
			if rb.Strings[k] != v {
				strDiffer++
				t.Logf("%s: %s is %q on %s, %q on %s", slug, k, v, a.GOARCH, rb.Strings[k], b.GOARCH)
			}
		}
		t.Logf("%s after %d steps: loss %v against %v (%s)", slug, ra.Steps, ra.Loss, rb.Loss, loss)
		t.Logf("%s: weights %s", slug, weights)
		t.Logf("%s: page arrays (float32) %s", slug, arrays)
		t.Logf("%s: page numbers (meta) %s", slug, numbers)
		t.Logf("%s: page strings: %d of %d differ", slug, strDiffer, len(ra.Strings))
	}
}
