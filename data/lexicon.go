package data

import (
	"strings"
	"unicode/utf8"
)

// This file is the lexicon of the English–French corpus (corpus.go): subjects,
// verbs with their French present tense and past participle, adjectives with their
// four agreed forms, nouns with gender, places, and the French spelling rules the
// grammar needs (elision, à + le → au). Every French word a generated sentence may
// contain is derivable from these tables (frLexicon), which the tests check.

// Conjugation slots of the French present tense: je, tu, il/elle, nous, vous,
// ils/elles.
const (
	slotJe = iota
	slotTu
	slotIl
	slotNous
	slotVous
	slotIls
)

// mtSubject is a sentence subject: a pronoun or a noun phrase.
type mtSubject struct {
	en    string // "i", "the boy"
	fr    string // "je", "le garçon" (before elision)
	slot  int    // conjugation slot, slotJe … slotIls
	fem   bool   // feminine (agreement of adjectives and être participles)
	pl    bool   // plural
	tonic string // the stressed pronoun after "chez": moi, toi, lui, elle, nous, vous, eux, elles
}

// Subject pronouns. English "you" is always singular familiar tu and "you all" is
// vous; English "they" is always ils (the French default for a group of unknown
// gender); unmarked persons (i, you, we, you all, they) agree in the masculine.
// Feminine plural agreement comes from noun subjects ("the girls" → "les filles").
// frElles exists for the conjugation tests; the corpus has no English source for it.
var (
	frJe    = mtSubject{"i", "je", slotJe, false, false, "moi"}
	frTu    = mtSubject{"you", "tu", slotTu, false, false, "toi"}
	frIl    = mtSubject{"he", "il", slotIl, false, false, "lui"}
	frElle  = mtSubject{"she", "elle", slotIl, true, false, "elle"}
	frNous  = mtSubject{"we", "nous", slotNous, false, true, "nous"}
	frVous  = mtSubject{"you all", "vous", slotVous, false, true, "vous"}
	frIls   = mtSubject{"they", "ils", slotIls, false, true, "eux"}
	frElles = mtSubject{"", "elles", slotIls, true, true, "elles"}
)

var mtPronouns = []mtSubject{frJe, frTu, frIl, frElle, frNous, frVous, frIls}

// mtNounSubjects are the noun-phrase subjects, all third person.
var mtNounSubjects = []mtSubject{
	nounSubject("the boy", "le garçon", false, false),
	nounSubject("the girl", "la fille", true, false),
	nounSubject("the man", "le homme", false, false),
	nounSubject("the woman", "la femme", true, false),
	nounSubject("the child", "le enfant", false, false),
	nounSubject("the teacher", "le professeur", false, false),
	nounSubject("my father", "mon père", false, false),
	nounSubject("my mother", "ma mère", true, false),
	nounSubject("the cat", "le chat", false, false),
	nounSubject("the dog", "le chien", false, false),
	nounSubject("the boys", "les garçons", false, true),
	nounSubject("the girls", "les filles", true, true),
	nounSubject("the women", "les femmes", true, true),
	nounSubject("the children", "les enfants", false, true),
	nounSubject("my parents", "mes parents", false, true),
}

func nounSubject(en, fr string, fem, pl bool) mtSubject {
	s := mtSubject{en: en, fr: fr, slot: slotIl, fem: fem, pl: pl, tonic: "lui"}
	switch {
	case pl && fem:
		s.slot, s.tonic = slotIls, "elles"
	case pl:
		s.slot, s.tonic = slotIls, "eux"
	case fem:
		s.tonic = "elle"
	}
	return s
}

// conjugate is the subject with v in the present, elided: "j'ai", "elle est".
func (s mtSubject) conjugate(v mtVerb) string { return elide(s.fr + " " + v.pres[s.slot]) }

// mtVerb is a verb with its English forms and French conjugation.
type mtVerb struct {
	en      [4]string // base, third person singular, -ing, past: eat eats eating ate
	prep    string    // English particle before an object: "for" (look for), "to" (listen to)
	inf     string    // French infinitive
	pres    [6]string // French present, by slot
	part    string    // French past participle
	etre    bool      // passé composé with être (the participle agrees with the subject)
	objects []string  // English nouns (mtNoun.en) the verb takes as direct object
	intrans bool      // may stand alone: "they are watching ." → "ils regardent ."
	stative bool      // no progressive in English ("i like", not "i am liking")
	modal   bool      // may follow want / can as an infinitive
	past    bool      // used in the passé composé
	generic bool      // a bare English object is generic: "i like tea" → "j'aime le thé"
}

