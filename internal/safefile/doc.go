// Package safefile opens and reads the files of a project that may be
// hostile, such as a cloned repository, which can hold FIFOs, devices and
// symlinks under any name.
//
// # Rules
//
//   - Only regular files are opened. The type is checked before the open
//     (so that a device is never opened, which can have effects) and again
//     on the open descriptor, which must be the file checked; the open
//     itself does not block (O_NONBLOCK), so a FIFO swapped in between
//     cannot hang the caller.
//   - Reads are capped in bytes by the caller ([ReadFile]).
//   - With [Options].Root, the file must lie inside the root once every
//     symlink is resolved ([filepath.EvalSymlinks]), and it is opened
//     through an [os.Root], so that a symlink cannot lead out of it.
//   - With [Options].NoFollow, a file that is itself a symlink is refused
//     (git reads .gitignore files that way).
//
// Errors unwrap to [ErrNotRegular], [ErrOutside] or the [fs] errors of
// the underlying calls ([fs.ErrNotExist], [fs.ErrPermission]).
package safefile
