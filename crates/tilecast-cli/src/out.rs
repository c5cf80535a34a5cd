//! Standard output that a closed pipe ends quietly: `tilecast bench --list | head` stops when
//! `head` has read enough, which is no error. `println!` would panic there instead.

use std::io::{self, Write};

/// Writes `text` and a newline to standard output.
pub fn line(text: impl std::fmt::Display) -> io::Result<()> {
    writeln!(io::stdout().lock(), "{text}")
}

/// Writes `text` as it is to standard output.
pub fn text(text: impl std::fmt::Display) -> io::Result<()> {
    write!(io::stdout().lock(), "{text}")
}

/// Whether `e` is standard output's reader having gone away (a closed pipe).
pub fn closed_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}
