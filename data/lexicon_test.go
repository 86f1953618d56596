package data

import (
	"strings"
	"testing"
)

// verbByInf finds a verb of the lexicon by its French infinitive.
func verbByInf(t *testing.T, inf string) mtVerb {
	t.Helper()
	for _, v := range append([]mtVerb{frEtre, frAvoir, frAller, frPouvoir}, mtVerbs...) {
		if v.inf == inf {
			return v
		}
	}
	t.Fatalf("no verb %q in the lexicon", inf)
	return mtVerb{}
}

var allPronouns = []mtSubject{frJe, frTu, frIl, frElle, frNous, frVous, frIls, frElles}

// TestConjPresent checks every pronoun × a sample of regular and irregular verbs
// against the present tense written out by hand (with elision after je).
func TestConjPresent(t *testing.T) {
	tests := []struct {
		inf  string
		want [8]string // je, tu, il, elle, nous, vous, ils, elles
	}{
		{"être", [8]string{"je suis", "tu es", "il est", "elle est", "nous sommes", "vous êtes", "ils sont", "elles sont"}},
		{"avoir", [8]string{"j'ai", "tu as", "il a", "elle a", "nous avons", "vous avez", "ils ont", "elles ont"}},
		{"aller", [8]string{"je vais", "tu vas", "il va", "elle va", "nous allons", "vous allez", "ils vont", "elles vont"}},
		{"faire", [8]string{"je fais", "tu fais", "il fait", "elle fait", "nous faisons", "vous faites", "ils font", "elles font"}},
		{"prendre", [8]string{"je prends", "tu prends", "il prend", "elle prend", "nous prenons", "vous prenez", "ils prennent", "elles prennent"}},
		{"voir", [8]string{"je vois", "tu vois", "il voit", "elle voit", "nous voyons", "vous voyez", "ils voient", "elles voient"}},
		{"venir", [8]string{"je viens", "tu viens", "il vient", "elle vient", "nous venons", "vous venez", "ils viennent", "elles viennent"}},
		{"vouloir", [8]string{"je veux", "tu veux", "il veut", "elle veut", "nous voulons", "vous voulez", "ils veulent", "elles veulent"}},
		{"pouvoir", [8]string{"je peux", "tu peux", "il peut", "elle peut", "nous pouvons", "vous pouvez", "ils peuvent", "elles peuvent"}},
		{"boire", [8]string{"je bois", "tu bois", "il boit", "elle boit", "nous buvons", "vous buvez", "ils boivent", "elles boivent"}},
		{"écrire", [8]string{"j'écris", "tu écris", "il écrit", "elle écrit", "nous écrivons", "vous écrivez", "ils écrivent", "elles écrivent"}},
		{"dormir", [8]string{"je dors", "tu dors", "il dort", "elle dort", "nous dormons", "vous dormez", "ils dorment", "elles dorment"}},
		{"ouvrir", [8]string{"j'ouvre", "tu ouvres", "il ouvre", "elle ouvre", "nous ouvrons", "vous ouvrez", "ils ouvrent", "elles ouvrent"}},
		{"regarder", [8]string{"je regarde", "tu regardes", "il regarde", "elle regarde", "nous regardons", "vous regardez", "ils regardent", "elles regardent"}},
		{"manger", [8]string{"je mange", "tu manges", "il mange", "elle mange", "nous mangeons", "vous mangez", "ils mangent", "elles mangent"}},
		{"nager", [8]string{"je nage", "tu nages", "il nage", "elle nage", "nous nageons", "vous nagez", "ils nagent", "elles nagent"}},
		{"aimer", [8]string{"j'aime", "tu aimes", "il aime", "elle aime", "nous aimons", "vous aimez", "ils aiment", "elles aiment"}},
		{"écouter", [8]string{"j'écoute", "tu écoutes", "il écoute", "elle écoute", "nous écoutons", "vous écoutez", "ils écoutent", "elles écoutent"}},
		{"acheter", [8]string{"j'achète", "tu achètes", "il achète", "elle achète", "nous achetons", "vous achetez", "ils achètent", "elles achètent"}},
		{"finir", [8]string{"je finis", "tu finis", "il finit", "elle finit", "nous finissons", "vous finissez", "ils finissent", "elles finissent"}},
		{"perdre", [8]string{"je perds", "tu perds", "il perd", "elle perd", "nous perdons", "vous perdez", "ils perdent", "elles perdent"}},
		{"attendre", [8]string{"j'attends", "tu attends", "il attend", "elle attend", "nous attendons", "vous attendez", "ils attendent", "elles attendent"}},
	}
	for _, tc := range tests {
		v := verbByInf(t, tc.inf)
		for i, s := range allPronouns {
			if got := s.conjugate(v); got != tc.want[i] {
				t.Errorf("%s, %s: got %q want %q", tc.inf, s.fr, got, tc.want[i])
			}
		}
	}
}

