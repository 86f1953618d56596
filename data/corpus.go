package data

import (
	"math/rand/v2"
	"strings"
	"sync"

	"unroll/models"
)

// Pair is one sentence pair of a translation task: En is the source sentence and
// Fr its target, both tokenised as the lecture's machine-translation dataset
// (lowercase, a space before each punctuation mark, words separated by one space),
// so models.Tokenize splits them into tokens. The date task (dates.go) reuses Pair
// with the surface date in En and the ISO date in Fr.
type Pair struct {
	En string `json:"en"`
	Fr string `json:"fr"`
}

// Tokens splits both sides into word tokens (models.Tokenize).
func (p Pair) Tokens() (src, tgt []string) {
	return models.Tokenize(p.En), models.Tokenize(p.Fr)
}

// The shipped corpus.
const (
	corpusSeed = 2014 // the year of Sutskever et al. and Cho et al.
	corpusSize = 4000 // enough distinct pairs to generalise, small enough to train in seconds
	// corpusTestEvery: the last corpusSize/corpusTestEvery generated pairs are the
	// held-out candidates (a 90/10 split).
	corpusTestEvery = 10
)

// MaxSentenceTokens bounds both sides of every pair, punctuation included.
const MaxSentenceTokens = 10

// lectureExamples are the lectures' own translation pairs (lecture 004 and 4.6 in
// lecture 8, after d2l's English–French data). They open every generated corpus and
// are always in the training split.
func lectureExamples() []Pair {
	return []Pair{
		{"they are watching .", "ils regardent ."},
		{"go .", "va !"},
		{"i lost .", "j'ai perdu ."},
		{"he's calm .", "il est calme ."},
		{"i'm home .", "je suis chez moi ."},
	}
}

// mtSetPhrases are hand-written fixed expressions (greetings, imperatives, the
// weather), always in the training split: they share no structure with the grammar,
// so a model can only learn them by heart.
var mtSetPhrases = []Pair{
	{"hi .", "salut !"},
	{"hello .", "bonjour ."},
	{"run !", "cours !"},
	{"who ?", "qui ?"},
	{"wow !", "ça alors !"},
	{"help !", "à l'aide !"},
	{"stop !", "arrête !"},
	{"wait !", "attends !"},
	{"thank you .", "merci ."},
	{"good night .", "bonne nuit ."},
	{"see you soon .", "à bientôt ."},
	{"good luck .", "bonne chance ."},
	{"i know .", "je sais ."},
	{"of course .", "bien sûr ."},
	{"no way !", "pas question !"},
	{"let's go !", "allons-y !"},
	{"cheers !", "santé !"},
	{"excuse me .", "excusez-moi ."},
	{"i agree .", "je suis d'accord ."},
	{"it's late .", "il est tard ."},
	{"it's cold .", "il fait froid ."},
	{"it's hot .", "il fait chaud ."},
	{"it's raining .", "il pleut ."},
}

// generateCorpus returns n distinct English–French pairs (distinct English sides,
// each with exactly one French translation), deterministic in seed: first
// lectureExamples, then mtSetPhrases, then sentences drawn from the grammar
// (mtFamilies) with a PCG generator seeded by seed. Every sentence is already in
// the form models.NormalizeMT gives (the tests check it). It returns fewer than n
// pairs only if the grammar cannot produce n distinct sentences.
func generateCorpus(seed uint64, n int) []Pair {
	fixed := append(lectureExamples(), mtSetPhrases...)
	out := make([]Pair, 0, n)
	seen := map[string]bool{}
	add := func(p Pair) {
		if len(out) < n && !seen[p.En] {
			seen[p.En] = true
			out = append(out, p)
		}
	}
	for _, p := range fixed {
		add(p)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5e9))
	total := 0
	for _, f := range mtFamilies {
		total += f.weight
	}
	for tries := 0; len(out) < n && tries < 50*n; tries++ {
		k := rng.IntN(total)
		for _, f := range mtFamilies {
			if k -= f.weight; k < 0 {
				en, fr := f.make(rng)
				if !strings.HasSuffix(en, "?") {
					en, fr = en+" .", fr+" ."
				}
				add(Pair{En: strings.Join(strings.Fields(en), " "), Fr: elide(fr)})
				break
			}
		}
	}
	return out
}

