//! A CSL source file: its name, its text, and the byte-offset to line/column map that
//! diagnostics use.

use crate::diagnostic::Diagnostic;
use crate::span::Span;

/// One source file as the compiler reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    name: String,
    text: String,
    /// Byte offset of the first byte of every line.
    line_starts: Vec<usize>,
    /// Other files appended to this one (a program's own modules): where each starts.
    parts: Vec<Part>,
}

/// A file appended to a [`SourceFile`]: its name, the byte offset and the line (0-based)
/// its text starts at.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Part {
    name: String,
    start: usize,
    first_line: usize,
}

impl SourceFile {
    /// A source file named `name` (as diagnostics print it) holding `text`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            name: name.into(),
            text,
            line_starts,
            parts: Vec::new(),
        }
    }

    /// Appends file `name` holding `text` (after a newline) and returns the byte offset its
    /// text starts at: spans at or past it are reported with `name` and lines counted from
    /// its first line.
    pub fn append(&mut self, name: &str, text: &str) -> usize {
        self.text.push('\n');
        let start = self.text.len();
        self.line_starts.push(start);
        self.text.push_str(text);
        self.line_starts
            .extend(text.match_indices('\n').map(|(i, _)| start + i + 1));
        self.parts.push(Part {
            name: name.to_string(),
            start,
            first_line: self.line_starts.len() - 1 - text.matches('\n').count(),
        });
        start
    }

    /// The file's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The 1-based line and 1-based character column of byte offset `offset` (clamped to
    /// the end of the text, and to the character boundary at or before it).
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset);
        let start = self.line_starts[line.saturating_sub(1)];
        let column = self.text[start..offset].chars().count() + 1;
        (line, column)
    }

    /// The text of 1-based line `line`, without its line break.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self
            .line_starts
            .get(line.wrapping_sub(1))
            .copied()
            .unwrap_or(0);
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |&next| next - 1);
        let text = self.text.get(start..end.max(start)).unwrap_or("");
        text.strip_suffix('\r').unwrap_or(text)
    }

    /// A diagnostic `message` pointing at the start of `span`.
    pub fn diagnostic(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        let (line, column) = self.line_col(span.start);
        let (file, first_line) = self
            .parts
            .iter()
            .rev()
            .find(|p| p.start <= span.start)
            .map_or((self.name.as_str(), 0), |p| (p.name.as_str(), p.first_line));
        Diagnostic {
            file: file.to_string(),
            line: line - first_line,
            column,
            message: message.into(),
            source_line: self.line_text(line).to_string(),
        }
    }
}