// TestConjPasseCompose checks the passé composé: avoir or être, and the être
// participle agreeing with the subject.
func TestConjPasseCompose(t *testing.T) {
	girls := mtNounSubjects[11]
	tests := []struct {
		s    mtSubject
		inf  string
		want string
	}{
		{frJe, "perdre", "j'ai perdu"},
		{frTu, "gagner", "tu as gagné"},
		{frNous, "manger", "nous avons mangé"},
		{frVous, "voir", "vous avez vu"},
		{frIls, "faire", "ils ont fait"},
		{frElle, "prendre", "elle a pris"},
		{frIl, "ouvrir", "il a ouvert"},
		{frJe, "partir", "je suis parti"},
		{frElle, "partir", "elle est partie"},
		{frIls, "partir", "ils sont partis"},
		{frElles, "partir", "elles sont parties"},
		{girls, "aller", "les filles sont allées"},
		{frNous, "venir", "nous sommes venus"},
		{frElle, "arriver", "elle est arrivée"},
		{frJe, "acheter", "j'ai acheté"},
		{frJe, "écrire", "j'ai écrit"},
	}
	for _, tc := range tests {
		v := verbByInf(t, tc.inf)
		if got := elide(tc.s.fr + " " + frAux(v, tc.s) + " " + v.participle(tc.s)); got != tc.want {
			t.Errorf("%s, %s: got %q want %q", tc.inf, tc.s.fr, got, tc.want)
		}
	}
}

func adjectiveByEn(t *testing.T, en string) mtAdjective {
	t.Helper()
	for _, a := range mtAdjectives {
		if a.en == en {
			return a
		}
	}
	t.Fatalf("no adjective %q", en)
	return mtAdjective{}
}

// TestLexiconAgreement checks adjective agreement in all four gender × number
// combinations, with pronoun and noun subjects.
func TestLexiconAgreement(t *testing.T) {
	boys, girls := mtNounSubjects[10], mtNounSubjects[11]
	tests := []struct {
		en   string
		want [6]string // il, elle, ils, elles, les garçons, les filles
	}{
		{"calm", [6]string{"il est calme", "elle est calme", "ils sont calmes", "elles sont calmes", "les garçons sont calmes", "les filles sont calmes"}},
		{"happy", [6]string{"il est content", "elle est contente", "ils sont contents", "elles sont contentes", "les garçons sont contents", "les filles sont contentes"}},
		{"tired", [6]string{"il est fatigué", "elle est fatiguée", "ils sont fatigués", "elles sont fatiguées", "les garçons sont fatigués", "les filles sont fatiguées"}},
		{"lazy", [6]string{"il est paresseux", "elle est paresseuse", "ils sont paresseux", "elles sont paresseuses", "les garçons sont paresseux", "les filles sont paresseuses"}},
		{"kind", [6]string{"il est gentil", "elle est gentille", "ils sont gentils", "elles sont gentilles", "les garçons sont gentils", "les filles sont gentilles"}},
		{"old", [6]string{"il est vieux", "elle est vieille", "ils sont vieux", "elles sont vieilles", "les garçons sont vieux", "les filles sont vieilles"}},
		{"late", [6]string{"il est en retard", "elle est en retard", "ils sont en retard", "elles sont en retard", "les garçons sont en retard", "les filles sont en retard"}},
	}
	for _, tc := range tests {
		a := adjectiveByEn(t, tc.en)
		for i, s := range []mtSubject{frIl, frElle, frIls, frElles, boys, girls} {
			if got := elide(s.fr + " " + frEtre.pres[s.slot] + " " + a.agree(s)); got != tc.want[i] {
				t.Errorf("%s, %s: got %q want %q", tc.en, s.fr, got, tc.want[i])
			}
		}
	}
}