type mtCorpus struct{ train, test []Pair }

var shippedCorpus = sync.OnceValue(func() mtCorpus {
	var c mtCorpus
	c.train, c.test = splitCorpus(generateCorpus(corpusSeed, corpusSize))
	return c
})

// Corpus is the shipped corpus, generateCorpus(corpusSeed, corpusSize) split by
// splitCorpus, built once. Callers must not modify the returned slices.
func Corpus() (train, test []Pair) {
	c := shippedCorpus()
	return c.train, c.test
}

// splitCorpus splits a generated corpus into a training and a held-out test set.
// The test candidates are the last len(pairs)/corpusTestEvery pairs (random
// sentences, since the generator draws them at random; the fixed pairs come first
// and so are always in train). A candidate with an English or French token that
// occurs nowhere in the training pairs moves to train, so every test token has been
// seen in training; the test set is therefore a little under 10%.
func splitCorpus(pairs []Pair) (train, test []Pair) {
	cut := len(pairs) - len(pairs)/corpusTestEvery
	train = append([]Pair(nil), pairs[:cut]...)
	seen := map[string]bool{}
	for _, p := range train {
		src, tgt := p.Tokens()
		for _, w := range src {
			seen["en:"+w] = true
		}
		for _, w := range tgt {
			seen["fr:"+w] = true
		}
	}
	for _, p := range pairs[cut:] {
		src, tgt := p.Tokens()
		known := true
		for _, w := range src {
			known = known && seen["en:"+w]
		}
		for _, w := range tgt {
			known = known && seen["fr:"+w]
		}
		if known {
			test = append(test, p)
		} else {
			train = append(train, p)
		}
	}
	return train, test
}

// mtFamily is one sentence pattern of the grammar with its share of the corpus.
type mtFamily struct {
	name   string
	weight int // relative frequency in the generated corpus
	make   func(rng *rand.Rand) (en, fr string)
}

