package model

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentctx/agentctx/token"
)

// Info is what the catalog knows about one model: its context window, its
// output limit and the encoding its prompts are counted with. All sizes are
// in tokens.
type Info struct {
	// Name is the name that was looked up, as given.
	Name string
	// Family is the catalog entry that matched, such as "claude-sonnet-4"
	// or "gpt-4o"; "" when none did.
	Family string
	// ContextWindow is the most tokens one call can hold, prompt and reply
	// together, as the provider publishes it.
	ContextWindow int
	// MaxOutput is the most tokens the model can produce in one reply.
	MaxOutput int
	// MaxInput is the most tokens a prompt can hold where the provider caps
	// the prompt separately from the window: GPT-5's 400,000-token window
	// takes at most 272,000 input tokens. 0 when the provider sets no
	// separate cap. See [Info.InputLimit].
	MaxInput int
	// Encoding is the tiktoken encoding prompts are counted with:
	// [token.O200kBase] or [token.Cl100kBase].
	Encoding string
	// EncodingEstimated is true when the family has no public local
	// tokenizer and Encoding is a stand-in, so counts are estimates of what
	// the provider will bill. The stand-in is o200k_base, the most recent
	// and largest public BPE vocabulary (200k tokens, trained on
	// multilingual text and code), except where a family's tokenizer is
	// documented to extend cl100k_base (Llama 3, Qwen); each entry's comment
	// says which. Usage-anchored counting ([token.Anchor]) corrects for the
	// difference once the provider has reported a prompt's size.
	EncodingEstimated bool
	// Fallback is true when no catalog entry matched Name and the fields
	// hold the fallback values (see [Lookup]).
	Fallback bool
	// Price is the row's list price, nil when the catalog has none (see
	// [PriceOf]).
	Price *Price
	// Source names the provider pages (and other first-party sources,
	// such as an agent's bundled model catalog) the row's figures were
	// read from, and says which figures none of them gave.
	Source string
	// AsOf is the date the sources were read, YYYY-MM-DD.
	AsOf string
}

// InputLimit returns the most tokens a prompt can hold: MaxInput where the
// provider caps input separately, else ContextWindow.
func (i Info) InputLimit() int {
	if i.MaxInput > 0 && i.MaxInput < i.ContextWindow {
		return i.MaxInput
	}
	return i.ContextWindow
}

// The fallback for names that match no entry: a 128,000-token window (the
// window of GPT-4o, DeepSeek V3, Llama 3.x and most Mistral models, and
// smaller than any current frontier model's, so budgets derived from it are
// safe), 16,384 output tokens and estimated o200k_base counts.
const (
	FallbackContextWindow = 128_000
	FallbackMaxOutput     = 16_384
	FallbackEncoding      = token.O200kBase
)

// Lookup returns the catalog's entry for a model name. Matching is
// case-insensitive and looks for each entry's pattern anywhere in the name,
// in table order (most specific first), so provider prefixes
// ("openai/gpt-4o", "anthropic/claude-sonnet-4.5",
// "us.anthropic.claude-haiku-4-5-20251001-v1:0", "openrouter-llama-4-maverick",
// "meta-llama/llama-4-maverick"), date and version suffixes
// ("claude-haiku-4-5-20251001", "gpt-4o-2024-08-06", "@20251001") and dots
// or dashes in version numbers ("claude-sonnet-4.5", "claude-sonnet-4-5")
// do not break matching.
//
// A name that matches no entry gets the fallback — [FallbackContextWindow],
// [FallbackMaxOutput], [FallbackEncoding] estimated — with Fallback set; it
// is never an error. Show [Warning] to the user in that case. Lookup is safe
// for concurrent use. The first [lookupsKept] names of at most
// [lookupNameMax] bytes looked up are
// remembered with their row: a process looks the same models up many
// times (a replay: its budget, the Engine, the cost; a service: each
// session's price at each call), and each lookup runs the catalog's
// patterns.
func Lookup(name string) Info {
	if v, ok := looked.Load(name); ok {
		return v.(Info)
	}
	info := lookup(name)
	if len(name) <= lookupNameMax && lookedN.Load() < lookupsKept && lookedN.Add(1) <= lookupsKept {
		looked.Store(name, info)
	}
	return info
}

