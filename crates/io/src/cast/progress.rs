//! How a long cast reports its progress to whoever shows it (a terminal bar, a log, nothing).

/// Progress callbacks of a file cast, in elements. Every method does nothing by default.
///
/// A cast calls [`begin`](CastProgress::begin) once when it knows how much it will do, then
/// [`set_message`](CastProgress::set_message) before each tensor of a multi-tensor file and
/// [`advance`](CastProgress::advance) after each chunk, and [`finish`](CastProgress::finish)
/// before the output is written.
pub trait CastProgress {
    /// The cast starts: the input has `input_bytes` bytes, `total_elements` will be cast.
    fn begin(&mut self, _input_bytes: u64, _total_elements: u64) {}
    /// `elements` more elements are done.
    fn advance(&mut self, _elements: usize) {}
    /// The next elements belong to tensor `name`.
    fn set_message(&mut self, _name: &str) {}
    /// All elements are done.
    fn finish(&mut self) {}
}

/// Progress that is not shown.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl CastProgress for NoProgress {}