// conjER conjugates a regular -er verb, with the spelling rules of manger
// (mangeons) and commencer (commençons).
func conjER(inf string) [6]string {
	stem := strings.TrimSuffix(inf, "er")
	nous := stem + "ons"
	switch {
	case strings.HasSuffix(stem, "g"):
		nous = stem + "eons"
	case strings.HasSuffix(stem, "c"):
		nous = strings.TrimSuffix(stem, "c") + "çons"
	}
	return [6]string{stem + "e", stem + "es", stem + "e", nous, stem + "ez", stem + "ent"}
}

// conjIR conjugates a regular -ir verb of the finir type.
func conjIR(inf string) [6]string {
	stem := strings.TrimSuffix(inf, "ir")
	return [6]string{stem + "is", stem + "is", stem + "it", stem + "issons", stem + "issez", stem + "issent"}
}

// conjRE conjugates a regular -re verb of the attendre type.
func conjRE(inf string) [6]string {
	stem := strings.TrimSuffix(inf, "re")
	return [6]string{stem + "s", stem + "s", stem, stem + "ons", stem + "ez", stem + "ent"}
}

func en4(s string) [4]string {
	f := strings.Fields(s)
	return [4]string{f[0], f[1], f[2], f[3]}
}

// être and avoir, used by the grammar directly.
var (
	frEtre  = mtVerb{en: en4("be is being was"), inf: "être", pres: [6]string{"suis", "es", "est", "sommes", "êtes", "sont"}, part: "été"}
	frAvoir = mtVerb{en: en4("have has having had"), inf: "avoir", pres: [6]string{"ai", "as", "a", "avons", "avez", "ont"}, part: "eu",
		objects: []string{"cat", "dog", "car", "house", "bike", "book", "key", "computer"}}
	frAller   = mtVerb{en: en4("go goes going went"), inf: "aller", pres: [6]string{"vais", "vas", "va", "allons", "allez", "vont"}, part: "allé", etre: true, past: true}
	frVouloir = mtVerb{en: en4("want wants wanting wanted"), inf: "vouloir", pres: [6]string{"veux", "veux", "veut", "voulons", "voulez", "veulent"}, part: "voulu",
		objects: []string{"apple", "cake", "car", "book", "bike", "water", "tea", "coffee", "bread"}, stative: true}
	frPouvoir = mtVerb{en: en4("can can can could"), inf: "pouvoir", pres: [6]string{"peux", "peux", "peut", "pouvons", "pouvez", "peuvent"}, part: "pu"}
)

