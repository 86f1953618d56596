package web

import (
	"os"
	"slices"

	"unroll/lessons"
)

// The browser tests that walk the catalog (the contract, the tables and the keyboard,
// the layout, the phones, presenter mode, the network budget, every lesson live) load
// each of its pages, and a page load costs Chromium about 3 s of CPU: walking all 17
// lessons in every one of them is most of CI's time. Under UNROLL_BROWSER_WALK=cover
// (.ci/run, on every push) they walk coverLessons instead: the fewest lessons that
// between them show every kind of panel, parameter and control, so every kind of check
// still meets every kind of thing it checks. Unset (go test ./..., and the nightly run,
// .ci/nightly) they walk every lesson.
const walkEnv = "UNROLL_BROWSER_WALK"

// walkedLessons is the lessons a catalog-walking browser test visits, in the catalog's
// order.
func walkedLessons() []*lessons.Lesson {
	all := lessons.Catalog()
	if os.Getenv(walkEnv) != "cover" {
		return all
	}
	return coverLessons(all)
}

// walked reports whether a catalog-walking browser test visits the lesson slug.
func walked(slug string) bool {
	return slices.ContainsFunc(walkedLessons(), func(l *lessons.Lesson) bool { return l.Slug == slug })
}

// lessonFeatures is what a lesson's page shows that a walk checks: each panel's kind
// (a drawing module), each parameter's kind (a control), the training control, and
// panels a model may lack.
func lessonFeatures(l *lessons.Lesson) []string {
	var fs []string
	for _, p := range l.Panels {
		fs = append(fs, "panel "+string(p.Kind))
	}
	for _, s := range l.Params {
		fs = append(fs, "param "+string(s.Kind))
	}
	if l.Trains {
		fs = append(fs, "trains")
	}
	if slices.ContainsFunc(l.Panels, func(p lessons.Panel) bool { return p.Optional }) {
		fs = append(fs, "optional panels") // the yours page: panels a model may not have
	}
	return fs
}

// coverLessons picks from all, greedily, the lesson that shows the most features not yet
// shown (the first in the catalog on a tie) until every feature is shown, and returns
// the picks in the catalog's order.
func coverLessons(all []*lessons.Lesson) []*lessons.Lesson {
	left := map[string]bool{}
	for _, l := range all {
		for _, f := range lessonFeatures(l) {
			left[f] = true
		}
	}
	picked := map[*lessons.Lesson]bool{}
	for len(left) > 0 {
		var best *lessons.Lesson
		bestNew := 0
		for _, l := range all {
			n := 0
			seen := map[string]bool{}
			for _, f := range lessonFeatures(l) {
				if left[f] && !seen[f] {
					seen[f] = true
					n++
				}
			}
			if n > bestNew {
				best, bestNew = l, n
			}
		}
		picked[best] = true
		for _, f := range lessonFeatures(best) {
			delete(left, f)
		}
	}
	var out []*lessons.Lesson
	for _, l := range all {
		if picked[l] {
			out = append(out, l)
		}
	}
	return out
}
