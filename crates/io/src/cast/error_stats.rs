//! Error statistics of a cast: how far the results are from their inputs, accumulated chunk by
//! chunk during the cast and merged across chunks and tensors.
//!
//! For every element the source and result codes are decoded with
//! [`npusim_numerics::Format::decode`] (through a table for formats of at most 16 bits) and
//! compared in `f64`:
//!
//! * inputs that are NaN or ±Inf are counted (`nan_inputs`, `inf_inputs`) and take no part in
//!   the error figures; so do finite inputs whose result is NaN or ±Inf;
//! * over the remaining `measured` elements: the largest absolute error `|y - x|`, the largest
//!   relative error `|y - x| / |x|` (over `x != 0`), the RMSE `sqrt(Σ(y - x)² / measured)` and
//!   the SQNR `10 log10(Σx² / Σ(y - x)²)` in dB (infinite when every result is exact);
//! * counts over all elements: `exact` (a result equal to its input, NaN staying NaN
//!   included), `flushed_to_zero` (a non-zero finite input whose result is zero), `saturated`
//!   (an input beyond the destination's largest finite magnitude, ±Inf included, whose result
//!   is that magnitude), `nan` and `inf` results.
//!
//! Sums are `f64`, so a merged figure equals the one-shot figure up to the rounding of the
//! sums. Inputs of 64-bit integer formats beyond 2^53 are compared after rounding to `f64`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use npusim_numerics::{Format, NumericsError, Storage};

/// What a cast did to the values, in numbers; [`ErrorStats::merge`] combines chunks.
#[derive(Clone, Copy, Debug, Default)]
pub struct ErrorStats {
    /// Elements seen.
    pub total: u64,
    /// Results equal to their input (a NaN that stays NaN included).
    pub exact: u64,
    /// Non-zero finite inputs whose result is zero.
    pub flushed_to_zero: u64,
    /// Inputs beyond the destination's finite range (±Inf included) whose result is its
    /// largest finite magnitude.
    pub saturated: u64,
    /// Results that are NaN.
    pub nan: u64,
    /// Results that are ±Inf.
    pub inf: u64,
    /// Inputs that are NaN.
    pub nan_inputs: u64,
    /// Inputs that are ±Inf.
    pub inf_inputs: u64,
    /// Elements with a finite input and a finite result: those the error figures cover.
    pub measured: u64,
    /// Largest `|y - x|`.
    pub max_abs_error: f64,
    /// Largest `|y - x| / |x|` over `x != 0`.
    pub max_rel_error: f64,
    /// `Σ (y - x)²`.
    pub sum_sq_error: f64,
    /// `Σ x²`.
    pub sum_sq_signal: f64,
}

impl PartialEq for ErrorStats {
    /// Equal counts and bit-identical figures.
    fn eq(&self, o: &ErrorStats) -> bool {
        let counts = |s: &ErrorStats| {
            [
                s.total,
                s.exact,
                s.flushed_to_zero,
                s.saturated,
                s.nan,
                s.inf,
                s.nan_inputs,
                s.inf_inputs,
                s.measured,
            ]
        };
        let figures = |s: &ErrorStats| {
            [
                s.max_abs_error,
                s.max_rel_error,
                s.sum_sq_error,
                s.sum_sq_signal,
            ]
            .map(f64::to_bits)
        };
        counts(self) == counts(o) && figures(self) == figures(o)
    }
}

impl Eq for ErrorStats {}

impl ErrorStats {
    /// Adds another chunk's (or tensor's) statistics.
    pub fn merge(&mut self, o: &ErrorStats) {
        self.total += o.total;
        self.exact += o.exact;
        self.flushed_to_zero += o.flushed_to_zero;
        self.saturated += o.saturated;
        self.nan += o.nan;
        self.inf += o.inf;
        self.nan_inputs += o.nan_inputs;
        self.inf_inputs += o.inf_inputs;
        self.measured += o.measured;
        self.max_abs_error = self.max_abs_error.max(o.max_abs_error);
        self.max_rel_error = self.max_rel_error.max(o.max_rel_error);
        self.sum_sq_error += o.sum_sq_error;
        self.sum_sq_signal += o.sum_sq_signal;
    }

