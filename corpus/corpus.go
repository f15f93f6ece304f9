// Package corpus holds difffuzz's named input sets: the benchmark corpora of DESIGN.md §8
// (the shapes the seed pull requests measure: Cyrillic, CJK, emoji, French, ASCII with é at
// random and periodic positions, HTML, URLs, quotes only, a newline every 40 bytes, clean
// ASCII, mixed quotes, non-ASCII), generated deterministically from built-in word lists and a
// fixed-seed generator, without network or files.
//
// Every corpus is valid UTF-8 at every size, and Make(size) returns exactly size bytes: the
// generated text is cut on a character boundary at or below size and padded to size with the
// corpus's ASCII pad byte. The same size always gives the same bytes, on every platform and Go
// version (the generator is this package's own, not math/rand).
package corpus

import (
	"strconv"
	"strings"
)

// Corpus is one named input set.
type Corpus struct {
	// Name is the corpus's identifier in benchmark names (BenchmarkEscape/<Name>/<size>/…):
	// lower case, no spaces or slashes.
	Name string
	// Doc says in one line what the bytes look like.
	Doc string
	// Make returns the corpus at size bytes (exactly; 0 or less gives an empty slice): valid
	// UTF-8, deterministic, a new slice on each call.
	Make func(size int) []byte
}

// Sizes are the benchmark sizes of DESIGN.md §8, in bytes: 16 B, 4 KiB and 64 KiB.
var Sizes = []int{16, 4096, 65536}

// SizeName names a size in benchmark names: "16B", "4KiB", "64KiB"; sizes that are not a
// whole number of KiB or MiB are given in bytes ("100B").
func SizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}

// All returns every corpus, in a fixed order. The slice is a fresh copy.
func All() []Corpus {
	return append([]Corpus(nil), all...)
}

// Lookup returns the corpus called name.
func Lookup(name string) (Corpus, bool) {
	for _, c := range all {
		if c.Name == name {
			return c, true
		}
	}
	return Corpus{}, false
}

// Names returns the names of All, in order.
func Names() []string {
	out := make([]string, len(all))
	for i, c := range all {
		out[i] = c.Name
	}
	return out
}

// gen appends generated text to b using r until b holds at least n bytes.
type gen func(r *rng, b []byte, n int) []byte

// def makes a Corpus whose text comes from g with a seed derived from the name, cut and
// padded to size with pad.
func def(name, doc string, pad byte, g gen) Corpus {
	seed := uint64(0x9E3779B97F4A7C15)
	for i := 0; i < len(name); i++ {
		seed = (seed ^ uint64(name[i])) * 0x100000001B3
	}
	return Corpus{Name: name, Doc: doc, Make: func(size int) []byte {
		if size <= 0 {
			return []byte{}
		}
		r := &rng{seed}
		b := g(r, make([]byte, 0, size+64), size)
		return fit(b, size, pad)
	}}
}

// fit cuts b to at most size bytes on a UTF-8 character boundary and pads it with pad to
// exactly size bytes.
func fit(b []byte, size int, pad byte) []byte {
	if len(b) > size {
		n := size
		for n > 0 && b[n]&0xC0 == 0x80 { // b[n] is a continuation byte: n is mid-character
			n--
		}
		b = b[:n]
	}
	for len(b) < size {
		b = append(b, pad)
	}
	return b
}

// rng is a SplitMix64 generator: small, fast and fixed forever, so corpora never change.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// intn returns a number in [0, n), n > 0.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// pick returns a random element of list.
func (r *rng) pick(list []string) string { return list[r.intn(len(list))] }

// words appends words from list separated by spaces, with a sentence mark from marks (", ",
// ". " …) after about one word in every, until n bytes.
func words(r *rng, b []byte, n int, list []string, marks []string, every int) []byte {
	for len(b) < n {
		b = append(b, r.pick(list)...)
		if every > 0 && r.intn(every) == 0 {
			b = append(b, r.pick(marks)...)
		} else {
			b = append(b, ' ')
		}
	}
	return b
}

