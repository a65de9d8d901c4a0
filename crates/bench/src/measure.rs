//! The throughput table: bulk-cast throughput, measured as ratios against baselines run in
//! the same process on the same bytes and the same number of threads: a memcpy, the cast's
//! floor (its bytes moved without arithmetic), the `half` crate's slice conversions where it
//! has one, the hardware conversion alone (`bulk::bare_convert`: no status, no policy) where
//! there is one, and, on the large size of a case whose target is memcpy's speed, the larger of its
//! two buffers moved alone. Timings are medians over interleaved samples, each a batch of
//! calls lasting at least 20 ms (10 ms in a quick run); nothing here is asserted by a test.

use std::hint::black_box;

use half::slice::HalfFloatSliceExt;
use npusim_numerics::{BulkOptions, Format, RoundMode, Storage, cast_elements, kernel_name};
use rayon::prelude::*;

use crate::cases::{Alone, Case, Pair, Row, cases};
use crate::error::BenchError;
use crate::options::BenchOptions;
use crate::report::{Kind, Report};
use crate::targets;
use crate::timing::{MIN_SAMPLE_SECONDS, Sampling, Timed, median3};
use crate::workloads;
use npusim_numerics::bulk::{Touch, bare_convert, touch_elements};

/// The result of this module's steps.
type Result<T> = std::result::Result<T, BenchError>;

/// A rayon pool of `threads` threads for one measurement.
fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(BenchError::ThreadPool)
}

/// The bulk options of every timed call on `threads` thread(s): split over the pool when
/// there is more than one.
fn options_for(threads: usize) -> BulkOptions {
    BulkOptions {
        parallel: threads > 1,
        ..BulkOptions::default()
    }
}

/// One bulk cast of `case` on the `n` elements of `src` (split over the pool when `threads`
/// is more than one), into an output buffer of its own.
fn cast_call<'a>(
    case: &Case,
    src: &'a [u8],
    n: usize,
    threads: usize,
) -> impl FnMut() -> Result<()> + 'a {
    let (s, d) = (Storage::native(case.src), case.dst_storage());
    let mut dst = vec![0u8; d.bytes_for(n)];
    let policy = case.policy();
    let options = options_for(threads);
    move || {
        cast_elements(src, s, &mut dst, d, n, &policy, &options)?;
        black_box(&dst);
        Ok(())
    }
}

/// A same-run pass of `touch` over the bytes of a cast of `n` elements from `src` (storage
/// `s`) into storage `d` (split over the pool when `threads` is more than one), into an
/// output buffer of its own.
fn touch_call<'a>(
    src: &'a [u8],
    (s, d): (Storage, Storage),
    n: usize,
    touch: Touch,
    threads: usize,
) -> impl FnMut() -> Result<()> + 'a {
    let mut out = vec![0u8; d.bytes_for(n)];
    let options = options_for(threads);
    move || {
        black_box(touch_elements(src, s, &mut out, d, n, touch, &options)?);
        black_box(&out);
        Ok(())
    }
}

/// Times `case` against `base` (the same source format) on `n` elements and `threads`
/// threads, a sample of one, then one of the other: the median of the samples' speed ratios.
fn measure_pair(
    case: &Case,
    base: &Case,
    n: usize,
    threads: usize,
    sampling: Sampling,
) -> Result<Pair> {
    if case.src != base.src {
        return Err(BenchError::Unpairable {
            case: case.name(),
            base: base.name(),
        });
    }
    // each case on its own data (the same sample, with special values where a case asks)
    let src = case.source(n);
    let base_src = base.source(n);
    let (ta, tb) = pool(threads)?.install(|| -> Result<_> {
        let mut a = Timed::new(cast_call(case, &src, n, threads));
        let mut b = Timed::new(cast_call(base, &base_src, n, threads));
        a.calibrate(sampling.min_seconds)?;
        b.calibrate(sampling.min_seconds)?;
        for _ in 0..sampling.repeats {
            a.sample(sampling.repeats)?;
            b.sample(sampling.repeats)?;
        }
        Ok((a.samples, b.samples))
    })?;
    // seconds per call of the base over the case's: the case's speed relative to the base's
    let ratios: Vec<f64> = ta.iter().zip(&tb).map(|(a, b)| b / a).collect();
    Ok(Pair {
        case: case.name(),
        base: base.name(),
        elements: n,
        threads,
        speed_ratio: median3(ratios)[1],
    })
}

