package web

import (
	"net/url"
	"slices"
	"strconv"
	"testing"

	"unroll/data"
)

// TestModelSafetensorsCaptioningApproaches: each of the three captioners the page
// writes with side by side downloads as model=approach-k, whichever approach the page
// shows in detail. Its tensors put back into a models.Captioner (captionFromFile) write
// the caption to the word the page lists for approach k at its step, and to the x,
// h⁽ᵗ⁾ and ŷ⁽ᵗ⁾ the page shows when it shows approach k; the file is that page's own
// main download.
func TestModelSafetensorsCaptioningApproaches(t *testing.T) {
	_, ts := newCatalogServer(t)
	for _, c := range []struct {
		query string
		k     int
	}{
		{"approach=1&model=approach-2&step=3", 2}, // 1 writes "triangle" here, 2 "circle"
		{"approach=2&model=approach-1&image=green+square+2+2&step=3", 1},
		{"approach=3&model=approach-3", 3}, // the one shown: the last step
	} {
		t.Run(c.query, func(t *testing.T) {
			// no bench files: the file is a main download's (below), which captioning-1 … 3 run
			tensors, meta := checkPyTorchProgram(t, ts, "captioning", c.query, "")
			k := strconv.Itoa(c.k)
			if meta["model"] != "approach-"+k || meta["approach"] != k {
				t.Fatalf("model %q, approach %q, want approach-%s", meta["model"], meta["approach"], k)
			}
			tr := captionFromFile(t, tensors, meta)
			step := mustAtoi(t, meta["step"])
			st := tr.Steps[step-1]
			if got, want := data.CaptionVocab.Token(st.Output), pageBuild(t, "captioning", c.query).At(step).Meta["output_"+k]; got != want {
				t.Errorf("approach %s writes %q at step %d from the file, %q on the page", k, got, step, want)
			}
			q, _ := url.ParseQuery(c.query) // the page that shows approach k
			q.Set("approach", k)
			q.Del("model")
			shown := pageBuild(t, "captioning", q.Encode()).At(step)
			want := slices.Concat(frameArray(t, shown, "x"), frameArray(t, shown, "h"), frameArray(t, shown, "P"))
			closeTo(t, "approach "+k+"'s x, h, ŷ", slices.Concat(tr.X, st.Decoder.Next.H.RawRowView(0), st.Probs), want)
			own := pageProgram(t, "captioning", q.Encode(), step)
			if f := pageProgram(t, "captioning", c.query, step); !slices.Equal(f.H, own.H) || len(f.Tensors) != len(own.Tensors) {
				t.Errorf("the file is not the main download of the page that shows approach %s", k)
			}
		})
	}
}
