//! A compiler message tied to a place in a source file, printed as `cslc` prints its
//! errors: `file:line:col: error: message`, then the source line and a caret under the
//! column.

use std::fmt;

use thiserror::Error;

/// An error at a line and column of a named source file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub struct Diagnostic {
    /// The file's name as given to the compiler.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based character column.
    pub column: usize,
    /// What is wrong, in one sentence without a trailing period.
    pub message: String,
    /// The text of the line, shown under the message.
    pub source_line: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.column, self.message
        )?;
        // Tabs stay tabs under the caret so that it lines up whatever the tab width.
        let pad: String = self
            .source_line
            .chars()
            .take(self.column.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        writeln!(f, "{}", self.source_line)?;
        write!(f, "{pad}^")
    }
}
