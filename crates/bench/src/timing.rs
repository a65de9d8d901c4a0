//! How the benchmark times a call: samples that are batches of calls lasting at least
//! [`Sampling::min_seconds`] ([`MIN_SAMPLE_SECONDS`], or half that in a quick run), taken in
//! turn from every operation of a measurement (interleaved, so that a change of machine speed
//! touches them all alike), summed up by their medians.

use std::time::Instant;

use crate::error::BenchError;

/// What a timed call returns.
type Result<T> = std::result::Result<T, BenchError>;

/// The smallest, median and largest of `v` (zeros when it is empty).
pub(crate) fn median3(mut v: Vec<f64>) -> [f64; 3] {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return [0.0; 3];
    }
    [v[0], v[n / 2], v[n - 1]]
}

/// Shortest time one sample lasts: a call on 1 Mi elements takes well under a millisecond,
/// so a sample times a batch of calls long enough that timer and scheduler noise stay small.
pub(crate) const MIN_SAMPLE_SECONDS: f64 = 0.02;

/// How a measurement samples: how many samples per timed operation, each lasting at least
/// how long.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sampling {
    /// Samples per operation.
    pub(crate) repeats: usize,
    /// Shortest sample, in seconds.
    pub(crate) min_seconds: f64,
}

/// Most calls in one sample (a bound for calls too short to time).
const MAX_BATCH: usize = 100_000;

/// Calls per sample for a call that took `single` seconds: enough for a sample of
/// `min_seconds`, at least one.
fn batch_for(single: f64, min_seconds: f64) -> usize {
    if single <= 0.0 {
        return MAX_BATCH;
    }
    ((min_seconds / single).ceil() as usize).clamp(1, MAX_BATCH)
}

/// One timed operation of a measurement: how many calls one of its samples makes, and the
/// seconds per call of every sample.
pub(crate) struct Timed<'a> {
    call: Box<dyn FnMut() -> Result<()> + 'a>,
    batch: usize,
    /// Seconds per call, one entry per sample.
    pub(crate) samples: Vec<f64>,
}

impl<'a> Timed<'a> {
    /// `call`, not yet calibrated or sampled.
    pub(crate) fn new(call: impl FnMut() -> Result<()> + 'a) -> Timed<'a> {
        Timed {
            call: Box::new(call),
            batch: 1,
            samples: Vec::new(),
        }
    }

    /// One untimed call (pages, caches, the kernel's lookup table), then one timed call that
    /// sets the batch size for samples of `min_seconds`; a timed call long enough to be a
    /// sample on its own is kept as the first sample.
    pub(crate) fn calibrate(&mut self, min_seconds: f64) -> Result<()> {
        (self.call)()?;
        let t = Instant::now();
        (self.call)()?;
        let single = t.elapsed().as_secs_f64();
        self.batch = batch_for(single, min_seconds);
        if single >= min_seconds {
            self.samples.push(single);
        }
        Ok(())
    }

    /// One more sample unless there are `repeats` already: a batch of calls, recorded as
    /// seconds per call.
    pub(crate) fn sample(&mut self, repeats: usize) -> Result<()> {
        if self.samples.len() >= repeats {
            return Ok(());
        }
        let t = Instant::now();
        for _ in 0..self.batch {
            (self.call)()?;
        }
        self.samples
            .push(t.elapsed().as_secs_f64() / self.batch as f64);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_lasts_at_least_the_minimum_sample_and_no_call_more_than_needed() {
        for min in [MIN_SAMPLE_SECONDS, MIN_SAMPLE_SECONDS / 2.0] {
            for single in [1.3e-6, 3.1e-5, 4.9e-4, 1.7e-3, 7e-3, 0.019] {
                let b = batch_for(single, min);
                assert!(b as f64 * single >= min, "{single}: {b}");
                assert!(((b - 1) as f64) * single < min, "{single}: {b}");
            }
            assert_eq!(batch_for(min, min), 1);
            assert_eq!(batch_for(1.0, min), 1);
            assert_eq!(batch_for(0.0, min), MAX_BATCH);
            assert_eq!(batch_for(1e-12, min), MAX_BATCH);
        }
    }
}
