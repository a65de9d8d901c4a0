//! The progress bar shown on stderr while large inputs are cast.

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
