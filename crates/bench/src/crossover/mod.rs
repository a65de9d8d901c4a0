//! The crossover measurement: from how many elements splitting a bulk cast over the thread
//! pool beats casting it on the calling thread. Each case runs on 2^13 to 2^22 elements, once
//! with `parallel: false` and once split over all threads (`parallel_threshold: 0`), the two
//! timed in interleaved samples in the same process; nothing here is asserted by a test.

use std::hint::black_box;

use npusim_numerics::{BulkOptions, Storage, cast_elements};

use crate::cases::{Case, cases};
use crate::error::BenchError;
use crate::options::BenchOptions;
use crate::report::{Kind, Report};
use crate::timing::{MIN_SAMPLE_SECONDS, Timed, median3};

pub(crate) mod table;

use table::{Crossover, LOG2_SIZES, Point};

/// The result of this module's steps.
type Result<T> = std::result::Result<T, BenchError>;

/// The cases measured when none is named: a 16-bit, an 8-bit float, an integer destination
/// and a widening cast.
const DEFAULT_CASES: [&str; 4] = [
    "f32->bf16 rint",
    "f32->f8e4m3fn rint sat",
    "f32->i8 rint",
    "f16->f32 rint",
];

/// Times `case` on `n` elements on the calling thread and split over the pool's threads.
fn measure(case: &Case, n: usize, repeats: usize) -> Result<Point> {
    let s = Storage::native(case.src);
    let d = case.dst_storage();
    let src = case.source(n);
    let mut dst_serial = vec![0u8; d.bytes_for(n)];
    let mut dst_split = vec![0u8; d.bytes_for(n)];
    let policy = case.policy();
    let serial = BulkOptions {
        parallel: false,
        ..BulkOptions::default()
    };
    let split = BulkOptions {
        parallel: true,
        parallel_threshold: 0,
        ..BulkOptions::default()
    };
    let mut one = Timed::new(|| {
        cast_elements(&src, s, &mut dst_serial, d, n, &policy, &serial)?;
        black_box(&dst_serial);
        Ok(())
    });
    let mut many = Timed::new(|| {
        cast_elements(&src, s, &mut dst_split, d, n, &policy, &split)?;
        black_box(&dst_split);
        Ok(())
    });
    one.calibrate(MIN_SAMPLE_SECONDS)?;
    many.calibrate(MIN_SAMPLE_SECONDS)?;
    for _ in 0..repeats {
        one.sample(repeats)?;
        many.sample(repeats)?;
    }
    let rate = |ts: &[f64]| -> Vec<f64> { ts.iter().map(|t| n as f64 / t / 1e9).collect() };
    Ok(Point {
        case: case.name(),
        elements: n,
        serial: median3(rate(&one.samples))[1],
        split: median3(rate(&many.samples))[1],
    })
}

/// Runs the crossover measurement for the cases whose name contains one of the options' texts
/// (or the default cases), calling `progress` before each size (not in a JSON run): a table
/// or, for a JSON run, a JSON array.
pub(crate) fn run(options: &BenchOptions, progress: &mut dyn FnMut(&str)) -> Result<Report> {
    let filters = &options.cases;
    let repeats = options.samples();
    let picked: Vec<Case> = cases()
        .into_iter()
        .filter(|c| {
            let name = c.name();
            if filters.is_empty() {
                DEFAULT_CASES.contains(&name.as_str())
            } else {
                filters.iter().any(|t| name.contains(t))
            }
        })
        .collect();
    if picked.is_empty() {
        return Err(BenchError::NoCase {
            filters: filters.clone(),
            cases: cases().iter().map(Case::name).collect(),
        });
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(BenchError::ThreadPool)?;
    let mut points = Vec::new();
    for case in &picked {
        for log2 in LOG2_SIZES {
            let n = 1usize << log2;
            if !options.json {
                progress(&format!("{:<28} 2^{log2} elements", case.name()));
            }
            points.push(pool.install(|| measure(case, n, repeats))?);
        }
    }
    if options.json {
        let items: Vec<String> = points
            .iter()
            .map(|p| {
                format!(
                    "{{\"case\": \"{}\", \"elements\": {}, \"threads\": {threads}, \"serial_gelem_s_median\": {:.4}, \"split_gelem_s_median\": {:.4}}}",
                    p.case, p.elements, p.serial, p.split
                )
            })
            .collect();
        return Ok(Report(Kind::Json(format!("[{}]\n", items.join(",\n ")))));
    }
    Ok(Report(Kind::Crossover(Crossover {
        names: picked.iter().map(Case::name).collect(),
        points,
        threads,
    })))
}