/// Whether the `half` crate has a slice conversion for `case`: f32 to f16 or bf16 rounded to
/// nearest even without saturation, and f16 or bf16 to f32.
fn has_half_conversion(case: &Case) -> bool {
    matches!(
        (case.src, case.dst, case.round, case.saturate),
        (
            Format::F32,
            Format::F16 | Format::BF16,
            RoundMode::Rint,
            false
        ) | (Format::F16 | Format::BF16, Format::F32, _, _)
    )
}

/// The `half` crate's slice conversion of `case` (see [`has_half_conversion`]) on the `n`
/// elements of `src`, split over `threads` threads, into buffers of its own.
fn half_call<'a>(
    case: &Case,
    src: &'a [u8],
    n: usize,
    threads: usize,
) -> impl FnMut() -> Result<()> + 'a {
    let (from, to) = (case.src, case.dst);
    let f32s: Vec<f32> = if from == Format::F32 {
        src.chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    } else {
        Vec::new()
    };
    let bits16: Vec<u16> = if from.bits() == 16 {
        src.chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect()
    } else {
        vec![0; n]
    };
    let mut h16: Vec<half::f16> = bits16.iter().map(|&b| half::f16::from_bits(b)).collect();
    let mut hb16: Vec<half::bf16> = bits16.iter().map(|&b| half::bf16::from_bits(b)).collect();
    let mut out32 = vec![0f32; if to == Format::F32 { n } else { 0 }];
    move || {
        let share = n.div_ceil(threads).max(1);
        match (from, to) {
            (Format::F32, Format::F16) => h16
                .par_chunks_mut(share)
                .zip(f32s.par_chunks(share))
                .for_each(|(h, f)| h.convert_from_f32_slice(f)),
            (Format::F32, Format::BF16) => hb16
                .par_chunks_mut(share)
                .zip(f32s.par_chunks(share))
                .for_each(|(h, f)| h.convert_from_f32_slice(f)),
            (Format::F16, Format::F32) => h16
                .par_chunks(share)
                .zip(out32.par_chunks_mut(share))
                .for_each(|(h, f)| h.convert_to_f32_slice(f)),
            _ => hb16
                .par_chunks(share)
                .zip(out32.par_chunks_mut(share))
                .for_each(|(h, f)| h.convert_to_f32_slice(f)),
        }
        black_box((&h16, &hb16, &out32));
        Ok(())
    }
}

/// Whether `case` has a bare conversion ([`bare_call`]): f32 → f16, bf16 or i8 and f16 or
/// bf16 → f32, to nearest even (saturating or not: the bare conversion has no policy).
fn has_bare_conversion(case: &Case) -> bool {
    case.round == RoundMode::Rint
        && !case.unpacked
        && matches!(
            (case.src, case.dst),
            (Format::F32, Format::F16 | Format::BF16 | Format::I8)
                | (Format::F16 | Format::BF16, Format::F32)
        )
}

/// The hardware conversion alone (`bulk::bare_convert`: the fewest instructions of the best
/// level here, no status, no policy) of `case`'s pair on the `n` elements of `src`, split,
/// aligned and streamed as the cast is, into an output buffer of its own.
fn bare_call<'a>(
    case: &Case,
    src: &'a [u8],
    n: usize,
    threads: usize,
) -> impl FnMut() -> Result<()> + 'a {
    let (from, to) = (case.src, case.dst);
    let mut out = vec![0u8; case.dst_storage().bytes_for(n)];
    let options = options_for(threads);
    move || {
        black_box(bare_convert(src, from, &mut out, to, n, &options)?);
        black_box(&out);
        Ok(())
    }
}

