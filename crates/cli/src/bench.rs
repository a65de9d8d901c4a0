//! `npusim bench`: bulk-cast throughput, measured as ratios against baselines run in the same
//! process on the same bytes and the same number of threads (a memcpy, and the `half` crate's
//! slice conversions where it has one). Timings are medians over interleaved samples, each a batch of calls lasting at least
//! 20 ms; nothing here is asserted by a test.

use std::hint::black_box;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use half::slice::HalfFloatSliceExt;
use npusim_numerics::{
    BulkOptions, CastPolicy, Format, Layout, RoundMode, Storage, cast_elements, kernel_name,
};
use rayon::prelude::*;

/// Options of `npusim bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Print the rows as one JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    /// A short run (fewer repeats, 16 Mi instead of 64 Mi elements for the parallel size).
    #[arg(long)]
    pub quick: bool,
    /// Only the cases whose name contains this text (e.g. `f16->f8e4m3fn`); repeatable.
    #[arg(long = "case", value_name = "TEXT")]
    pub cases: Vec<String>,
    /// Samples per measurement (default 7, 3 with --quick); each sample times a batch of calls
    /// lasting at least 20 ms.
    #[arg(long, value_name = "N")]
    pub repeats: Option<usize>,
    /// Instead of the table: time each case on 2^12 to 2^22 elements on one thread and split
    /// over all threads, and print from which size splitting pays.
    #[arg(long)]
    pub crossover: bool,
}

/// One benchmark case: a cast between two formats under a policy.
pub(crate) struct Case {
    /// Source format.
    pub(crate) src: Format,
    dst: Format,
    round: RoundMode,
    saturate: bool,
    /// A 4-bit destination one element per byte instead of packed.
    unpacked: bool,
}

impl Case {
    pub(crate) fn name(&self) -> String {
        let sat = if self.saturate { " sat" } else { "" };
        let unpacked = if self.unpacked { " unpacked" } else { "" };
        format!("{}->{} {}{sat}{unpacked}", self.src, self.dst, self.round)
    }

    pub(crate) fn dst_storage(&self) -> Storage {
        if self.unpacked {
            Storage::new(self.dst, Layout::Unpacked).unwrap_or(Storage::native(self.dst))
        } else {
            Storage::native(self.dst)
        }
    }

    pub(crate) fn policy(&self) -> CastPolicy {
        if self.saturate {
            CastPolicy::saturating(self.round)
        } else {
            CastPolicy::new(self.round)
        }
    }
}

pub(crate) fn cases() -> Vec<Case> {
    let c = |src, dst, round, saturate| Case {
        src,
        dst,
        round,
        saturate,
        unpacked: false,
    };
    let u = |src, dst, round| Case {
        src,
        dst,
        round,
        saturate: false,
        unpacked: true,
    };
    use Format::*;
    use RoundMode::*;
    vec![
        c(F32, F16, Rint, false),
        c(F32, BF16, Rint, false),
        c(F32, F8E4M3FN, Rint, true),
        c(F32, F8E5M2, Rint, false),
        c(F32, I8, Rint, false),
        c(F32, F16, Trunc, false),
        c(F32, BF16, Floor, false),
        c(F32, F8E4M3FN, Odd, true),
        c(F32, F16, Rint, true),
        c(F32, F8E5M2, Rint, true),
        c(F32, F8E8M0, Rint, false),
        c(F32, HiF8, Rint, false),
        c(F32, I16, Rint, false),
        c(F32, F4E2M1, Rint, false),
        u(F32, F4E2M1, Rint),
        c(F32, I4, Rint, false),
        u(F32, I4, Rint),
        c(F16, F32, Rint, false),
        c(BF16, F32, Rint, false),
        c(F8E4M3FN, F32, Rint, false),
        c(F16, F8E4M3FN, Rint, true),
        c(I4, F32, Rint, false),
        c(F8E5M2, F32, Rint, false),
        c(HiF8, F32, Rint, false),
        c(F8E8M0, F32, Rint, false),
        c(F4E2M1, F32, Rint, false),
        c(I8, F32, Rint, false),
        c(U8, F32, Rint, false),
        c(I16, F32, Rint, false),
        c(U16, F32, Rint, false),
        c(F32, U8, Rint, false),
        c(F32, F4E1M2, Rint, false),
        c(F64, F16, Rint, false),
        c(F64, BF16, Rint, false),
        c(F64, F32, Rint, false),
        c(F64, F32, Floor, false),
        c(I32, F32, Rint, false),
        c(I32, F32, Floor, false),
    ]
}

