package workspace

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/internal/safefile"
	"github.com/agentctx/agentctx/token"
)

// readmeNames are the README file names looked for, in order of
// preference; a folder's files match them case-insensitively.
var readmeNames = []string{"readme.md", "readme", "readme.rst", "readme.txt", "readme.markdown"}

// readmeBytes caps the bytes of a README held in memory; the lines past
// it are counted, not read.
const readmeBytes = 1 << 20

// readme builds the README block: the README of dir, else of root (file
// names in [readmeNames] order, matched case-insensitively), cut on a
// line boundary to maxTokens tokens, counted with counter. A cut README
// ends with a line "[README cut: N of M lines shown]" and a Notice says
// so; when not even its first line fits, the first line is cut on a rune
// boundary. Binary or non-UTF-8 content is skipped with a Notice. The
// README is read only when it is a regular file inside root once
// symlinks are resolved (package safefile), so that a cloned repository's
// README -> ~/.ssh/id_ed25519 stays out of the prompt: a README that is a
// FIFO, a device or a link out of the project is skipped with a Notice,
// and the next README name is tried. ok is false when there is no
// README, it is empty or skipped, or maxTokens is too small for anything.
// Block.Source is the file's slash path relative to root. It never fails.
func readme(root, dir string, counter token.Counter, maxTokens int) (Block, bool, []Notice) {
	if counter == nil {
		counter = token.Estimator{}
	}
	if maxTokens <= 0 {
		return Block{}, false, nil
	}
	files := findReadmes(dir)
	if root != dir {
		files = append(files, findReadmes(root)...)
	}
	var notes []Notice
	var (
		file, rel   string
		lines       []string
		total       int
		found, read bool
	)
	for _, file = range files {
		rel = file
		if r, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(r, "..") {
			rel = filepath.ToSlash(r)
		}
		var err error
		lines, total, err = readLines(root, file)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, safefile.ErrOutside):
			notes = append(notes, Notice{Source: rel, Message: "skipped: " + errText(file, err)})
			continue
		case err != nil:
			notes = append(notes, Notice{Source: rel, Message: errText(file, err)})
			found = true
		default:
			found, read = true, true
		}
		break
	}
	if !found || !read {
		return Block{}, false, notes
	}
	if len(lines) == 0 && total > 0 {
		return Block{}, false, append(notes, Notice{Source: rel, Message: "first line longer than 1 MiB; README skipped"})
	}
	full := strings.TrimRight(strings.Join(lines, ""), " \t\n")
	if full == "" {
		return Block{}, false, notes
	}
	b := Block{Name: BlockReadme, Source: rel}
	if len(lines) == total {
		if n := counter.Count(full); n <= maxTokens {
			b.Text, b.Tokens = full, n
			return b, true, notes
		}
	}
	b.Truncated = true
	cut := func(n int) string {
		return strings.Join(lines[:n], "") + fmt.Sprintf("[README cut: %s of %s lines shown]", commas(n), commas(total))
	}
	// The largest n in [0, len(lines)) whose text fits; lo < 0: none.
	lo, hi := -1, len(lines)
	if len(lines) < total {
		hi = len(lines) + 1 // every line held may fit
	}
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if counter.Count(cut(mid)) <= maxTokens {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo > 0 {
		b.Text = cut(lo)
	} else if len(lines) > 0 {
		b.Text = cutFirstLine(lines[0], total, counter, maxTokens)
	}
	if b.Text == "" {
		return Block{}, false, append(notes, Notice{Source: rel, Message: fmt.Sprintf("README does not fit in %d tokens; left out", maxTokens)})
	}
	b.Tokens = counter.Count(b.Text)
	shown := commas(lo) + " of " + commas(total) + " lines shown"
	if lo <= 0 {
		shown = "part of line 1 of " + commas(total) + " lines shown"
	}
	return b, true, append(notes, Notice{Source: rel, Message: fmt.Sprintf("README cut to %d tokens: %s", maxTokens, shown)})
}

// cutFirstLine cuts the first line on a rune boundary so that it and the
// cut note fit in maxTokens; "" when nothing does.
func cutFirstLine(line string, total int, counter token.Counter, maxTokens int) string {
	line = strings.TrimSuffix(line, "\n")
	note := fmt.Sprintf("…\n[README cut: part of line 1 of %s lines shown]", commas(total))
	// The largest byte length in [0, len(line)) on a rune boundary whose
	// text fits; the search is on byte offsets, moved back to a rune start.
	text := func(n int) string {
		for n > 0 && n < len(line) && !utf8.RuneStart(line[n]) {
			n--
		}
		return line[:n] + note
	}
	lo, hi := -1, len(line)
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if counter.Count(text(mid)) <= maxTokens {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo < 1 {
		return ""
	}
	return text(lo)
}

// findReadmes returns the paths of dir's READMEs in order of preference
// ([readmeNames]; among names equal but for case, byte order). Folders
// are left out; anything else is listed, for readLines to accept or
// refuse.
func findReadmes(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	type cand struct {
		rank int
		path string
	}
	var cs []cand
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if i := slices.Index(readmeNames, strings.ToLower(e.Name())); i >= 0 {
			cs = append(cs, cand{i, filepath.Join(dir, e.Name())})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(a.rank, b.rank) })
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.path
	}
	return out
}

// readLines reads a README's lines (each ending in "\n", the last one
// perhaps not; CRLF made LF; a leading byte order mark dropped), the
// whole lines within the first readmeBytes, and counts all its lines. It
// fails on a read error, on binary or non-UTF-8 content, and with package
// safefile's errors when file is not a regular file inside root.
func readLines(root, file string) (lines []string, total int, err error) {
	f, err := safefile.Open(file, safefile.Options{Root: root})
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, readmeBytes))
	if err != nil {
		return nil, 0, err
	}
	more := 0
	var one [1]byte
	if k, _ := f.Read(one[:]); k > 0 {
		// Longer than the cap: keep the whole lines, count the others.
		i := bytes.LastIndexByte(head, '\n')
		rest := head[i+1:]
		head = head[:i+1]
		more, err = countLines(io.MultiReader(bytes.NewReader(rest), bytes.NewReader(one[:]), f))
		if err != nil {
			return nil, 0, err
		}
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return nil, 0, errors.New("binary content; README skipped")
	}
	if !utf8.Valid(head) {
		return nil, 0, errors.New("not UTF-8 text; README skipped")
	}
	text := strings.TrimPrefix(string(head), "\uFEFF")
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, text)
			break
		}
		// LF line ends: the carriage returns before a newline go
		// ("\r\r\n" too, which one CRLF replacement would turn into
		// "\r\n").
		if line := strings.TrimRight(text[:i], "\r"); len(line) < i {
			lines = append(lines, line+"\n")
		} else {
			lines = append(lines, text[:i+1])
		}
		text = text[i+1:]
	}
	return lines, len(lines) + more, nil
}

// countLines counts the lines in r: its newlines, plus one when it ends
// without one.
func countLines(r io.Reader) (int, error) {
	n := 0
	buf := make([]byte, 64<<10)
	last := byte('\n')
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			if last != '\n' {
				n++
			}
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}