var (
	cyrillicWords = strings.Fields(`привет мир как дела сегодня хорошая погода город улица дом
		человек время жизнь работа слово место лицо друг глаз вопрос рука сторона страна ребёнок
		история система компания программа данные строка символ текст кодировка пример проверка
		быстро медленно большой маленький новый старый первый последний`)
	cjkRunes    = []rune("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明")
	cjkPunct    = []string{"，", "。", "、", "「", "」"}
	emojiRunes  = []rune("😀😃😄😁😆😅😂🤣😊😇🙂🙃😉😌😍🥰😘😗😙😚😋😛😝😜🤪🤨🧐🤓😎🤩🥳😏😒😞😔😟😕🙁😣😖😫😩🥺😢😭😤😠😡🤬🤯😳🥵🥶😱😨😰😥😓🤗🤔🤭🤫🤥😶😐😑😬🙄😯😦😧😮😲🥱😴🤤😪😵🤐🥴🤢🤮🤧😷🤒🤕🤑🤠😈👿👹👺🤡💩👻💀👽👾🤖🎃😺😸🚀🌍🌈🔥💧🍕🎉👍👋")
	frenchWords = strings.Fields(`le la les un une des et à où été être déjà très après père mère
		frère café thé élève école français garçon leçon ça voilà là-bas forêt fenêtre hôpital
		hôtel côte goût août naïf noël maïs cœur sœur œuvre déçu reçu façade élégant éducation
		préféré répété général société qualité liberté égalité fraternité bientôt plutôt même
		où est la gare nous avons mangé une crêpe au fromage pendant l'été`)
	frenchMarks = []string{", ", ". ", " ; ", " ! ", " ? "}
	latinWords  = strings.Fields(`lorem ipsum dolor sit amet consectetur adipiscing elit sed do
		eiusmod tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam quis
		nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure
		in reprehenderit voluptate velit esse cillum eu fugiat nulla pariatur excepteur sint
		occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum`)
	cleanMarks = []string{", ", ". ", "; ", ": ", "! ", "? ", " - ", " (1) ", " 42 "}
	htmlTags   = []string{"div", "span", "p", "a", "li", "ul", "td", "tr", "em", "strong", "section", "header"}
	htmlAttrs  = []string{`class="item"`, `id="main-42"`, `href="/docs/api/v2/index.html"`, `title="Tom &amp; Jerry"`,
		`data-x='1'`, `style="color: red"`, `src="https://cdn.example.com/img/logo.png"`}
	hosts         = []string{"example.com", "api.example.org", "www.wikipedia.org", "cdn.example.net", "localhost:8080"}
	pathParts     = []string{"api", "v1", "v2", "users", "42", "items", "search", "static", "img", "docs", "index.html", "a-b_c"}
	queryKeys     = []string{"q", "page", "sort", "lang", "id", "utm_source", "ref"}
	nonASCIIRunes = []string{"é", "ü", "ñ", "ø", "ß", "Ω", "λ", "π", "ж", "щ", "я", "א", "ش", "ह", "ก", "中", "日", "本", "한", "€", "™", "…", "—", "😀", "🚀", "𝄞"}
)

