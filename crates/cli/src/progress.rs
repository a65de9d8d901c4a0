//! The progress bar shown on stderr while large inputs are cast.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Inputs larger than this many bytes get a progress bar.
pub const BAR_THRESHOLD_BYTES: u64 = 4 * 1024 * 1024;

/// A progress counter in elements; silent when the input is small.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar over `total_elements` if `input_bytes` exceeds [`BAR_THRESHOLD_BYTES`], else silence.
    pub fn new(input_bytes: u64, total_elements: u64) -> Progress {
        if input_bytes <= BAR_THRESHOLD_BYTES || total_elements == 0 {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total_elements), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {human_pos}/{human_len} elements ({eta}) {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        Progress { bar: Some(bar) }
    }

    /// A progress counter that never draws.
    #[cfg(test)]
    pub fn hidden() -> Progress {
        Progress { bar: None }
    }

    /// Records `n` more elements done.
    pub fn advance(&self, n: usize) {
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
        }
    }

    /// Shows a message beside the bar (the tensor being cast).
    pub fn set_message(&self, msg: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(msg.to_string());
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