// mtFamilies are the sentence patterns. Each make returns an English and a French
// sentence without the final punctuation (questions add their own "?" and the
// generator adds " ." otherwise) and before elision.
var mtFamilies = []mtFamily{
	{"be-adjective", 24, mtBeAdjective},
	{"be-home", 3, mtBeHome},
	{"avoir-expression", 7, mtAvoirExpression},
	{"intransitive", 12, mtIntransitive},
	{"transitive", 22, mtTransitive},
	{"modal", 10, mtModal},
	{"passe-compose", 12, mtPasseCompose},
	{"aller", 7, mtAller},
	{"have", 4, mtHave},
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// mtAnySubject draws a subject: a pronoun half the time, else a noun phrase.
func mtAnySubject(rng *rand.Rand) mtSubject {
	if rng.IntN(2) == 0 {
		return pick(rng, mtPronouns)
	}
	return pick(rng, mtNounSubjects)
}

// The three moods every family draws from.
const (
	moodAffirm = iota
	moodNegate
	moodAsk
)

func mtMood(rng *rand.Rand) int {
	switch k := rng.IntN(10); {
	case k < 6:
		return moodAffirm
	case k < 8:
		return moodNegate
	default:
		return moodAsk
	}
}

// third reports whether the English verb takes -s (he, she, a singular noun).
func (s mtSubject) third() bool { return s.slot == slotIl }

// enBe is the subject and its form of "be", contracted when asked and possible:
// "i am" / "i'm", "the boy is".
func (s mtSubject) enBe(contract bool) string {
	if contract {
		switch s.en {
		case "i":
			return "i'm"
		case "you", "he", "she", "we", "they":
			return s.en + map[bool]string{true: "'s", false: "'re"}[s.third()]
		}
	}
	return s.en + " " + s.beForm()
}

func (s mtSubject) beForm() string {
	switch {
	case s.en == "i":
		return "am"
	case s.third():
		return "is"
	}
	return "are"
}

// enBeNot is the negated "be": "i am not", "i'm not", "he isn't", "they aren't".
func (s mtSubject) enBeNot(contract bool) string {
	if !contract {
		return s.en + " " + s.beForm() + " not"
	}
	if s.en == "i" {
		return "i'm not"
	}
	return s.en + " " + s.beForm() + "n't"
}

// enBeAsk is the inverted "be" of a question: "am i", "is the boy".
func (s mtSubject) enBeAsk() string { return s.beForm() + " " + s.en }

// enDo is "do"/"does" for questions and negation.
func (s mtSubject) enDo() string {
	if s.third() {
		return "does"
	}
	return "do"
}

// frNeg wraps a French verb in ne … pas: "je ne suis pas", before elision.
func (s mtSubject) frNeg(verb string) string { return s.fr + " ne " + verb + " pas" }

// mtBe builds "S be X" in the three moods, where frX is the French complement of
// être or avoir (aux is the auxiliary's present form for the subject).
func mtBe(rng *rand.Rand, s mtSubject, enX, aux, frX string) (en, fr string) {
	contract := rng.IntN(2) == 0
	switch mtMood(rng) {
	case moodNegate:
		return s.enBeNot(contract) + " " + enX, s.frNeg(aux) + " " + frX
	case moodAsk:
		return s.enBeAsk() + " " + enX + " ?", "est-ce que " + s.fr + " " + aux + " " + frX + " ?"
	}
	return s.enBe(contract) + " " + enX, s.fr + " " + aux + " " + frX
}

// mtBeAdjective: "he's calm ." → "il est calme .", "the girls aren't happy ." → "les
// filles ne sont pas contentes .", "is she ready ?" → "est-ce qu'elle est prête ?".
func mtBeAdjective(rng *rand.Rand) (en, fr string) {
	s, a := mtAnySubject(rng), pick(rng, mtAdjectives)
	return mtBe(rng, s, a.en, frEtre.pres[s.slot], a.agree(s))
}

// mtBeHome: "i'm home ." → "je suis chez moi .", "the boys are home ." → "les garçons
// sont chez eux .".
func mtBeHome(rng *rand.Rand) (en, fr string) {
	s := mtAnySubject(rng)
	return mtBe(rng, s, "home", frEtre.pres[s.slot], "chez "+s.tonic)
}

// mtAvoirExpression: "i'm hungry ." → "j'ai faim .".
func mtAvoirExpression(rng *rand.Rand) (en, fr string) {
	s, x := mtAnySubject(rng), pick(rng, mtAvoirNouns)
	return mtBe(rng, s, x[0], frAvoir.pres[s.slot], x[1])
}

// mtIntransitive: "they are watching ." → "ils regardent .", "he isn't sleeping ." →
// "il ne dort pas .", "are you working ?" → "est-ce que tu travailles ?".
func mtIntransitive(rng *rand.Rand) (en, fr string) {
	s := mtAnySubject(rng)
	v := pick(rng, mtIntransVerbs)
	return mtBe(rng, s, v.en[2], v.pres[s.slot], "")
}

// mtObject is a direct object in English and French, with the French form after
// ne … pas (un/une and the partitive become de: "je ne bois pas de lait").
type mtObject struct{ en, fr, frNeg string }

// frDefinite is le/la + noun (l' comes from elision).
func frDefinite(n mtNoun) string {
	if n.fem {
		return "la " + n.fr
	}
	return "le " + n.fr
}

// frPartitive is du/de la + noun (de l' from elision of "de le"/"de la").
func frPartitive(n mtNoun) string {
	switch {
	case startsWithVowel(n.fr):
		return "de " + frDefinite(n)
	case n.fem:
		return "de la " + n.fr
	}
	return "du " + n.fr
}

// enIndefinite is a/an + noun.
func enIndefinite(w string) string {
	if strings.ContainsRune("aeiou", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}

// mtObjectOf draws one of the noun's article forms as the object of v.
func mtObjectOf(rng *rand.Rand, v mtVerb, n mtNoun) mtObject {
	switch {
	case n.bare:
		return mtObject{n.en, n.fr, n.fr}
	case n.mass && rng.IntN(2) == 0:
		return mtObject{"the " + n.en, frDefinite(n), frDefinite(n)}
	case n.mass && v.generic:
		return mtObject{n.en, frDefinite(n), frDefinite(n)}
	case n.mass:
		return mtObject{n.en, frPartitive(n), "de " + n.fr}
	}
	k := rng.IntN(3)
	if n.enPl == "" {
		k = rng.IntN(2) * 2 // no plural: definite or indefinite singular
	}
	switch {
	case k == 0:
		return mtObject{"the " + n.en, frDefinite(n), frDefinite(n)}
	case k == 1 && v.generic:
		return mtObject{n.enPl, "les " + n.frPl, "les " + n.frPl}
	case k == 1:
		return mtObject{"the " + n.enPl, "les " + n.frPl, "les " + n.frPl}
	case v.generic:
		return mtObject{"the " + n.en, frDefinite(n), frDefinite(n)}
	}
	art := "un "
	if n.fem {
		art = "une "
	}
	return mtObject{enIndefinite(n.en), art + n.fr, "de " + n.fr}
}

// The verbs each family draws from.
var (
	mtIntransVerbs    = mtFilter(func(v mtVerb) bool { return v.intrans })
	mtTransitiveVerbs = mtFilter(func(v mtVerb) bool { return len(v.objects) > 0 })
	mtModalVerbs      = mtFilter(func(v mtVerb) bool { return v.modal })
	mtPastVerbs       = mtFilter(func(v mtVerb) bool { return v.past })
)

func mtFilter(keep func(mtVerb) bool) []mtVerb {
	var out []mtVerb
	for _, v := range mtVerbs {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

func withPrep(v mtVerb, obj string) string {
	if v.prep != "" {
		return v.prep + " " + obj
	}
	return obj
}

// mtTransitive: "she eats an apple ." / "she is eating an apple ." → "elle mange une
// pomme .", "we don't drink milk ." → "nous ne buvons pas de lait .", "do you like
// tea ?" → "est-ce que tu aimes le thé ?".
func mtTransitive(rng *rand.Rand) (en, fr string) {
	s := mtAnySubject(rng)
	v := pick(rng, mtTransitiveVerbs)
	o := mtObjectOf(rng, v, nounByEn(pick(rng, v.objects)))
	obj := withPrep(v, o.en)
	switch mtMood(rng) {
	case moodNegate:
		return s.en + " " + s.enDo() + "n't " + v.en[0] + " " + obj, s.frNeg(v.pres[s.slot]) + " " + o.frNeg
	case moodAsk:
		return s.enDo() + " " + s.en + " " + v.en[0] + " " + obj + " ?", "est-ce que " + s.fr + " " + v.pres[s.slot] + " " + o.fr + " ?"
	}
	if !v.stative && rng.IntN(2) == 0 {
		return s.enBe(rng.IntN(2) == 0) + " " + v.en[2] + " " + obj, s.fr + " " + v.pres[s.slot] + " " + o.fr
	}
	form := v.en[0]
	if s.third() {
		form = v.en[1]
	}
	return s.en + " " + form + " " + obj, s.fr + " " + v.pres[s.slot] + " " + o.fr
}

// mtModal: "i want to sleep ." → "je veux dormir .", "she can't swim ." → "elle ne
// peut pas nager .", "can you all read the letter ?" → "est-ce que vous pouvez lire la
// lettre ?".
func mtModal(rng *rand.Rand) (en, fr string) {
	s := mtAnySubject(rng)
	v := pick(rng, mtModalVerbs)
	enInf, frInf := v.en[0], v.inf
	if len(v.objects) > 0 && rng.IntN(2) == 0 {
		o := mtObjectOf(rng, v, nounByEn(pick(rng, v.objects)))
		if !strings.HasPrefix(o.fr, "un") && !strings.HasPrefix(o.fr, "d") { // definite objects only: no pas de
			enInf, frInf = enInf+" "+withPrep(v, o.en), frInf+" "+o.fr
		}
	}
	mood := mtMood(rng)
	if rng.IntN(2) == 0 { // can
		aux := frPouvoir.pres[s.slot]
		switch mood {
		case moodNegate:
			return s.en + " can't " + enInf, s.frNeg(aux) + " " + frInf
		case moodAsk:
			return "can " + s.en + " " + enInf + " ?", "est-ce que " + s.fr + " " + aux + " " + frInf + " ?"
		}
		return s.en + " can " + enInf, s.fr + " " + aux + " " + frInf
	}
	aux := frVouloir.pres[s.slot]
	switch mood {
	case moodNegate:
		return s.en + " " + s.enDo() + "n't want to " + enInf, s.frNeg(aux) + " " + frInf
	case moodAsk:
		return s.enDo() + " " + s.en + " want to " + enInf + " ?", "est-ce que " + s.fr + " " + aux + " " + frInf + " ?"
	}
	want := "want"
	if s.third() {
		want = "wants"
	}
	return s.en + " " + want + " to " + enInf, s.fr + " " + aux + " " + frInf
}

// frAux is the passé-composé auxiliary of v for subject s (être or avoir).
func frAux(v mtVerb, s mtSubject) string {
	if v.etre {
		return frEtre.pres[s.slot]
	}
	return frAvoir.pres[s.slot]
}

// mtPasseCompose: "i lost ." → "j'ai perdu .", "she left ." → "elle est partie .",
// "they didn't eat the cake ." → "ils n'ont pas mangé le gâteau .".
func mtPasseCompose(rng *rand.Rand) (en, fr string) {
	s := mtAnySubject(rng)
	v := pick(rng, mtPastVerbs)
	enObj, frObj, frObjNeg := "", "", ""
	if len(v.objects) > 0 && (!v.intrans || rng.IntN(2) == 0) {
		o := mtObjectOf(rng, v, nounByEn(pick(rng, v.objects)))
		enObj, frObj, frObjNeg = " "+withPrep(v, o.en), " "+o.fr, " "+o.frNeg
	}
	aux, part := frAux(v, s), v.participle(s)
	if rng.IntN(4) == 0 {
		return s.en + " didn't " + v.en[0] + enObj, s.frNeg(aux) + " " + part + frObjNeg
	}
	return s.en + " " + v.en[3] + enObj, s.fr + " " + aux + " " + part + frObj
}

// mtAller: "we go to the park ." → "nous allons au parc .", "she went to school ." →
// "elle est allée à l'école .".
func mtAller(rng *rand.Rand) (en, fr string) {
	s, p := mtAnySubject(rng), pick(rng, mtPlaces)
	to := p.toPlace()
	switch k := rng.IntN(6); {
	case k == 0:
		return s.en + " " + s.enDo() + "n't go to " + p.en, s.frNeg(frAller.pres[s.slot]) + " " + to
	case k == 1:
		return s.en + " went to " + p.en, s.fr + " " + frEtre.pres[s.slot] + " " + frAller.participle(s) + " " + to
	case k == 2:
		return s.enDo() + " " + s.en + " go to " + p.en + " ?", "est-ce que " + s.fr + " " + frAller.pres[s.slot] + " " + to + " ?"
	case k == 3:
		return s.enBe(rng.IntN(2) == 0) + " going to " + p.en, s.fr + " " + frAller.pres[s.slot] + " " + to
	}
	goes := "go"
	if s.third() {
		goes = "goes"
	}
	return s.en + " " + goes + " to " + p.en, s.fr + " " + frAller.pres[s.slot] + " " + to
}

// mtHave: "i have a cat ." → "j'ai un chat .", "she doesn't have a car ." → "elle n'a
// pas de voiture .".
func mtHave(rng *rand.Rand) (en, fr string) {
	s := mtAnySubject(rng)
	n := nounByEn(pick(rng, frAvoir.objects))
	art := "un "
	if n.fem {
		art = "une "
	}
	aux := frAvoir.pres[s.slot]
	if rng.IntN(3) == 0 {
		return s.en + " " + s.enDo() + "n't have " + enIndefinite(n.en), s.frNeg(aux) + " de " + n.fr
	}
	has := "have"
	if s.third() {
		has = "has"
	}
	return s.en + " " + has + " " + enIndefinite(n.en), s.fr + " " + aux + " " + art + n.fr
}
