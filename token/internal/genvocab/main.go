// Command genvocab writes the binary vocabularies package token embeds
// (token/data/<encoding>.acv, see package vocabfile) from the tiktoken
// files pkoukk/tiktoken-go-loader ships. Run by go generate in package
// token; TestEmbeddedVocab checks the result against the loader's files.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentctx/agentctx/token/internal/vocabfile"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

func main() {
	out := "data"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		src, err := assets.Assets.ReadFile(name + ".tiktoken")
		if err == nil {
			var bin []byte
			if bin, err = vocabfile.Build(src); err == nil {
				err = os.WriteFile(filepath.Join(out, name+".acv"), bin, 0o644)
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "genvocab: %s: %v\n", name, err)
			os.Exit(1)
		}
	}
}
