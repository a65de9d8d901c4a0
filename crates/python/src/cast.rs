//! `npusim.cast`'s native half: casts the bytes of one array into another's with the bulk
//! kernels of npusim-numerics, the GIL released, and counts what happened.
//!
//! Both sides are one element per byte for sub-byte formats (ml_dtypes' layout). A
//! contiguous source (C or Fortran order) is cast as one slice in memory order; a strided
//! source whose rows (last axis) are contiguous is cast row by row into a C-ordered
//! destination, each row's stochastic-rounding index continuing the C-order count, so the
//! bits equal those of the contiguous cast.

use std::sync::{Arc, OnceLock};

use npusim_io::cast::ErrorStats;
use npusim_numerics::{
    BulkOptions, CastPlan, CastPolicy, Format, Layout, RoundMode, StatusCounts, Storage,
};
use numpy::ndarray::Axis;
use numpy::{PyReadonlyArrayDyn, PyReadwriteArray1, PyReadwriteArrayDyn};
use pyo3::prelude::*;
use rayon::ThreadPool;
use rayon::prelude::*;

use crate::errors::{Kind, guarded, raise, to_py};
use crate::stats::CastStats;
use crate::threads::Threads;

/// Elements per piece of the error statistics (fixed, so the sums do not depend on threads).
const STATS_CHUNK: usize = 1 << 16;

/// Elements from which a cast releases the GIL while it runs (below, the cast takes less
/// time than releasing and retaking it).
const DETACH_FROM: usize = 4096;

/// The parsed options of one cast and the library's plan of it (kernel and level chosen
/// once).
struct Plan {
    src: Storage,
    dst: Storage,
    cast: CastPlan,
}

/// A format by name (canonical or alias).
pub fn format(name: &str) -> PyResult<Format> {
    Format::parse_name(name).map_err(|e| to_py(Kind::Format, &e))
}

/// The policy `round=` and `saturate=` describe (`None`: IEEE behaviour, the CLI's default).
pub fn policy(round: &str, saturate: Option<bool>) -> PyResult<CastPolicy> {
    let mode = RoundMode::parse_name(round).map_err(|e| to_py(Kind::Format, &e))?;
    Ok(match saturate {
        None => CastPolicy::new(mode),
        Some(true) => CastPolicy::saturating(mode),
        Some(false) => CastPolicy::non_saturating(mode),
    })
}

/// One element per byte (ml_dtypes' layout) for every format.
fn unpacked(f: Format) -> PyResult<Storage> {
    Storage::new(f, Layout::Unpacked).map_err(|e| to_py(Kind::Cast, &e))
}

/// A cast's parsed options (formats, rounding, saturation, seed, threads) and the library's
/// plan of it, made once and reused: `npusim.cast` keeps one per option set, so a repeated
/// call parses no names and chooses no kernel.
#[pyclass(module = "npusim._native", frozen)]
pub struct Prepared {
    plan: Plan,
    threads: Threads,
    /// The pool of `threads=n` (n > 1), looked up on first use.
    pool: OnceLock<Arc<ThreadPool>>,
}

impl Prepared {
    /// The options as `cast_into` takes them, with the same errors.
    fn parse(
        src_format: &str,
        dst_format: &str,
        round: &str,
        saturate: Option<bool>,
        seed: Option<u64>,
        threads: Option<usize>,
    ) -> PyResult<Prepared> {
        let (sf, df) = (format(src_format)?, format(dst_format)?);
        let threads = Threads::from_arg(threads).map_err(|m| raise(Kind::Cast, m))?;
        let (src, dst) = (unpacked(sf)?, unpacked(df)?);
        let options = BulkOptions {
            seed: seed.unwrap_or(npusim_numerics::bulk::DEFAULT_SEED),
            parallel: threads.parallel(),
            ..BulkOptions::default()
        };
        let cast = CastPlan::new(src, dst, &policy(round, saturate)?, &options)
            .map_err(|e| raise(Kind::Cast, e.to_string()))?;
        let plan = Plan { src, dst, cast };
        Ok(Prepared {
            plan,
            threads,
            pool: OnceLock::new(),
        })
    }

    /// Runs `f` in the pool of `threads=` (the calling thread's home pool by default; on the
    /// calling thread alone for `threads=1` and for work that does not split: a small cast's
    /// bits do not depend on where it runs).
    fn install<T: Send>(&self, split: bool, f: impl FnOnce() -> T + Send) -> Result<T, String> {
        match self.threads {
            Threads::Exactly(n) if n > 1 && split => {
                let pool = match self.pool.get() {
                    Some(p) => p,
                    None => {
                        let p = crate::threads::pool(n)?;
                        self.pool.get_or_init(|| p)
                    }
                };
                Ok(pool.install(f))
            }
            Threads::All if split => Ok(crate::threads::on_home_pool(f)),
            _ => Ok(f()),
        }
    }

