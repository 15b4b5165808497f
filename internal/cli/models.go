package cli

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/agentctx/agentctx/model"
	"github.com/spf13/cobra"
)

// modelRow is one line of `agentctx models --json`: a catalog row (or the
// row a name given on the command line matched), its limits in tokens and
// its list prices in US dollars per million tokens. A price field is null
// when the catalog has no price for the row, and a cache price is null
// when the provider gives no separate rate or the sources did not (those
// tokens are billed at input). The JSON names are part of the command
// line's contract.
type modelRow struct {
	// Name is the catalog row's name; Query the name looked up, when the
	// command was given names.
	Name  string `json:"name"`
	Query string `json:"query,omitempty"`
	// Fallback is true when Query matched no row: the limits are the
	// catalog's fallback values and there is no price.
	Fallback          bool     `json:"fallback,omitempty"`
	ContextWindow     int      `json:"context_window"`
	MaxOutput         int      `json:"max_output"`
	MaxInput          int      `json:"max_input,omitempty"`
	Encoding          string   `json:"encoding"`
	EncodingEstimated bool     `json:"encoding_estimated"`
	Input             *float64 `json:"input"`
	Output            *float64 `json:"output"`
	CacheRead         *float64 `json:"cache_read"`
	CacheWrite5m      *float64 `json:"cache_write_5m"`
	CacheWrite1h      *float64 `json:"cache_write_1h"`
	// LongContext is the tier every token of a call is billed at when its
	// prompt holds more than LongContext.Above tokens.
	LongContext *model.PriceTier `json:"long_context,omitempty"`
	Source      string           `json:"source"`
	AsOf        string           `json:"as_of"`
}

// newModelRow returns the row of i.
func newModelRow(i model.Info) modelRow {
	r := modelRow{
		Name: i.Family, Fallback: i.Fallback,
		ContextWindow: i.ContextWindow, MaxOutput: i.MaxOutput, MaxInput: i.MaxInput,
		Encoding: i.Encoding, EncodingEstimated: i.EncodingEstimated,
		Source: i.Source, AsOf: i.AsOf,
	}
	if p := i.Price; p != nil {
		r.Input, r.Output = &p.Input, &p.Output
		r.CacheRead, r.CacheWrite5m, r.CacheWrite1h = nonZero(p.CacheRead), nonZero(p.CacheWrite5m), nonZero(p.CacheWrite1h)
		r.LongContext = p.LongContext
	}
	return r
}

// nonZero returns a pointer to v, or nil for 0.
func nonZero(v float64) *float64 {
	if v == 0 {
		return nil
	}
	return &v
}

func newModelsCmd(e *env) *cobra.Command {
	var asJSON, sources bool
	cmd := &cobra.Command{
		Use:   "models [NAME...]",
		Short: "List the model catalog: context windows, output limits, encodings and prices",
		Long: `Models lists the model catalog agentctx budgets and prices with: each row's
context window, output limit and input cap in tokens, the encoding its
prompts are counted with (an estimate where the provider publishes no
tokenizer), and its list prices in US dollars per million tokens: input,
output, cache read, 5-minute and 1-hour cache writes, and the long-context
tier. Given names, it shows the row each name matches (a provider prefix,
a date suffix or "[1m]" is fine), or the fallback values for a name no row
matches.

A price shown as "-" is not known: the catalog has no price for the row
(costs are then left out everywhere rather than shown as 0), or, for a
cache price, the provider gives no separate rate and those tokens are
billed at input. Each row cites the pages its figures were read from and
the date (--sources, and always in --json).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var rows []modelRow
			if len(args) == 0 {
				for _, i := range model.Catalog() {
					rows = append(rows, newModelRow(i))
				}
			}
			for _, name := range args {
				if strings.TrimSpace(name) == "" {
					return usageError{fmt.Errorf("models: an empty model name")}
				}
				r := newModelRow(model.Lookup(name))
				r.Query = name
				if r.Fallback {
					r.Name, r.Source = "", model.Warning(model.Lookup(name))
				}
				rows = append(rows, r)
			}
			if asJSON {
				enc := newJSONLines(e.stdout)
				for _, r := range rows {
					if err := enc.Encode(r); err != nil {
						return err
					}
				}
				return nil
			}
			return writeModels(e.stdout, rows, sources || len(args) > 0)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per row (JSON Lines)")
	cmd.Flags().BoolVar(&sources, "sources", false, "print each row's sources and the date they were read")
	return cmd
}

// writeModels prints rows as a table, and the rows' sources after it when
// sources is set.
func writeModels(w io.Writer, rows []modelRow, sources bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tWINDOW\tMAX OUTPUT\tENCODING\tINPUT $/M\tOUTPUT $/M\tCACHE READ\tWRITE 5M\tWRITE 1H\tLONG CONTEXT\tAS OF")
	for _, r := range rows {
		name := r.Name
		if r.Query != "" && r.Query != r.Name {
			name = r.Query + " → " + orDash(r.Name)
		}
		enc := r.Encoding
		if r.EncodingEstimated {
			enc += " (est.)"
		}
		long := "-"
		if lc := r.LongContext; lc != nil {
			long = fmt.Sprintf("> %s: %s / %s", num(lc.Above), usd(lc.Input), usd(lc.Output))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, num(r.ContextWindow), num(r.MaxOutput), enc,
			usdp(r.Input), usdp(r.Output), usdp(r.CacheRead), usdp(r.CacheWrite5m), usdp(r.CacheWrite1h), long, orDash(r.AsOf))
	}
	if err := tw.Flush(); err != nil || !sources {
		return err
	}
	fmt.Fprintln(w, "\nSources (read on the AS OF date):")
	for _, r := range rows {
		name := r.Name
		if name == "" {
			name = r.Query
		}
		fmt.Fprintf(w, "  %s: %s\n", name, r.Source)
	}
	return nil
}

// usd formats a price in dollars per million tokens: "$2.5", "$0.125".
func usd(v float64) string { return "$" + strconv.FormatFloat(v, 'f', -1, 64) }

// dollars formats an amount of US dollars: to the cent from $1, to a
// hundredth of a cent below ("$0.0421").
func dollars(v float64) string {
	if math.Abs(v) >= 1 {
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("$%.4f", v)
}

// usdp is usd of *v, "-" for nil.
func usdp(v *float64) string {
	if v == nil {
		return "-"
	}
	return usd(*v)
}

// orDash returns s, or "-" for "".
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