/// Times `case` on `n` elements and `threads` threads, interleaved with its baselines: memcpy,
/// the floor, the `half` crate where it has the conversion, the bare conversion where there
/// is one, and with `alone` the larger of the two buffers moved alone.
fn measure(case: &Case, n: usize, threads: usize, sampling: Sampling, alone: bool) -> Result<Row> {
    let s = Storage::native(case.src);
    let d = case.dst_storage();
    let src = case.source(n);
    let mut copy = vec![0u8; src.len()];
    let policy = case.policy();
    let pool = pool(threads)?;
    let half_case = has_half_conversion(case);
    let bare_case = has_bare_conversion(case);
    // the larger buffer alone: the input read, or the output written
    let (side, touch) = if s.bytes_for(n) >= d.bytes_for(n) {
        ("input", Touch::Source)
    } else {
        ("output", Touch::Destination)
    };
    let (t_cast, t_copy, t_floor, t_alone, t_half, t_bare) = pool.install(|| -> Result<_> {
        let mut cast = Timed::new(cast_call(case, &src, n, threads));
        // The cast's data movement without its arithmetic, split and streamed the same way.
        let mut floor = Timed::new(touch_call(&src, (s, d), n, Touch::Both, threads));
        let mut larger = alone.then(|| Timed::new(touch_call(&src, (s, d), n, touch, threads)));
        // The baselines run on as many threads as the cast, each on an equal share.
        let mut copied = Timed::new(|| {
            let share = src.len().div_ceil(threads).max(1);
            copy.par_chunks_mut(share)
                .zip(black_box(&src).par_chunks(share))
                .for_each(|(d, s)| d.copy_from_slice(s));
            black_box(&copy);
            Ok(())
        });
        let mut half = half_case.then(|| Timed::new(half_call(case, &src, n, threads)));
        let mut bare = bare_case.then(|| Timed::new(bare_call(case, &src, n, threads)));
        let (repeats, min) = (sampling.repeats, sampling.min_seconds);
        cast.calibrate(min)?;
        copied.calibrate(min)?;
        floor.calibrate(min)?;
        for t in larger.iter_mut().chain(half.as_mut()).chain(bare.as_mut()) {
            t.calibrate(min)?;
        }
        // Interleaved, so a change of machine load touches them all alike.
        for _ in 0..repeats {
            cast.sample(repeats)?;
            copied.sample(repeats)?;
            floor.sample(repeats)?;
            for t in larger.iter_mut().chain(half.as_mut()).chain(bare.as_mut()) {
                t.sample(repeats)?;
            }
        }
        Ok((
            cast.samples,
            copied.samples,
            floor.samples,
            larger.map(|t| t.samples),
            half.map(|h| h.samples),
            bare.map(|b| b.samples),
        ))
    })?;
    let rate = |ts: &[f64]| -> Vec<f64> { ts.iter().map(|t| n as f64 / t / 1e9).collect() };
    let cast = median3(rate(&t_cast));
    let copy_rate = median3(rate(&t_copy))[1];
    let bytes_per_elem = (s.bytes_for(n) + d.bytes_for(n)) as f64 / n as f64;
    // memcpy moves src bytes in and out: compare bytes per second of input + output.
    let copy_bytes_per_elem = 2.0 * s.bytes_for(n) as f64 / n as f64;
    let floor_rate = median3(rate(&t_floor))[1];
    let of_memcpy = |rate: f64| 100.0 * rate * bytes_per_elem / (copy_rate * copy_bytes_per_elem);
    let floor_pct_memcpy = of_memcpy(floor_rate);
    let alone = t_alone.map(|t| Alone {
        side,
        pct_memcpy: of_memcpy(median3(rate(&t))[1]),
    });
    let x_half = t_half.map(|t| cast[1] / median3(rate(&t))[1]);
    let pct_bare = t_bare.map(|t| 100.0 * cast[1] / median3(rate(&t))[1]);
    Ok(Row {
        case: case.name(),
        kernel: kernel_name(s, d, &policy),
        elements: n,
        threads,
        gelem: cast,
        bytes_per_elem,
        pct_memcpy: of_memcpy(cast[1]),
        pct_floor: 100.0 * cast[1] / floor_rate,
        floor_pct_memcpy,
        alone,
        x_half,
        pct_bare,
    })
}