/// One measured row.
pub(crate) struct Row {
    /// The case's name.
    pub(crate) case: String,
    /// The kernel that ran.
    pub(crate) kernel: &'static str,
    /// Elements per call.
    pub(crate) elements: usize,
    /// Threads of the pool.
    pub(crate) threads: usize,
    /// Gelem/s: min, median, max over the repeats.
    pub(crate) gelem: [f64; 3],
    /// Input + output bytes per element.
    pub(crate) bytes_per_elem: f64,
    /// Median bytes/s as a percentage of the same-run memcpy's.
    pub(crate) pct_memcpy: f64,
    /// Median speed over the `half` crate's, where it has the conversion.
    pub(crate) x_half: Option<f64>,
}

/// Deterministic pseudo-random source codes: f32 and f64 values spread over the binades
/// 2^-20 to 2^11, other formats every code.
pub(crate) fn source(fmt: Format, n: usize) -> Vec<u8> {
    let s = Storage::native(fmt);
    let mut buf = vec![0u8; s.bytes_for(n)];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let code = if fmt == Format::F32 {
            // sign, exponent 2^-20..2^11, random mantissa
            let e = 107 + (x >> 40) % 32;
            ((x & 1) << 31) | (e << 23) | ((x >> 8) & 0x7F_FFFF)
        } else if fmt == Format::F64 {
            // the same binades as the f32 values, a random 52-bit mantissa
            let e = 1003 + (x >> 56) % 32;
            let m = (x >> 1) ^ (x << 23);
            ((x & 1) << 63) | (e << 52) | (m & 0xF_FFFF_FFFF_FFFF)
        } else {
            x & fmt.code_mask()
        };
        s.write(&mut buf, i, code);
    }
    buf
}

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
const MIN_SAMPLE_SECONDS: f64 = 0.02;

/// Most calls in one sample (a bound for calls too short to time).
const MAX_BATCH: usize = 100_000;