// mtVerbs are the verbs of the transitive, intransitive, modal and past sentences.
var mtVerbs = fillConjugations([]mtVerb{
	// regular -er verbs
	{en: en4("watch watches watching watched"), inf: "regarder", objects: []string{"movie", "cat", "dog", "bird"}, intrans: true, past: true},
	{en: en4("speak speaks speaking spoke"), inf: "parler", objects: []string{"french", "english"}, modal: true},
	{en: en4("eat eats eating ate"), inf: "manger", objects: []string{"apple", "orange", "cake", "bread", "soup"}, intrans: true, modal: true, past: true},
	{en: en4("like likes liking liked"), inf: "aimer", objects: []string{"apple", "cake", "cat", "dog", "music", "tea", "coffee", "movie", "flower", "bird"}, stative: true, generic: true},
	{en: en4("sing sings singing sang"), inf: "chanter", objects: []string{"song"}, intrans: true, modal: true, past: true},
	{en: en4("dance dances dancing danced"), inf: "danser", intrans: true, modal: true, past: true},
	{en: en4("work works working worked"), inf: "travailler", intrans: true, modal: true, past: true},
	{en: en4("listen listens listening listened"), prep: "to", inf: "écouter", objects: []string{"music", "song", "teacher"}, intrans: true},
	{en: en4("look looks looking looked"), prep: "for", inf: "chercher", objects: []string{"key", "cat", "dog", "book", "car"}},
	{en: en4("swim swims swimming swam"), inf: "nager", intrans: true, modal: true, past: true},
	{en: en4("close closes closing closed"), inf: "fermer", objects: []string{"door", "window", "book"}, past: true},
	{en: en4("win wins winning won"), inf: "gagner", objects: []string{"game"}, intrans: true, past: true},
	{en: en4("help helps helping helped"), inf: "aider", objects: []string{"man", "woman", "boy", "girl", "teacher"}, past: true},
	{en: en4("find finds finding found"), inf: "trouver", objects: []string{"key", "cat", "dog", "book"}, stative: true, past: true},
	{en: en4("buy buys buying bought"), inf: "acheter", pres: [6]string{"achète", "achètes", "achète", "achetons", "achetez", "achètent"},
		objects: []string{"car", "house", "bike", "bread", "book", "flower", "dress"}, past: true},
	{en: en4("arrive arrives arriving arrived"), inf: "arriver", etre: true, intrans: true, past: true},
	// regular -ir and -re verbs
	{en: en4("finish finishes finishing finished"), inf: "finir", objects: []string{"book", "soup", "letter"}, past: true},
	{en: en4("wait waits waiting waited"), prep: "for", inf: "attendre", objects: []string{"bus", "train", "teacher", "boy", "girl"}, intrans: true, modal: true},
	{en: en4("sell sells selling sold"), inf: "vendre", objects: []string{"car", "house", "bike", "book"}, past: true},
	{en: en4("lose loses losing lost"), inf: "perdre", objects: []string{"key", "book", "game"}, intrans: true, past: true},
	{en: en4("hear hears hearing heard"), inf: "entendre", objects: []string{"music", "song", "dog", "bird"}, stative: true, past: true},
	// irregular verbs
	{en: en4("make makes making made"), inf: "faire", pres: [6]string{"fais", "fais", "fait", "faisons", "faites", "font"}, part: "fait", objects: []string{"cake", "soup"}, past: true},
	{en: en4("take takes taking took"), inf: "prendre", pres: [6]string{"prends", "prends", "prend", "prenons", "prenez", "prennent"}, part: "pris", objects: []string{"bus", "train", "key", "book", "apple"}, past: true},
	{en: en4("see sees seeing saw"), inf: "voir", pres: [6]string{"vois", "vois", "voit", "voyons", "voyez", "voient"}, part: "vu", objects: []string{"cat", "dog", "car", "house", "tree", "bird", "man", "woman", "boy", "girl", "movie"}, stative: true, past: true},
	{en: en4("come comes coming came"), inf: "venir", pres: [6]string{"viens", "viens", "vient", "venons", "venez", "viennent"}, part: "venu", etre: true, intrans: true, modal: true, past: true},
	{en: en4("sleep sleeps sleeping slept"), inf: "dormir", pres: [6]string{"dors", "dors", "dort", "dormons", "dormez", "dorment"}, part: "dormi", intrans: true, modal: true, past: true},
	{en: en4("leave leaves leaving left"), inf: "partir", pres: [6]string{"pars", "pars", "part", "partons", "partez", "partent"}, part: "parti", etre: true, intrans: true, modal: true, past: true},
	{en: en4("read reads reading read"), inf: "lire", pres: [6]string{"lis", "lis", "lit", "lisons", "lisez", "lisent"}, part: "lu", objects: []string{"book", "newspaper", "letter"}, intrans: true, modal: true},
	{en: en4("write writes writing wrote"), inf: "écrire", pres: [6]string{"écris", "écris", "écrit", "écrivons", "écrivez", "écrivent"}, part: "écrit", objects: []string{"letter", "book", "song"}, intrans: true, modal: true, past: true},
	{en: en4("drink drinks drinking drank"), inf: "boire", pres: [6]string{"bois", "bois", "boit", "buvons", "buvez", "boivent"}, part: "bu", objects: []string{"water", "milk", "tea", "coffee", "wine", "beer"}, intrans: true, past: true},
	{en: en4("run runs running ran"), inf: "courir", pres: [6]string{"cours", "cours", "court", "courons", "courez", "courent"}, part: "couru", intrans: true, modal: true, past: true},
	{en: en4("open opens opening opened"), inf: "ouvrir", pres: [6]string{"ouvre", "ouvres", "ouvre", "ouvrons", "ouvrez", "ouvrent"}, part: "ouvert", objects: []string{"door", "window", "book", "letter"}, past: true},
	frVouloir,
})