/// Measures every picked case at both sizes, and the pairs the targets compare (not in a
/// JSON run), calling `progress` before each measurement (not in a JSON run).
pub(crate) fn run(options: &BenchOptions, progress: &mut dyn FnMut(&str)) -> Result<Report> {
    let repeats = options.samples();
    let big = if options.quick { 16 << 20 } else { 64 << 20 };
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    // a quick run's samples last half as long
    let sampling = Sampling {
        repeats,
        min_seconds: MIN_SAMPLE_SECONDS / if options.quick { 2.0 } else { 1.0 },
    };
    let mut rows = Vec::new();
    let picked: Vec<Case> = cases()
        .into_iter()
        .filter(|c| options.cases.is_empty() || options.cases.iter().any(|t| c.name().contains(t)))
        .collect();
    let workloads = workloads::all(options.quick, &options.cases)?;
    if picked.is_empty() && workloads.is_empty() {
        return Err(BenchError::NoCase {
            filters: options.cases.clone(),
            cases: cases().iter().map(Case::name).collect(),
        });
    }
    let mut progress = |what: String| {
        if !options.json {
            progress(&what);
        }
    };
    let sizes = [(1 << 20, 1), (big, all)];
    for case in &picked {
        for (n, threads) in sizes {
            progress(format!(
                "{:<28} {n:>9} elements, {threads} thread(s)",
                case.name()
            ));
            // the larger buffer alone where memcpy speed itself is the target (not in a
            // quick run, which stays under 30 s)
            let alone =
                !options.quick && n == big && targets::memcpy_target(&case.name()) == Some(100.0);
            rows.push(measure(case, n, threads, sampling, alone)?);
        }
    }
    let mut workload_rows = Vec::new();
    for w in workloads {
        progress(format!("{:<28} {} thread(s)", w.name, w.threads));
        workload_rows.push(workloads::measure(w, sampling)?);
    }
    if options.json {
        let items: Vec<String> = rows
            .iter()
            .map(json_row)
            .chain(workload_rows.iter().map(workloads::json_row))
            .collect();
        return Ok(Report(Kind::Json(format!("[{}]\n", items.join(",\n ")))));
    }
    // The mode, policy and packing targets' pairs whose cases both ran.
    let mut pairs = Vec::new();
    let by_name = |name: &str| picked.iter().find(|c| c.name() == name);
    for (case, base) in targets::compared() {
        let (Some(case), Some(base)) = (by_name(case), by_name(base)) else {
            continue;
        };
        for (n, threads) in sizes {
            progress(format!(
                "{} vs {}, {n} elements, {threads} thread(s)",
                case.name(),
                base.name()
            ));
            pairs.push(measure_pair(case, base, n, threads, sampling)?);
        }
    }
    let verdicts = targets::check(&rows, &pairs);
    Ok(Report(Kind::Table {
        rows,
        workloads: workload_rows,
        verdicts,
    }))
}

/// One row as a JSON object.
fn json_row(r: &Row) -> String {
    let x_half = r.x_half.map_or("null".to_string(), |x| format!("{x:.3}"));
    let pct_bare = r.pct_bare.map_or("null".to_string(), |x| format!("{x:.1}"));
    let (alone_side, alone_pct) = r
        .alone
        .as_ref()
        .map_or(("null".into(), "null".into()), |a| {
            (format!("\"{}\"", a.side), format!("{:.1}", a.pct_memcpy))
        });
    format!(
        "{{\"case\": \"{}\", \"kernel\": \"{}\", \"elements\": {}, \"threads\": {}, \"gelem_s_min\": {:.4}, \"gelem_s_median\": {:.4}, \"gelem_s_max\": {:.4}, \"gb_s_median\": {:.3}, \"pct_memcpy_median\": {:.1}, \"pct_floor_median\": {:.1}, \"floor_pct_memcpy_median\": {:.1}, \"alone_side\": {alone_side}, \"alone_pct_memcpy_median\": {alone_pct}, \"x_half_median\": {x_half}, \"pct_bare_median\": {pct_bare}}}",
        r.case,
        r.kernel,
        r.elements,
        r.threads,
        r.gelem[0],
        r.gelem[1],
        r.gelem[2],
        r.gelem[1] * r.bytes_per_elem,
        r.pct_memcpy,
        r.pct_floor,
        r.floor_pct_memcpy,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bare conversion is timed for the five pairs to nearest even (saturating or not,
    /// on every data kind), and for no other mode, pair or layout.
    #[test]
    fn the_bare_baseline_is_timed_for_the_five_pairs_to_nearest_even() {
        let with: Vec<String> = cases()
            .iter()
            .filter(|c| has_bare_conversion(c))
            .map(Case::name)
            .collect();
        for name in [
            "f32->f16 rint",
            "f32->f16 rint sat",
            "f32->f16 rint nan1%",
            "f32->bf16 rint masked",
            "f32->i8 rint",
            "f32->i8 rint nan1%",
            "f16->f32 rint",
            "bf16->f32 rint",
        ] {
            assert!(with.iter().any(|n| n == name), "{name} has no bare pass");
        }
        for name in &with {
            let pair = name.split(' ').next().unwrap_or("");
            assert!(
                ["f32->f16", "f32->bf16", "f32->i8", "f16->f32", "bf16->f32"].contains(&pair)
                    && name.contains(" rint"),
                "{name} should have no bare pass"
            );
        }
        assert!(
            !with
                .iter()
                .any(|n| n.contains("trunc") || n.contains("floor"))
        );
    }
}