/// Calls per sample for a call that took `single` seconds: enough for
/// [`MIN_SAMPLE_SECONDS`], at least one.
fn batch_for(single: f64) -> usize {
    if single <= 0.0 {
        return MAX_BATCH;
    }
    ((MIN_SAMPLE_SECONDS / single).ceil() as usize).clamp(1, MAX_BATCH)
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
    pub(crate) fn new(call: impl FnMut() -> Result<()> + 'a) -> Timed<'a> {
        Timed {
            call: Box::new(call),
            batch: 1,
            samples: Vec::new(),
        }
    }

    /// One untimed call (pages, caches, the kernel's lookup table), then one timed call that
    /// sets the batch size; a timed call long enough to be a sample on its own is kept as the
    /// first sample.
    pub(crate) fn calibrate(&mut self) -> Result<()> {
        (self.call)()?;
        let t = Instant::now();
        (self.call)()?;
        let single = t.elapsed().as_secs_f64();
        self.batch = batch_for(single);
        if single >= MIN_SAMPLE_SECONDS {
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

fn measure(case: &Case, n: usize, threads: usize, repeats: usize) -> Result<Row> {
    let s = Storage::native(case.src);
    let d = case.dst_storage();
    let src = source(case.src, n);
    let mut dst = vec![0u8; d.bytes_for(n)];
    let mut copy = vec![0u8; src.len()];
    let policy = case.policy();
    let options = BulkOptions {
        parallel: threads > 1,
        ..BulkOptions::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start the benchmark's thread pool")?;
    // The half crate's slice conversion, where it has one for this case.
    let half_case = matches!(
        (case.src, case.dst, case.round, case.saturate),
        (
            Format::F32,
            Format::F16 | Format::BF16,
            RoundMode::Rint,
            false
        ) | (Format::F16 | Format::BF16, Format::F32, _, _)
    );
    let f32s: Vec<f32> = if case.src == Format::F32 {
        src.chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    } else {
        Vec::new()
    };
    let bits16: Vec<u16> = if case.src.bits() == 16 {
        src.chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect()
    } else {
        vec![0; if half_case { n } else { 0 }]
    };
    let mut h16: Vec<half::f16> = bits16.iter().map(|&b| half::f16::from_bits(b)).collect();
    let mut hb16: Vec<half::bf16> = bits16.iter().map(|&b| half::bf16::from_bits(b)).collect();
    let mut out32 = vec![
        0f32;
        if half_case && case.dst == Format::F32 {
            n
        } else {
            0
        }
    ];
    let (t_cast, t_copy, t_half) = pool.install(|| -> Result<_> {
        let mut cast = Timed::new(|| {
            cast_elements(&src, s, &mut dst, d, n, &policy, &options)?;
            black_box(&dst);
            Ok(())
        });
        // The baselines run on as many threads as the cast, each on an equal share.
        let mut copied = Timed::new(|| {
            let share = src.len().div_ceil(threads).max(1);
            copy.par_chunks_mut(share)
                .zip(black_box(&src).par_chunks(share))
                .for_each(|(d, s)| d.copy_from_slice(s));
            black_box(&copy);
            Ok(())
        });
        let mut half = half_case.then(|| {
            Timed::new(|| {
                let share = n.div_ceil(threads).max(1);
                match (case.src, case.dst) {
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
            })
        });
        cast.calibrate()?;
        copied.calibrate()?;
        if let Some(h) = half.as_mut() {
            h.calibrate()?;
        }
        // Interleaved, so a change of machine load touches all three alike.
        for _ in 0..repeats {
            cast.sample(repeats)?;
            copied.sample(repeats)?;
            if let Some(h) = half.as_mut() {
                h.sample(repeats)?;
            }
        }
        Ok((cast.samples, copied.samples, half.map(|h| h.samples)))
    })?;
    let rate = |ts: &[f64]| -> Vec<f64> { ts.iter().map(|t| n as f64 / t / 1e9).collect() };
    let cast = median3(rate(&t_cast));
    let copy_rate = median3(rate(&t_copy))[1];
    let bytes_per_elem = (s.bytes_for(n) + d.bytes_for(n)) as f64 / n as f64;
    // memcpy moves src bytes in and out: compare bytes per second of input + output.
    let copy_bytes_per_elem = 2.0 * s.bytes_for(n) as f64 / n as f64;
    let pct_memcpy = 100.0 * cast[1] * bytes_per_elem / (copy_rate * copy_bytes_per_elem);
    let x_half = t_half.map(|t| cast[1] / median3(rate(&t))[1]);
    Ok(Row {
        case: case.name(),
        kernel: kernel_name(s, d, &policy),
        elements: n,
        threads,
        gelem: cast,
        bytes_per_elem,
        pct_memcpy,
        x_half,
    })
}

/// Runs `npusim bench`.
pub fn run(args: BenchArgs) -> Result<ExitCode> {
    let repeats = args
        .repeats
        .unwrap_or(if args.quick { 3 } else { 7 })
        .max(1);
    let big = if args.quick { 16 << 20 } else { 64 << 20 };
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let tty = std::io::stderr().is_terminal();
    if args.crossover {
        return crate::crossover::run(&args.cases, repeats, args.json, tty);
    }
    let mut rows = Vec::new();
    let picked: Vec<Case> = cases()
        .into_iter()
        .filter(|c| args.cases.is_empty() || args.cases.iter().any(|t| c.name().contains(t)))
        .collect();
    if picked.is_empty() {
        let names: Vec<String> = cases().iter().map(Case::name).collect();
        anyhow::bail!(
            "no benchmark case contains {:?}; the cases are: {}",
            args.cases,
            names.join(", ")
        );
    }
    for case in picked {
        for (n, threads) in [(1 << 20, 1), (big, all)] {
            if !args.json {
                let what = format!("{:<28} {n:>9} elements, {threads} thread(s)", case.name());
                // A terminal shows one line rewritten in place; a log gets a line per case.
                if tty {
                    eprint!("\r{what}   ");
                } else {
                    eprintln!("measuring {what}");
                }
            }
            rows.push(measure(&case, n, threads, repeats)?);
        }
    }
    if args.json {
        let items: Vec<String> = rows.iter().map(json_row).collect();
        println!("[{}]", items.join(",\n "));
    } else {
        if tty {
            eprintln!();
        }
        print_table(&rows);
        crate::bench_targets::print(&crate::bench_targets::check(&rows));
    }
    Ok(ExitCode::SUCCESS)
}

fn json_row(r: &Row) -> String {
    let x_half = r.x_half.map_or("null".to_string(), |x| format!("{x:.3}"));
    format!(
        "{{\"case\": \"{}\", \"kernel\": \"{}\", \"elements\": {}, \"threads\": {}, \"gelem_s_min\": {:.4}, \"gelem_s_median\": {:.4}, \"gelem_s_max\": {:.4}, \"gb_s_median\": {:.3}, \"pct_memcpy_median\": {:.1}, \"x_half_median\": {x_half}}}",
        r.case,
        r.kernel,
        r.elements,
        r.threads,
        r.gelem[0],
        r.gelem[1],
        r.gelem[2],
        r.gelem[1] * r.bytes_per_elem,
        r.pct_memcpy,
    )
}

fn print_table(rows: &[Row]) {
    println!(
        "{:<26} {:>9} {:>8} {:>3} {:>8} {:>7} {:>9} {:>7}  min/median/max Gelem/s",
        "case", "kernel", "elements", "thr", "Gelem/s", "GB/s", "%memcpy", "×half"
    );
    for r in rows {
        let x_half = r.x_half.map_or("-".to_string(), |x| format!("{x:.2}"));
        println!(
            "{:<26} {:>9} {:>8} {:>3} {:>8.3} {:>7.2} {:>8.1}% {:>7}  {:.3}/{:.3}/{:.3}",
            r.case,
            r.kernel,
            human(r.elements),
            r.threads,
            r.gelem[1],
            r.gelem[1] * r.bytes_per_elem,
            r.pct_memcpy,
            x_half,
            r.gelem[0],
            r.gelem[1],
            r.gelem[2],
        );
    }
    println!(
        "\nGB/s counts input + output bytes; %memcpy compares that with a same-run copy of the input on as many threads (its bytes in + out); ×half is the `half` crate's slice conversion of the same data, split the same way."
    );
}

/// `n` as `NMi` when it is a whole number of Mi.
pub(crate) fn human(n: usize) -> String {
    if n.is_multiple_of(1 << 20) {
        format!("{}Mi", n >> 20)
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_lasts_at_least_the_minimum_sample_and_no_call_more_than_needed() {
        for single in [1.3e-6, 3.1e-5, 4.9e-4, 1.7e-3, 7e-3, 0.019] {
            let b = batch_for(single);
            assert!(b as f64 * single >= MIN_SAMPLE_SECONDS, "{single}: {b}");
            assert!(
                ((b - 1) as f64) * single < MIN_SAMPLE_SECONDS,
                "{single}: {b}"
            );
        }
        assert_eq!(batch_for(MIN_SAMPLE_SECONDS), 1);
        assert_eq!(batch_for(1.0), 1);
        assert_eq!(batch_for(0.0), MAX_BATCH);
        assert_eq!(batch_for(1e-12), MAX_BATCH);
    }
}