    /// Casts the contiguous bytes `bytes` into `out` (the GIL released from [`DETACH_FROM`]
    /// elements on, or when the cast splits over threads) and returns the
    /// status counts, and the error statistics when `stats` is set.
    fn cast(
        &self,
        py: Python<'_>,
        bytes: &[u8],
        out: &mut [u8],
        stats: bool,
    ) -> PyResult<(StatusCounts, ErrorStats)> {
        let (sf, df) = (self.plan.src.format(), self.plan.dst.format());
        let (sb, db) = (sf.unpacked_bytes(), df.unpacked_bytes());
        if !bytes.len().is_multiple_of(sb) || out.len() != bytes.len() / sb * db {
            return Err(raise(
                Kind::Cast,
                format!(
                    "{} source bytes are not whole {sf} elements for {} destination bytes of {df}",
                    bytes.len(),
                    out.len()
                ),
            ));
        }
        let plan = &self.plan;
        let parallel = self.threads.parallel();
        let n = bytes.len() / sb;
        let split = parallel && (plan.cast.splits(n) || (stats && n > STATS_CHUNK));
        let mut work = || self.install(split, || plan.run(bytes, out, 0, parallel, stats));
        // a small cast keeps the GIL: releasing and taking it back would cost more than the
        // cast itself
        let done = if n < DETACH_FROM && !split {
            work()
        } else {
            py.detach(work)
        };
        done.map_err(|m| raise(Kind::Cast, m))?
            .map_err(|m| raise(Kind::Cast, m))
    }
}

#[pymethods]
impl Prepared {
    /// Parses the options of a cast as `cast_into` does (same arguments, same errors).
    #[new]
    #[pyo3(signature = (src_format, dst_format, round="rint", saturate=None, seed=None, threads=None))]
    fn new(
        src_format: &str,
        dst_format: &str,
        round: &str,
        saturate: Option<bool>,
        seed: Option<u64>,
        threads: Option<usize>,
    ) -> PyResult<Prepared> {
        guarded(|| Prepared::parse(src_format, dst_format, round, saturate, seed, threads))
    }

    /// Casts the bytes of the contiguous array `src` into the contiguous array `dst` (both
    /// `uint8` views, of any shape), as `cast_into` with `rows=False`. Returns the
    /// [`CastStats`] with the error statistics when `stats` is set, else `None` (no figures
    /// are built).
    #[pyo3(signature = (src, dst, stats=false))]
    fn run(
        &self,
        py: Python<'_>,
        src: PyReadonlyArrayDyn<'_, u8>,
        mut dst: PyReadwriteArrayDyn<'_, u8>,
        stats: bool,
    ) -> PyResult<Option<CastStats>> {
        guarded(|| {
            let bytes = src.as_slice().map_err(|_| {
                raise(
                    Kind::Cast,
                    "the source is not contiguous (pass rows=True)".into(),
                )
            })?;
            let out = dst
                .as_slice_mut()
                .map_err(|_| raise(Kind::Cast, "the destination is not contiguous".into()))?;
            let (counts, errors) = self.cast(py, bytes, out, stats)?;
            Ok(stats.then(|| CastStats::new(&counts, Some(&errors))))
        })
    }
}

impl Plan {
    /// Casts `src` (whole elements) into `dst`, element `0` having stochastic index `first`,
    /// on the calling thread or split over the pool; the error statistics only `with_errors`.
    fn run(
        &self,
        src: &[u8],
        dst: &mut [u8],
        first: u64,
        parallel: bool,
        with_errors: bool,
    ) -> Result<(StatusCounts, ErrorStats), String> {
        let n = src.len() / self.src.format().unpacked_bytes();
        let counts = self
            .cast
            .run_piece(src, dst, n, first, parallel)
            .map_err(|e| e.to_string())?;
        let mut stats = ErrorStats::default();
        if with_errors {
            let (sb, db) = (
                self.src.format().unpacked_bytes(),
                self.dst.format().unpacked_bytes(),
            );
            let piece = |(s, d): (&[u8], &[u8])| {
                let mut e = ErrorStats::default();
                e.accumulate(s, self.src, d, self.dst, s.len() / sb)
                    .map(|()| e)
                    .map_err(|e| e.to_string())
            };
            let pairs = src
                .chunks(sb * STATS_CHUNK)
                .zip(dst.chunks(db * STATS_CHUNK));
            let parts: Vec<ErrorStats> = if parallel && n > STATS_CHUNK {
                pairs
                    .collect::<Vec<_>>()
                    .into_par_iter()
                    .map(piece)
                    .collect::<Result<_, _>>()?
            } else {
                pairs.map(piece).collect::<Result<_, _>>()?
            };
            for p in &parts {
                stats.merge(p);
            }
        }
        Ok((counts, stats))
    }
}