// fillConjugations fills in the regular present tenses and past participles the
// verb table leaves out (acheter gives its present and takes the regular participle).
func fillConjugations(verbs []mtVerb) []mtVerb {
	for i := range verbs {
		v := &verbs[i]
		if v.pres[0] != "" {
			if v.part == "" {
				v.part = strings.TrimSuffix(v.inf, "er") + "é"
			}
			continue
		}
		switch {
		case strings.HasSuffix(v.inf, "er"):
			v.pres = conjER(v.inf)
			v.part = strings.TrimSuffix(v.inf, "er") + "é"
		case strings.HasSuffix(v.inf, "ir"):
			v.pres = conjIR(v.inf)
			v.part = strings.TrimSuffix(v.inf, "ir") + "i"
		case strings.HasSuffix(v.inf, "re"):
			v.pres = conjRE(v.inf)
			v.part = strings.TrimSuffix(v.inf, "re") + "u"
		}
	}
	return verbs
}

// mtAdjective is an adjective with its French forms: masculine singular, feminine
// singular, masculine plural, feminine plural.
type mtAdjective struct {
	en string
	fr [4]string
}

// adjRegular gives the four forms of an adjective that adds -e and -s
// (content, contente, contents, contentes); one ending in -e only adds -s (calme).
func adjRegular(en, ms string) mtAdjective {
	fs := ms + "e"
	if strings.HasSuffix(ms, "e") {
		fs = ms
	}
	return mtAdjective{en, [4]string{ms, fs, ms + "s", fs + "s"}}
}

var mtAdjectives = []mtAdjective{
	adjRegular("calm", "calme"),
	adjRegular("happy", "content"),
	adjRegular("sad", "triste"),
	adjRegular("tired", "fatigué"),
	adjRegular("ready", "prêt"),
	adjRegular("busy", "occupé"),
	adjRegular("sick", "malade"),
	adjRegular("tall", "grand"),
	adjRegular("small", "petit"),
	adjRegular("young", "jeune"),
	adjRegular("rich", "riche"),
	adjRegular("poor", "pauvre"),
	adjRegular("strong", "fort"),
	adjRegular("angry", "fâché"),
	adjRegular("sorry", "désolé"),
	adjRegular("shy", "timide"),
	{"lazy", [4]string{"paresseux", "paresseuse", "paresseux", "paresseuses"}},
	{"kind", [4]string{"gentil", "gentille", "gentils", "gentilles"}},
	{"old", [4]string{"vieux", "vieille", "vieux", "vieilles"}},
	{"late", [4]string{"en retard", "en retard", "en retard", "en retard"}},
}

// agree picks the adjective form that agrees with a subject's gender and number.
func (a mtAdjective) agree(s mtSubject) string {
	i := 0
	if s.fem {
		i++
	}
	if s.pl {
		i += 2
	}
	return a.fr[i]
}

// participle is the past participle agreed with the subject when the auxiliary is
// être (elle est partie, ils sont partis); with avoir it does not change.
func (v mtVerb) participle(s mtSubject) string {
	p := v.part
	if !v.etre {
		return p
	}
	if s.fem {
		p += "e"
	}
	if s.pl {
		p += "s"
	}
	return p
}

// mtAvoirNouns are the sensations English says with "be" and French with avoir:
// "i'm hungry ." → "j'ai faim ."
var mtAvoirNouns = [][2]string{
	{"hungry", "faim"}, {"thirsty", "soif"}, {"cold", "froid"}, {"hot", "chaud"},
	{"afraid", "peur"}, {"sleepy", "sommeil"}, {"right", "raison"}, {"wrong", "tort"},
}

// mtNoun is a noun with its gender and how it takes articles.
type mtNoun struct {
	en, enPl string // English singular and plural ("" when not used)
	fr, frPl string // French singular and plural
	fem      bool
	mass     bool // uncountable: bare English noun ↔ French partitive (du, de la, de l')
	bare     bool // never takes an article in either language (languages: "speak french")
}

