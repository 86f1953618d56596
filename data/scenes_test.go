package data

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"unroll/models"
)

// TestSceneCaptions: the grammar's captions (seed 003, image captioning: "a red circle
// left of a blue square") on hand-made images.
func TestSceneCaptions(t *testing.T) {
	for _, c := range []struct{ scene, caption string }{
		{"red circle 1 1", "a red circle at the top left"},
		{"blue square 2 2", "a blue square in the centre"},
		{"green triangle 3 2", "a green triangle at the bottom centre"},
		{"yellow circle 2 3", "a yellow circle at the middle right"},
		{"red circle 1 1, blue square 1 3", "a red circle left of a blue square"},
		{"blue square 1 3, red circle 1 1", "a red circle left of a blue square"}, // the order typed does not matter
		{"blue square 1 3, red circle 3 1", "a red circle left of a blue square"}, // diagonal: the columns decide
		{"blue square 1 1, red circle 3 3", "a blue square left of a red circle"},
		{"green triangle 3 2, yellow circle 1 2", "a yellow circle above a green triangle"},
		{"red circle 2 1, red circle 2 2", "a red circle left of a red circle"},
	} {
		s, err := ParseScene(c.scene)
		if err != nil {
			t.Fatalf("%q: %v", c.scene, err)
		}
		if got := s.CaptionText(); got != c.caption {
			t.Errorf("%q: got %q want %q", c.scene, got, c.caption)
		}
	}
}

// TestSceneCaptionsTrue reads every caption of the world back against its image: the
// named shapes are the image's, a position names the shape's cell, "left of" joins a
// shape in a column left of the other's and "above" one above the other in one column.
// It also checks that every caption fits CaptionMaxLen and the vocabulary, and that
// the text form reads back the same scene.
func TestSceneCaptionsTrue(t *testing.T) {
	all := AllScenes()
	if want := 9*12 + 36*12*12; len(all) != want {
		t.Fatalf("%d images, want %d", len(all), want)
	}
	for _, s := range all {
		w := s.Caption()
		if len(w) > CaptionMaxLen || slices.Contains(CaptionVocab.IDs(w), models.UnkID) {
			t.Fatalf("%v: caption %q is too long or has a word outside the vocabulary", s, w)
		}
		if back, err := ParseScene(s.String()); err != nil || back.String() != s.String() {
			t.Fatalf("%v: read back as %v (%v)", s, back, err)
		}
		name := func(sh SceneShape) string { return sh.Name() }
		switch len(s.Shapes) {
		case 1:
			sh := s.Shapes[0]
			if strings.Join(w[1:3], " ") != name(sh) {
				t.Fatalf("%v: %q names another shape", s, w)
			}
			if w[3] == "in" {
				if sh.Row != 1 || sh.Col != 1 {
					t.Fatalf("%v: %q but the shape is not in the centre", s, w)
				}
			} else if slices.Index(sceneRowWords, w[5]) != sh.Row || slices.Index(sceneColWords, w[6]) != sh.Col {
				t.Fatalf("%v: %q names another cell", s, w)
			}
		case 2:
			rel := w[3]
			first, second := strings.Join(w[1:3], " "), strings.Join(w[len(w)-2:], " ")
			holds := func(a, b SceneShape) bool { // the caption read with a first and b second
				if first != name(a) || second != name(b) {
					return false
				}
				switch rel {
				case "left":
					return a.Col < b.Col
				case "above":
					return a.Col == b.Col && a.Row < b.Row
				}
				return false
			}
			if a, b := s.Shapes[0], s.Shapes[1]; !holds(a, b) && !holds(b, a) {
				t.Fatalf("%v: %q is not true of the image", s, w)
			}
		}
	}
}

// TestSceneRender: a shape lights its own cell only, in its colour, and every image of
// the world renders differently (the captions are a function of the pixels).
func TestSceneRender(t *testing.T) {
	s, _ := ParseScene("yellow triangle 2 3")
	v := s.Render()
	if len(v) != SceneInputSize {
		t.Fatalf("%d values, want %d", len(v), SceneInputSize)
	}
	lit := 0
	for y := range SceneSide {
		for x := range SceneSide {
			p := v[(y*SceneSide+x)*SceneChannels:][:SceneChannels]
			if p[0] == 0 && p[1] == 0 && p[2] == 0 {
				continue
			}
			lit++
			if y/ScenePixels != 1 || x/ScenePixels != 2 || p[0] != 1 || p[1] != 1 || p[2] != 0 {
				t.Fatalf("pixel (%d, %d) = %v outside the shape's cell or not yellow", y, x, p)
			}
		}
	}
	if lit != 17 { // the triangle's mask
		t.Errorf("%d pixels lit, want the triangle's 17", lit)
	}
	seen := map[string]string{}
	for _, s := range AllScenes() {
		var b strings.Builder
		for _, x := range s.Render() {
			b.WriteByte(byte('0' + int(x)))
		}
		if o, dup := seen[b.String()]; dup {
			t.Fatalf("%v renders like %v", s, o)
		}
		seen[b.String()] = s.String()
	}
}

// TestSceneSplit: the held-out fifth is fixed, disjoint from training, about a fifth
// of the world, and DrawScene never draws from it.
func TestSceneSplit(t *testing.T) {
	sp := Scenes()
	n := len(sp.Train) + len(sp.Test)
	if n != len(AllScenes()) {
		t.Fatalf("%d + %d images, want %d", len(sp.Train), len(sp.Test), len(AllScenes()))
	}
	if share := float64(len(sp.Test)) / float64(n); share < 0.18 || share > 0.22 {
		t.Errorf("held-out share %v, want about 1/5", share)
	}
	test := map[string]bool{}
	for _, s := range sp.Test {
		test[s.String()] = true
	}
	for _, s := range sp.Train {
		if test[s.String()] {
			t.Fatalf("%v is in both splits", s)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	ones := 0
	for range 4000 {
		s := DrawScene(rng)
		if test[s.String()] || SceneHeldOut(s) {
			t.Fatalf("DrawScene drew held-out %v", s)
		}
		if len(s.Shapes) == 1 {
			ones++
		}
	}
	if share := float64(ones) / 4000; share < 0.15 || share > 0.3 {
		t.Errorf("single-shape share %v, want about %v (less the held-out ones)", share, sceneOneShare)
	}
	if a, b := DrawScene(rand.New(rand.NewPCG(7, 7))), DrawScene(rand.New(rand.NewPCG(7, 7))); a.String() != b.String() {
		t.Errorf("DrawScene is not deterministic in its seed: %v and %v", a, b)
	}
}

// TestParseSceneRefuses: bad images get a clear message.
func TestParseSceneRefuses(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", "one or two shapes"},
		{" , ", "one or two shapes"},
		{"red circle 1 1, blue square 1 2, green circle 3 3", "at most 2 shapes"},
		{"red circle 1", "colour kind row column"},
		{"pink circle 1 1", "the colours are red, green, blue, yellow"},
		{"red star 1 1", "the shapes are circle, square, triangle"},
		{"red circle 0 1", "from 1 to 3"},
		{"red circle 2 x", "from 1 to 3"},
		{"red circle 1 1, blue square 1 1", "one cell holds one shape"},
	} {
		_, err := ParseScene(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error saying %q", c.text, err, c.want)
		}
	}
	if s, err := ParseScene("  Red Circle 1 1 ,"); err != nil || s.String() != "red circle 1 1" {
		t.Errorf("spaces, case and a trailing comma: got %v, %v", s, err)
	}
}
