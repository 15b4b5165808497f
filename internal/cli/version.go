package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// buildVersion is what `agentctx version` reports, from the build
// information the Go toolchain writes into the binary
// (runtime/debug.ReadBuildInfo). The JSON names are part of the command
// line's contract.
type buildVersion struct {
	// Module is the main module's path.
	Module string `json:"module"`
	// Version is the main module's version: a release tag (v1.2.3) for
	// `go install …@v1.2.3`, a pseudo-version derived from the commit for
	// a build in a git checkout, "(devel)" when the toolchain knew none.
	Version string `json:"version"`
	// Revision is the VCS commit the binary was built from, Time its
	// commit time (RFC 3339) and Modified whether the working tree had
	// changes; empty when the build recorded no VCS information (go run,
	// go test, -buildvcs=false).
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// Go is the toolchain's version, OS/Arch the build's target.
	Go   string `json:"go"`
	OS   string `json:"os"`
	Arch string `json:"arch"`
}

// readVersion returns the running binary's build information.
func readVersion() buildVersion {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return buildVersion{Module: "github.com/agentctx/agentctx", Version: "(devel)", Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	}
	return versionOf(info)
}

// versionOf reads a buildVersion from info.
func versionOf(info *debug.BuildInfo) buildVersion {
	v := buildVersion{Module: info.Main.Path, Version: info.Main.Version, Go: info.GoVersion, OS: runtime.GOOS, Arch: runtime.GOARCH}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		case "GOOS":
			v.OS = s.Value
		case "GOARCH":
			v.Arch = s.Value
		}
	}
	return v
}

// String is the version on one line: "agentctx VERSION (revision REV,
// TIME, modified; GO OS/ARCH)", leaving out what is unknown.
func (v buildVersion) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "agentctx %s (", v.Version)
	if v.Revision != "" {
		fmt.Fprintf(&b, "revision %s", v.Revision)
		if v.Time != "" {
			fmt.Fprintf(&b, ", %s", v.Time)
		}
		if v.Modified {
			b.WriteString(", modified")
		}
		b.WriteString("; ")
	}
	fmt.Fprintf(&b, "%s %s/%s)", v.Go, v.OS, v.Arch)
	return b.String()
}

func newVersionCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print agentctx's version and the commit it was built from",
		Long: `Version prints the module version, the VCS revision the binary was built
from (with its time, and "modified" when the working tree had changes) and
the Go toolchain, from the build information Go writes into the binary;
'agentctx --version' prints the same line. A binary built by go run or
with -buildvcs=false records no revision.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			v := readVersion()
			if asJSON {
				return writeJSON(e.stdout, v)
			}
			_, err := fmt.Fprintln(e.stdout, v)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object (JSON Lines)")
	return cmd
}