func countable(en, enPl, fr, frPl string, fem bool) mtNoun {
	return mtNoun{en: en, enPl: enPl, fr: fr, frPl: frPl, fem: fem}
}

func mass(en, fr string, fem bool) mtNoun {
	return mtNoun{en: en, fr: fr, fem: fem, mass: true}
}

var mtNouns = []mtNoun{
	countable("apple", "apples", "pomme", "pommes", true),
	countable("orange", "oranges", "orange", "oranges", true),
	countable("cake", "cakes", "gâteau", "gâteaux", false),
	countable("book", "books", "livre", "livres", false),
	countable("letter", "letters", "lettre", "lettres", true),
	countable("newspaper", "newspapers", "journal", "journaux", false),
	countable("song", "songs", "chanson", "chansons", true),
	countable("movie", "movies", "film", "films", false),
	countable("car", "cars", "voiture", "voitures", true),
	countable("house", "houses", "maison", "maisons", true),
	countable("bike", "bikes", "vélo", "vélos", false),
	countable("key", "keys", "clé", "clés", true),
	countable("door", "doors", "porte", "portes", true),
	countable("window", "windows", "fenêtre", "fenêtres", true),
	countable("flower", "flowers", "fleur", "fleurs", true),
	countable("dress", "dresses", "robe", "robes", true),
	countable("cat", "cats", "chat", "chats", false),
	countable("dog", "dogs", "chien", "chiens", false),
	countable("bird", "birds", "oiseau", "oiseaux", false),
	countable("tree", "trees", "arbre", "arbres", false),
	countable("computer", "computers", "ordinateur", "ordinateurs", false),
	countable("bus", "", "bus", "", false),
	countable("train", "trains", "train", "trains", false),
	countable("game", "games", "match", "matchs", false),
	countable("man", "men", "homme", "hommes", false),
	countable("woman", "women", "femme", "femmes", true),
	countable("boy", "boys", "garçon", "garçons", false),
	countable("girl", "girls", "fille", "filles", true),
	countable("teacher", "teachers", "professeur", "professeurs", false),
	mass("water", "eau", true),
	mass("milk", "lait", false),
	mass("tea", "thé", false),
	mass("coffee", "café", false),
	mass("wine", "vin", false),
	mass("beer", "bière", true),
	mass("bread", "pain", false),
	mass("soup", "soupe", true),
	mass("music", "musique", true),
	{en: "french", fr: "français", bare: true},
	{en: "english", fr: "anglais", bare: true},
}

// nounByEn finds a noun by its English singular (or plural-only) form.
func nounByEn(en string) mtNoun {
	for _, n := range mtNouns {
		if n.en == en {
			return n
		}
	}
	panic("data: unknown noun " + en)
}

// mtPlace is a destination of aller: "to school" → "à l'école".
type mtPlace struct {
	en   string // "school", "the park", "paris"
	fr   string // French noun without article
	fem  bool
	city bool // a city: no article (à paris)
}

var mtPlaces = []mtPlace{
	{"school", "école", true, false},
	{"the park", "parc", false, false},
	{"the beach", "plage", true, false},
	{"the station", "gare", true, false},
	{"the market", "marché", false, false},
	{"the cinema", "cinéma", false, false},
	{"the office", "bureau", false, false},
	{"the hospital", "hôpital", false, false},
	{"the restaurant", "restaurant", false, false},
	{"the bank", "banque", true, false},
	{"the library", "bibliothèque", true, false},
	{"paris", "paris", false, true},
	{"london", "londres", false, true},
}

// toPlace is "à" + the place with its article, contracting à + le to au:
// au parc, à la plage, à l'école, à paris.
func (p mtPlace) toPlace() string {
	switch {
	case p.city:
		return "à " + p.fr
	case startsWithVowel(p.fr):
		return "à l'" + p.fr
	case p.fem:
		return "à la " + p.fr
	default:
		return "au " + p.fr
	}
}

// frHMuet lists the words of the lexicon that begin with a mute h, which elide
// like a vowel (l'homme, l'hôpital).
var frHMuet = map[string]bool{"homme": true, "hommes": true, "hôpital": true}

