package tooluse

import "strings"

// Codex apply_patch file headers (codex-rs/apply-patch/
// apply_patch_tool_instructions.md): Add File creates, Update File edits,
// Delete File deletes, and Move to (after an Update File) writes the new
// path and deletes the old one.
const (
	patchAdd    = "*** Add File: "
	patchUpdate = "*** Update File: "
	patchDelete = "*** Delete File: "
	patchMove   = "*** Move to: "
)

// patchFiles returns the files an apply_patch text names, in order, with
// what the patch does to each. Headers are recognised at the start of a
// line, leading blanks allowed.
func patchFiles(patch string) []Write {
	var out []Write
	last := -1 // index in out of the last Update File
	for line := range strings.Lines(patch) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "*** ") {
			continue
		}
		var w Write
		switch {
		case strings.HasPrefix(line, patchAdd):
			w = Write{strings.TrimSpace(line[len(patchAdd):]), OpCreate}
		case strings.HasPrefix(line, patchUpdate):
			w = Write{strings.TrimSpace(line[len(patchUpdate):]), OpEdit}
		case strings.HasPrefix(line, patchDelete):
			w = Write{strings.TrimSpace(line[len(patchDelete):]), OpDelete}
		case strings.HasPrefix(line, patchMove):
			w = Write{strings.TrimSpace(line[len(patchMove):]), OpWrite}
			if last >= 0 {
				out[last].Op = OpDelete
			}
		default:
			continue
		}
		if w.Path == "" {
			continue
		}
		if w.Op == OpEdit {
			last = len(out)
		} else {
			last = -1
		}
		out = append(out, w)
	}
	return out
}