// TestLexiconElision checks elision, the partitive, and à + le → au.
func TestLexiconElision(t *testing.T) {
	tests := []struct{ in, want string }{
		{"je ai", "j'ai"},
		{"je suis", "je suis"},
		{"je aime", "j'aime"},
		{"je ne aime pas", "je n'aime pas"},
		{"il ne est pas", "il n'est pas"},
		{"tu ne as pas", "tu n'as pas"},
		{"est-ce que il", "est-ce qu'il"},
		{"est-ce que elles", "est-ce qu'elles"},
		{"est-ce que le garçon", "est-ce que le garçon"},
		{"le homme", "l'homme"},
		{"la eau", "l'eau"},
		{"le enfant", "l'enfant"},
		{"la fille", "la fille"},
		{"tu aimes", "tu aimes"},
		{"pas de orange", "pas d'orange"},
		{"pas de voiture", "pas de voiture"},
		{frPartitive(nounByEn("water")), "de l'eau"},
		{frPartitive(nounByEn("milk")), "du lait"},
		{frPartitive(nounByEn("beer")), "de la bière"},
	}
	for _, tc := range tests {
		if got := elide(tc.in); got != tc.want {
			t.Errorf("elide(%q) got %q want %q", tc.in, got, tc.want)
		}
	}
	places := map[string]string{
		"school": "à l'école", "the park": "au parc", "the beach": "à la plage",
		"the hospital": "à l'hôpital", "paris": "à paris", "the market": "au marché",
	}
	for _, p := range mtPlaces {
		if want, ok := places[p.en]; ok {
			if got := p.toPlace(); got != want {
				t.Errorf("toPlace(%q) got %q want %q", p.en, got, want)
			}
		}
	}
}

// TestLexiconEnglish checks the English side's be, do and contractions.
func TestLexiconEnglish(t *testing.T) {
	tests := []struct {
		s                              mtSubject
		be, beShort, not, notShort, do string
	}{
		{frJe, "i am", "i'm", "i am not", "i'm not", "do"},
		{frTu, "you are", "you're", "you are not", "you aren't", "do"},
		{frIl, "he is", "he's", "he is not", "he isn't", "does"},
		{frElle, "she is", "she's", "she is not", "she isn't", "does"},
		{frNous, "we are", "we're", "we are not", "we aren't", "do"},
		{frVous, "you all are", "you all are", "you all are not", "you all aren't", "do"},
		{frIls, "they are", "they're", "they are not", "they aren't", "do"},
		{mtNounSubjects[0], "the boy is", "the boy is", "the boy is not", "the boy isn't", "does"},
		{mtNounSubjects[13], "the children are", "the children are", "the children are not", "the children aren't", "do"},
	}
	for _, tc := range tests {
		got := []string{tc.s.enBe(false), tc.s.enBe(true), tc.s.enBeNot(false), tc.s.enBeNot(true), tc.s.enDo()}
		want := []string{tc.be, tc.beShort, tc.not, tc.notShort, tc.do}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: got %q want %q", tc.s.en, got, want)
		}
	}
}