// startsWithVowel reports whether a French word elides a preceding je, ne, que,
// le, la or de: it begins with a vowel or a mute h.
func startsWithVowel(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return strings.ContainsRune("aeiouyàâéèêëîïôûù", r) || frHMuet[w]
}

// frElidable are the words that lose their vowel before a vowel: je → j', ne → n',
// que → qu', le/la → l', de → d'.
var frElidable = map[string]string{"je": "j'", "ne": "n'", "que": "qu'", "le": "l'", "la": "l'", "de": "d'"}

// elide applies French elision to a space-separated phrase: "je ai" → "j'ai",
// "le homme" → "l'homme", "est-ce que il" → "est-ce qu'il", "ne est" → "n'est".
func elide(s string) string {
	words := strings.Fields(s)
	out := words[:0:0]
	for i := 0; i < len(words); i++ {
		if short, ok := frElidable[words[i]]; ok && i+1 < len(words) && startsWithVowel(words[i+1]) {
			out = append(out, short+words[i+1])
			i++
			continue
		}
		out = append(out, words[i])
	}
	return strings.Join(out, " ")
}

// frFunctionWords are the grammar's own French words (articles, negation,
// question, prepositions).
var frFunctionWords = []string{
	"le", "la", "les", "un", "une", "du", "de", "des", "ne", "pas", "est-ce", "que",
	"chez", "à", "au", "en", "retard", ".", "?", "!",
}

// enFunctionWords are the grammar's own English words.
var enFunctionWords = []string{
	"the", "a", "an", "am", "is", "are", "not", "isn't", "aren't", "i'm", "you're", "he's",
	"she's", "we're", "they're", "do", "does", "don't", "doesn't", "didn't", "can", "can't",
	"to", "for", "home", "all", "my", "want", "wants", "go", "goes", "going", "went", "have", "has",
	".", "?", "!",
}

// frLexicon is every French token the grammar can produce, built from the tables
// above and the set phrases: the tests check each generated sentence against it.
func frLexicon() map[string]bool {
	lex, add := newLexicon()
	add(frFunctionWords...)
	for _, s := range append(append([]mtSubject{frElles}, mtPronouns...), mtNounSubjects...) {
		add(s.fr, s.tonic)
	}
	verbs := append([]mtVerb{frEtre, frAvoir, frAller, frPouvoir}, mtVerbs...)
	for _, v := range verbs {
		add(v.inf, v.part, v.part+"e", v.part+"s", v.part+"es")
		add(v.pres[:]...)
	}
	addTables(add, true)
	for w := range lex {
		if startsWithVowel(w) {
			for _, short := range frElidable {
				lex[short+w] = true
			}
		}
	}
	return lex
}

// enLexicon is every English token the grammar can produce.
func enLexicon() map[string]bool {
	lex, add := newLexicon()
	add(enFunctionWords...)
	for _, s := range append(mtPronouns, mtNounSubjects...) {
		add(s.en)
	}
	for _, v := range mtVerbs {
		add(v.en[:]...)
		add(v.prep)
	}
	addTables(add, false)
	return lex
}

// newLexicon is an empty lexicon and the function that adds every word of phrases to it.
func newLexicon() (lex map[string]bool, add func(phrases ...string)) {
	lex = map[string]bool{}
	return lex, func(phrases ...string) {
		for _, p := range phrases {
			for _, w := range strings.Fields(p) {
				lex[w] = true
			}
		}
	}
}

// addTables adds one side (French, or English) of the tables whose entries carry both:
// adjectives, the nouns of avoir expressions, nouns, places, the set phrases and the
// lecture's examples.
func addTables(add func(phrases ...string), french bool) {
	side := func(fr, en string) string {
		if french {
			return fr
		}
		return en
	}
	for _, a := range mtAdjectives {
		if french {
			add(a.fr[:]...)
		} else {
			add(a.en)
		}
	}
	for _, n := range mtAvoirNouns {
		add(side(n[1], n[0]))
	}
	for _, n := range mtNouns {
		add(side(n.fr, n.en), side(n.frPl, n.enPl))
	}
	for _, p := range mtPlaces {
		add(side(p.fr, p.en))
	}
	for _, p := range mtSetPhrases {
		add(side(p.Fr, p.En))
	}
	for _, p := range lectureExamples() {
		add(side(p.Fr, p.En))
	}
}