var all = []Corpus{
	def("cyrillic", "Russian words and punctuation: 2-byte UTF-8 letters, ASCII spaces", ' ',
		func(r *rng, b []byte, n int) []byte {
			return words(r, b, n, cyrillicWords, []string{", ", ". ", "! ", "? "}, 8)
		}),
	def("cjk", "Chinese characters with CJK punctuation: 3-byte UTF-8, no ASCII", ' ',
		func(r *rng, b []byte, n int) []byte {
			for len(b) < n {
				if r.intn(12) == 0 {
					b = append(b, r.pick(cjkPunct)...)
				} else {
					b = append(b, string(cjkRunes[r.intn(len(cjkRunes))])...)
				}
			}
			return b
		}),
	def("emoji", "emoji (4-byte UTF-8, surrogate pairs when escaped), a space after about one in four", ' ',
		func(r *rng, b []byte, n int) []byte {
			for len(b) < n {
				b = append(b, string(emojiRunes[r.intn(len(emojiRunes))])...)
				if r.intn(4) == 0 {
					b = append(b, ' ')
				}
			}
			return b
		}),
	def("french", "French prose: mostly ASCII, accented letters (2-byte) and an apostrophe now and then", ' ',
		func(r *rng, b []byte, n int) []byte { return words(r, b, n, frenchWords, frenchMarks, 7) }),
	def("ascii-eacute-random", "clean ASCII prose with é at random positions (about one byte in 64)", ' ',
		func(r *rng, b []byte, n int) []byte {
			for len(b) < n {
				w := r.pick(latinWords)
				if r.intn(10) == 0 {
					i := r.intn(len(w) + 1)
					w = w[:i] + "é" + w[i:]
				}
				b = append(b, w...)
				b = append(b, ' ')
			}
			return b
		}),
	def("ascii-eacute-periodic", "clean ASCII prose with é every 64 bytes", ' ',
		func(r *rng, b []byte, n int) []byte {
			var t []byte
			for len(t) < n {
				t = append(t, r.pick(latinWords)...)
				t = append(t, ' ')
			}
			for i := 0; i < len(t); i++ {
				if i%64 == 62 && i+1 < len(t) {
					b = append(b, "é"...)
					i++
					continue
				}
				b = append(b, t[i])
			}
			return b
		}),
	def("html", "HTML markup: tags, attributes in double and single quotes, slashes, entities", ' ',
		func(r *rng, b []byte, n int) []byte {
			for len(b) < n {
				tag := r.pick(htmlTags)
				b = append(b, '<')
				b = append(b, tag...)
				for k := r.intn(3); k > 0; k-- {
					b = append(b, ' ')
					b = append(b, r.pick(htmlAttrs)...)
				}
				b = append(b, '>')
				for k := 1 + r.intn(6); k > 0; k-- {
					b = append(b, r.pick(latinWords)...)
					b = append(b, ' ')
				}
				if r.intn(5) == 0 {
					b = append(b, "&lt;br/&gt; "...)
				}
				b = append(b, "</"...)
				b = append(b, tag...)
				b = append(b, ">\n"...)
			}
			return b
		}),
	def("url", "URLs with paths and query strings, one per line: many slashes, & and =", ' ',
		func(r *rng, b []byte, n int) []byte {
			for len(b) < n {
				b = append(b, "https://"...)
				b = append(b, r.pick(hosts)...)
				for k := 1 + r.intn(4); k > 0; k-- {
					b = append(b, '/')
					b = append(b, r.pick(pathParts)...)
				}
				for k, sep := r.intn(4), byte('?'); k > 0; k, sep = k-1, '&' {
					b = append(b, sep)
					b = append(b, r.pick(queryKeys)...)
					b = append(b, '=')
					b = append(b, strconv.Itoa(r.intn(1000))...)
				}
				b = append(b, '\n')
			}
			return b
		}),
	def("quotes", `only double quotes: every byte is " (escaped as \")`, '"',
		func(r *rng, b []byte, n int) []byte {
			for len(b) < n {
				b = append(b, '"')
			}
			return b
		}),
	def("newline40", "clean ASCII prose with a newline every 40 bytes", '\n',
		func(r *rng, b []byte, n int) []byte {
			var t []byte
			for len(t) < n {
				t = append(t, r.pick(latinWords)...)
				t = append(t, ' ')
			}
			for i, c := range t {
				if i%40 == 39 {
					c = '\n'
				}
				b = append(b, c)
			}
			return b
		}),
	def("ascii", "clean ASCII prose: letters, digits, spaces and punctuation that is never escaped", ' ',
		func(r *rng, b []byte, n int) []byte { return words(r, b, n, latinWords, cleanMarks, 8) }),
	def("mixed-quotes", `ASCII prose with many double quotes and apostrophes ("quoted", it's)`, ' ',
		func(r *rng, b []byte, n int) []byte {
			for len(b) < n {
				w := r.pick(latinWords)
				switch r.intn(6) {
				case 0:
					b = append(b, '"')
					b = append(b, w...)
					b = append(b, '"')
				case 1:
					b = append(b, w...)
					b = append(b, "'s"...)
				case 2:
					b = append(b, '\'')
					b = append(b, w...)
					b = append(b, '\'')
				default:
					b = append(b, w...)
				}
				b = append(b, ' ')
			}
			return b
		}),
	def("html-heavy", "dense HTML markup: tags with one to three attributes each, a word or an entity between them", ' ',
		func(r *rng, b []byte, n int) []byte {
			for len(b) < n {
				tag := r.pick(htmlTags)
				b = append(b, '<')
				b = append(b, tag...)
				for k := 1 + r.intn(3); k > 0; k-- {
					b = append(b, ' ')
					b = append(b, r.pick(htmlAttrs)...)
				}
				b = append(b, '>')
				if r.intn(2) == 0 {
					b = append(b, r.pick(latinWords)...)
				} else {
					b = append(b, r.pick([]string{"&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&nbsp;"})...)
				}
				b = append(b, "</"...)
				b = append(b, tag...)
				b = append(b, '>')
			}
			return b
		}),
	def("url-heavy", "URLs back to back with deep paths and long query strings: a slash, & or = every few bytes", ' ',
		func(r *rng, b []byte, n int) []byte {
			for len(b) < n {
				b = append(b, "https://"...)
				b = append(b, r.pick(hosts)...)
				for k := 3 + r.intn(5); k > 0; k-- {
					b = append(b, '/')
					b = append(b, r.pick(pathParts)...)
				}
				for k, sep := 2+r.intn(5), byte('?'); k > 0; k, sep = k-1, '&' {
					b = append(b, sep)
					b = append(b, r.pick(queryKeys)...)
					b = append(b, '=')
					b = append(b, strconv.Itoa(r.intn(100))...)
				}
				b = append(b, ' ')
			}
			return b
		}),
	def("non-ascii", "mixed scripts: Latin-1, Greek, Cyrillic, Hebrew, Arabic, Devanagari, Thai, CJK, emoji; few spaces", ' ',
		func(r *rng, b []byte, n int) []byte {
			for len(b) < n {
				for k := 1 + r.intn(7); k > 0; k-- {
					b = append(b, r.pick(nonASCIIRunes)...)
				}
				b = append(b, ' ')
			}
			return b
		}),
}

// Fields returns count short strings of 8 to 11 bytes each, the shape of the values of
// json_encode's typical record ("1,000 arrays of 10 fields"): ASCII words, one in ten with a
// double quote, a slash or an é in it. The result is deterministic, like the corpora.
func Fields(count int) [][]byte {
	r := &rng{s: 0x6669656c6473} // "fields"
	out := make([][]byte, 0, max(count, 0))
	for len(out) < count {
		n := 8 + r.intn(4)
		var b []byte
		for len(b) < n {
			b = append(b, r.pick(latinWords)...)
			b = append(b, ' ')
		}
		b = b[:n]
		if b[n-1] == ' ' {
			b[n-1] = '.'
		}
		switch r.intn(30) {
		case 0:
			b[r.intn(n)] = '"'
		case 1:
			b[r.intn(n)] = '/'
		case 2:
			i := r.intn(n - 1)
			b[i], b[i+1] = 0xc3, 0xa9 // é
		}
		out = append(out, b)
	}
	return out
}