    /// Root-mean-square error over the measured elements (0 when there are none).
    pub fn rmse(&self) -> f64 {
        if self.measured == 0 {
            return 0.0;
        }
        (self.sum_sq_error / self.measured as f64).sqrt()
    }

    /// Signal-to-quantization-noise ratio in dB (`+inf` when there is no error; NaN when there
    /// is neither signal nor error).
    pub fn sqnr_db(&self) -> f64 {
        if self.sum_sq_error == 0.0 {
            return if self.sum_sq_signal == 0.0 {
                f64::NAN
            } else {
                f64::INFINITY
            };
        }
        10.0 * (self.sum_sq_signal / self.sum_sq_error).log10()
    }

    /// Accumulates `count` elements cast from `src` (stored as `s`) into `dst` (stored as `d`);
    /// a buffer too short for `count` elements is an error.
    pub fn accumulate(
        &mut self,
        src: &[u8],
        s: Storage,
        dst: &[u8],
        d: Storage,
        count: usize,
    ) -> Result<(), NumericsError> {
        s.check_len(src.len(), count, "source")?;
        d.check_len(dst.len(), count, "destination")?;
        let from = Decoder::new(s.format());
        let to = Decoder::new(d.format());
        let max = d.format().max_finite();
        // The common case, f32 into an unpacked format of 1 or 2 bytes, reads the codes
        // straight from the bytes; the elements are added in the same order either way.
        let f32_in = s.format() == Format::F32 && !s.is_packed();
        // A local copy, so that the sums stay in registers instead of going through memory
        // at every element.
        let mut acc = *self;
        match (f32_in, &to, d.is_packed(), d.format().unpacked_bytes()) {
            (true, Decoder::Table(t), false, 1) => {
                // As `Storage::read`: a one-per-byte code is its format's low bits.
                let m = d.format().code_mask() as u8;
                for (x, &y) in src.chunks_exact(4).zip(dst).take(count) {
                    let x = f32::from_le_bytes([x[0], x[1], x[2], x[3]]);
                    let y = t.get(usize::from(y & m)).copied().unwrap_or(f64::NAN);
                    acc.add(f64::from(x), y, max);
                }
            }
            (true, Decoder::Table(t), false, 2) => {
                for (x, y) in src.chunks_exact(4).zip(dst.chunks_exact(2)).take(count) {
                    let x = f32::from_le_bytes([x[0], x[1], x[2], x[3]]);
                    let y = usize::from(u16::from_le_bytes([y[0], y[1]]));
                    let y = t.get(y).copied().unwrap_or(f64::NAN);
                    acc.add(f64::from(x), y, max);
                }
            }
            _ => {
                for i in 0..count {
                    let x = from.value(s.read(src, i));
                    let y = to.value(d.read(dst, i));
                    acc.add(x, y, max);
                }
            }
        }
        *self = acc;
        Ok(())
    }

    /// Accumulates one element: input `x`, result `y`, destination's largest finite `max`.
    #[inline(always)]
    pub fn add(&mut self, x: f64, y: f64, max: f64) {
        self.total += 1;
        if y.is_nan() {
            self.nan += 1;
        } else if y.is_infinite() {
            self.inf += 1;
        }
        if x.is_nan() {
            self.nan_inputs += 1;
            self.exact += u64::from(y.is_nan());
            return;
        }
        if y.is_finite() && x.abs() > max && y.abs() == max && x.signum() == y.signum() {
            self.saturated += 1;
        }
        if x.is_infinite() {
            self.inf_inputs += 1;
            self.exact += u64::from(x == y);
            return;
        }
        if !y.is_finite() {
            return;
        }
        self.measured += 1;
        if x == y {
            self.exact += 1;
        }
        if x != 0.0 && y == 0.0 {
            self.flushed_to_zero += 1;
        }
        let err = (y - x).abs();
        self.max_abs_error = self.max_abs_error.max(err);
        if x != 0.0 {
            self.max_rel_error = self.max_rel_error.max(err / x.abs());
        }
        self.sum_sq_error += err * err;
        self.sum_sq_signal += x * x;
    }
}