// looked holds the names [Lookup] remembers (name → Info), lookedN how
// many it took, at most lookupsKept: names come from clients, so the
// memory is bounded whatever they send.
var (
	looked  sync.Map
	lookedN atomic.Int64
)

// lookupsKept is the most names [Lookup] remembers, lookupNameMax the
// longest, in bytes (a model's name is tens of bytes).
const (
	lookupsKept   = 256
	lookupNameMax = 256
)

// lookup is [Lookup] without its memory.
func lookup(name string) Info {
	s := strings.ToLower(strings.TrimSpace(name))
	if s != "" {
		for _, e := range catalog {
			if e.re.MatchString(s) {
				return Info{
					Name:              name,
					Family:            e.family,
					ContextWindow:     e.window,
					MaxOutput:         e.output,
					MaxInput:          e.input,
					Encoding:          e.encoding,
					EncodingEstimated: e.estimated,
					Price:             e.price,
					Source:            e.source,
					AsOf:              e.asOf,
				}
			}
		}
	}
	return Info{
		Name:              name,
		ContextWindow:     FallbackContextWindow,
		MaxOutput:         FallbackMaxOutput,
		Encoding:          FallbackEncoding,
		EncodingEstimated: true,
		Fallback:          true,
	}
}

// Catalog returns every row of the catalog, in match order: each
// [Info]'s Name and Family are the row's name (a model id such as
// "claude-opus-5-5", or a family such as "gpt-5" for the rows that stand
// for several models), with its limits, price, source and date. The
// result is a fresh copy; Price points to the catalog's own value, which
// the caller must not modify.
func Catalog() []Info {
	out := make([]Info, len(catalog))
	for k, e := range catalog {
		out[k] = Info{
			Name: e.family, Family: e.family,
			ContextWindow: e.window, MaxOutput: e.output, MaxInput: e.input,
			Encoding: e.encoding, EncodingEstimated: e.estimated,
			Price: e.price, Source: e.source, AsOf: e.asOf,
		}
	}
	return out
}

// Warning returns "" unless i is a fallback; then it returns a one-line
// warning that names the model and the values assumed for it.
func Warning(i Info) string {
	if !i.Fallback {
		return ""
	}
	return fmt.Sprintf("model %q is not in the catalog; assuming a %d-token context window, %d max output tokens and %s token counts (estimated)",
		i.Name, i.ContextWindow, i.MaxOutput, i.Encoding)
}

// Counter returns the exact counter for i's encoding ([token.ForEncoding]).
// Where i.EncodingEstimated is set its counts are exact for the stand-in
// encoding and estimates for the model. It returns an error wrapping
// [token.ErrUnknownEncoding] when i.Encoding is not a known encoding, which
// happens only for an Info built by hand.
func Counter(i Info) (token.Counter, error) {
	c, err := token.ForEncoding(i.Encoding)
	if err != nil {
		return nil, fmt.Errorf("model: counter for %q: %w", i.Name, err)
	}
	return c, nil
}

// entry is one row of the catalog.
type entry struct {
	family    string
	pattern   string // regular expression over the lower-cased name
	example   string // a real name the entry must match (tests check reachability)
	window    int
	output    int
	input     int
	encoding  string
	estimated bool
	price     *Price // nil: unknown, or the family's members differ
	source    string // where the figures come from (see Info.Source)
	asOf      string // when the source was read, YYYY-MM-DD
}

// Encodings of the catalog's rows.
const (
	o200k  = token.O200kBase
	cl100k = token.Cl100kBase
)

// Boundaries around short names ("o3") so they do not match inside other
// words: RE2 has no look-around, so the boundary characters are consumed.
const (
	bl = `(?:^|[^a-z0-9])`
	br = `(?:$|[^a-z0-9])`
)

// compiledEntry is an entry with its pattern compiled.
type compiledEntry struct {
	entry
	re *regexp.Regexp
}

// catalog is the table, compiled once at package initialization.
var catalog = func() []compiledEntry {
	out := make([]compiledEntry, len(entries))
	for i, e := range entries {
		out[i] = compiledEntry{e, regexp.MustCompile(e.pattern)}
	}
	return out
}()