/// Casts the bytes of `src` (elements of `src_format`) into `dst` (elements of `dst_format`,
/// one per byte for sub-byte formats). `rows=False`: both are contiguous and cast in memory
/// order. `rows=True`: `src` is an n-d byte view whose last axis is contiguous, cast row by
/// row (C order) into the contiguous `dst`. Returns the status counts, and the error
/// statistics when `stats` is set.
#[pyfunction]
#[pyo3(signature = (src, src_format, dst, dst_format, round="rint", saturate=None, seed=None, threads=None, stats=false, rows=false))]
#[allow(clippy::too_many_arguments)]
pub fn cast_into(
    py: Python<'_>,
    src: PyReadonlyArrayDyn<'_, u8>,
    src_format: &str,
    mut dst: PyReadwriteArray1<'_, u8>,
    dst_format: &str,
    round: &str,
    saturate: Option<bool>,
    seed: Option<u64>,
    threads: Option<usize>,
    stats: bool,
    rows: bool,
) -> PyResult<CastStats> {
    guarded(|| {
        let prepared = Prepared::parse(src_format, dst_format, round, saturate, seed, threads)?;
        let plan = &prepared.plan;
        let (sf, df) = (plan.src.format(), plan.dst.format());
        let (sb, db) = (sf.unpacked_bytes(), df.unpacked_bytes());
        let view = src.as_array();
        let out = dst
            .as_slice_mut()
            .map_err(|_| raise(Kind::Cast, "the destination is not contiguous".into()))?;
        if !rows {
            let bytes = view.as_slice().ok_or_else(|| {
                raise(
                    Kind::Cast,
                    "the source is not contiguous (pass rows=True)".into(),
                )
            })?;
            let (counts, errors) = prepared.cast(py, bytes, out, stats)?;
            return Ok(CastStats::new(&counts, stats.then_some(&errors)));
        }
        let parallel = prepared.threads.parallel();
        let result = {
            let last = Axis(view.ndim().saturating_sub(1));
            let row_bytes = if view.ndim() == 0 {
                1
            } else {
                view.len_of(last)
            };
            if row_bytes % sb != 0 {
                return Err(raise(
                    Kind::Cast,
                    format!("a row of {row_bytes} bytes is not whole {sf} elements"),
                ));
            }
            let row_elems = row_bytes / sb;
            let src_rows: Vec<&[u8]> = view
                .lanes(last)
                .into_iter()
                .map(|l| l.to_slice())
                .collect::<Option<_>>()
                .ok_or_else(|| raise(Kind::Cast, "a source row is not contiguous".into()))?;
            if out.len() != src_rows.len() * row_elems * db {
                return Err(raise(
                    Kind::Cast,
                    format!(
                        "{} rows of {row_elems} elements do not fill {} destination bytes of {df}",
                        src_rows.len(),
                        out.len()
                    ),
                ));
            }
            py.detach(|| {
                prepared.install(parallel, || {
                    if row_elems == 0 {
                        return Ok((StatusCounts::default(), ErrorStats::default()));
                    }
                    let jobs: Vec<(usize, &[u8], &mut [u8])> = src_rows
                        .iter()
                        .zip(out.chunks_mut(row_elems * db))
                        .enumerate()
                        .map(|(k, (s, d))| (k, *s, d))
                        .collect();
                    let one = |(k, s, d): (usize, &[u8], &mut [u8])| {
                        plan.run(s, d, (k * row_elems) as u64, false, stats)
                    };
                    let parts: Vec<(StatusCounts, ErrorStats)> = if parallel {
                        jobs.into_par_iter().map(one).collect::<Result<_, _>>()?
                    } else {
                        jobs.into_iter().map(one).collect::<Result<_, _>>()?
                    };
                    let mut total = (StatusCounts::default(), ErrorStats::default());
                    for (c, e) in &parts {
                        total.0.add(c);
                        total.1.merge(e);
                    }
                    Ok(total)
                })
            })
        };
        let (counts, errors) = result
            .map_err(|m| raise(Kind::Cast, m))?
            .map_err(|m| raise(Kind::Cast, m))?;
        Ok(CastStats::new(&counts, stats.then_some(&errors)))
    })
}

/// The name of the bulk kernel a cast from `src_format` to `dst_format` under `round` and
/// `saturate` runs here (one element per byte on both sides), as `npusim bench` names it.
#[pyfunction]
#[pyo3(signature = (src_format, dst_format, round="rint", saturate=None))]
pub fn kernel_name(
    src_format: &str,
    dst_format: &str,
    round: &str,
    saturate: Option<bool>,
) -> PyResult<&'static str> {
    guarded(|| {
        let (s, d) = (
            unpacked(format(src_format)?)?,
            unpacked(format(dst_format)?)?,
        );
        Ok(npusim_numerics::kernel_name(
            s,
            d,
            &policy(round, saturate)?,
        ))
    })
}