/// Code → `f64` for one format: direct for f32/f64, a table for formats of at most 16 bits.
enum Decoder {
    F32,
    F64,
    Table(Arc<[f64]>),
    Any(Format),
}

/// The value of every code of `f` (at most 16 bits), built once per format: a streamed cast
/// accumulates chunk by chunk, and 2^16 decodes per chunk would cost more than the chunk.
fn value_table(f: Format) -> Arc<[f64]> {
    static TABLES: OnceLock<Mutex<HashMap<Format, Arc<[f64]>>>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| Mutex::new(HashMap::new()));
    if let Ok(map) = tables.lock()
        && let Some(t) = map.get(&f)
    {
        return Arc::clone(t);
    }
    let t: Arc<[f64]> = (0..1u64 << f.bits())
        .map(|c| f.decode(c).to_f64())
        .collect();
    if let Ok(mut map) = tables.lock() {
        map.insert(f, Arc::clone(&t));
    }
    t
}

impl Decoder {
    fn new(format: Format) -> Decoder {
        match format {
            Format::F32 => Decoder::F32,
            Format::F64 => Decoder::F64,
            f if f.bits() <= 16 => Decoder::Table(value_table(f)),
            f => Decoder::Any(f),
        }
    }

    fn value(&self, code: u64) -> f64 {
        match self {
            Decoder::F32 => f64::from(f32::from_bits(code as u32)),
            Decoder::F64 => f64::from_bits(code),
            Decoder::Table(t) => t.get(code as usize).copied().unwrap_or(f64::NAN),
            Decoder::Any(f) => f.decode(code).to_f64(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use npusim_numerics::{BulkOptions, CastPolicy, RoundMode, cast_elements};

    /// The vectors of tools/make_error_stats_vectors.py: f32 inputs cast with ml_dtypes and
    /// the statistics numpy computed from the results.
    const VECTORS: &str = include_str!("../../tests/vectors/error_stats.json");

    fn stats_of(xs: &[u32], to: Format, chunk: usize) -> ErrorStats {
        let src: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        let s = Storage::native(Format::F32);
        let d = Storage::native(to);
        let mut dst = vec![0u8; d.bytes_for(xs.len())];
        cast_elements(
            &src,
            s,
            &mut dst,
            d,
            xs.len(),
            &CastPolicy::new(RoundMode::Rint),
            &BulkOptions::default(),
        )
        .unwrap();
        let mut total = ErrorStats::default();
        for start in (0..xs.len()).step_by(chunk) {
            let n = chunk.min(xs.len() - start);
            let mut part = ErrorStats::default();
            part.accumulate(
                &src[4 * start..4 * (start + n)],
                s,
                &dst[d.bytes_for(start)..d.bytes_for(start + n)],
                d,
                n,
            )
            .unwrap();
            total.merge(&part);
        }
        total
    }

    fn close(got: f64, want: f64) -> bool {
        (got.is_infinite() && got == want) || (got - want).abs() <= 1e-9 * want.abs().max(1e-300)
    }

    #[test]
    fn statistics_match_numpy_and_ml_dtypes() {
        let doc: serde_json::Value = serde_json::from_str(VECTORS).unwrap();
        let cases = doc["cases"].as_array().unwrap();
        assert!(cases.len() >= 2);
        for case in cases {
            let to = Format::parse_name(case["to"].as_str().unwrap()).unwrap();
            let xs: Vec<u32> = case["f32_bits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as u32)
                .collect();
            let want = &case["stats"];
            for chunk in [xs.len(), 8] {
                let got = stats_of(&xs, to, chunk);
                let name = format!("{} (chunks of {chunk})", case["name"]);
                let count = |k: &str| want[k].as_u64().unwrap();
                assert_eq!(got.total, count("total"), "{name}");
                assert_eq!(got.exact, count("exact"), "{name}");
                assert_eq!(got.flushed_to_zero, count("flushed_to_zero"), "{name}");
                assert_eq!(got.saturated, count("saturated"), "{name}");
                assert_eq!(got.nan, count("nan"), "{name}");
                assert_eq!(got.inf, count("inf"), "{name}");
                assert_eq!(got.measured, count("measured"), "{name}");
                let fig = |k: &str| want[k].as_f64().unwrap_or(f64::INFINITY);
                assert!(
                    close(got.max_abs_error, fig("max_abs_error")),
                    "{name}: {got:?}"
                );
                assert!(
                    close(got.max_rel_error, fig("max_rel_error")),
                    "{name}: {got:?}"
                );
                assert!(close(got.rmse(), fig("rmse")), "{name}: {got:?}");
                assert!(close(got.sqnr_db(), fig("sqnr_db")), "{name}: {got:?}");
            }
        }
    }

    #[test]
    fn the_f32_fast_path_equals_element_by_element_decoding() {
        // Every kind of input (NaN, ±Inf, overflow, subnormals, zeros, ordinary values) into
        // 1- and 2-byte destinations, with stray high bits in one-per-byte 4-bit results.
        let mut xs: Vec<u32> = vec![
            0x7FC0_0000,
            0xFF80_0000,
            0x7F80_0000,
            0x4780_0000,
            0xC780_0000,
            0x0000_0001,
            0x8000_0000,
            0,
        ];
        let mut x = 0x1234_5678u32;
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            xs.push(x);
        }
        let src: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        let s = Storage::native(Format::F32);
        let n = xs.len();
        for to in [
            Format::BF16,
            Format::F16,
            Format::F8E4M3FN,
            Format::I8,
            Format::F4E2M1,
        ] {
            let d = Storage::new(to, npusim_numerics::Layout::Unpacked).unwrap();
            let mut dst = vec![0u8; d.bytes_for(n)];
            cast_elements(
                &src,
                s,
                &mut dst,
                d,
                n,
                &CastPolicy::new(RoundMode::Rint),
                &BulkOptions::default(),
            )
            .unwrap();
            if to.bits() < 8 {
                dst.iter_mut().step_by(3).for_each(|b| *b |= 0xF0);
            }
            let mut fast = ErrorStats::default();
            fast.accumulate(&src, s, &dst, d, n).unwrap();
            let mut want = ErrorStats::default();
            let (from, into) = (Decoder::new(Format::F32), Decoder::new(to));
            for i in 0..n {
                want.add(
                    from.value(s.read(&src, i)),
                    into.value(d.read(&dst, i)),
                    to.max_finite(),
                );
            }
            assert_eq!(fast, want, "{to}");
            assert!(want.nan_inputs > 0 && want.measured > 0, "{to}: {want:?}");
        }
    }

    #[test]
    fn special_inputs_are_counted_apart() {
        let mut st = ErrorStats::default();
        st.add(f64::NAN, f64::NAN, 448.0);
        st.add(f64::INFINITY, 448.0, 448.0);
        st.add(1000.0, f64::NAN, 448.0);
        st.add(1e-9, 0.0, 448.0);
        st.add(2.0, 2.0, 448.0);
        assert_eq!(
            (
                st.total,
                st.exact,
                st.nan,
                st.saturated,
                st.flushed_to_zero,
                st.measured
            ),
            (5, 2, 2, 1, 1, 2)
        );
        assert_eq!((st.nan_inputs, st.inf_inputs), (1, 1));
        assert_eq!(st.max_rel_error, 1.0);
        assert!(ErrorStats::default().sqnr_db().is_nan());
    }
}
