//! The progress bars shown on stderr while large inputs are cast or quantised.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use npusim_io::CastProgress;

/// Inputs larger than this many bytes get a progress bar.
pub const BAR_THRESHOLD_BYTES: u64 = 4 * 1024 * 1024;

/// A progress bar in elements; silent when the input is small.
#[derive(Default)]
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl CastProgress for Progress {
    /// Draws a bar over `total_elements` if `input_bytes` exceeds [`BAR_THRESHOLD_BYTES`].
    fn begin(&mut self, input_bytes: u64, total_elements: u64) {
        if input_bytes <= BAR_THRESHOLD_BYTES || total_elements == 0 {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(total_elements), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {human_pos}/{human_len} elements ({eta}) {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        self.bar = Some(bar);
    }

    fn advance(&mut self, elements: usize) {
        if let Some(bar) = &self.bar {
            bar.inc(elements as u64);
        }
    }

    /// Shows the tensor being cast beside the bar.
    fn set_message(&mut self, name: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(name.to_string());
        }
    }

    /// Removes the bar from the terminal.
    fn finish(&mut self) {
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

/// A progress bar in bytes for a job that reports `(done, total)` after each tensor
/// (`npusim quantize`, `dequantize`); shown once the total exceeds [`BAR_THRESHOLD_BYTES`].
#[derive(Default)]
pub struct BytesProgress {
    bar: Option<ProgressBar>,
}

impl BytesProgress {
    /// Moves the bar to `done` of `total` bytes, drawing it on the first call with a large
    /// enough total.
    pub fn update(&mut self, done: u64, total: u64) {
        if self.bar.is_none() && total > BAR_THRESHOLD_BYTES {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:40} {binary_bytes}/{binary_total_bytes} ({eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }
}

impl Drop for BytesProgress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
