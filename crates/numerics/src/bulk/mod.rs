//! Slice casts: many elements at once, in parallel over large inputs, deterministic.
//!
//! The per-element definition is [`crate::convert()`]; this module adds buffer validation, the
//! packed 2/4-bit layouts, a kernel chosen once per slice (lookup tables for small sources; see
//! `kernels/`), parallel chunking and the per-element entropy of stochastic rounding, which
//! depends only on the element's global index so that results do not change with the number
//! of threads or with how a caller splits the work.

mod encoded;
mod kernels;
mod sample;
mod storage;
mod switch;

pub use encoded::Encoded;
pub use kernels::simd::{LevelAbsence, SimdLevel};
pub use kernels::stream::STREAM_BYTES;
pub use sample::sample_source;
pub use storage::{Layout, Storage};
pub use switch::{KERNEL_SWITCH_VALUES, KERNEL_SWITCH_VAR, KernelSwitch};

use rayon::prelude::*;

use crate::convert::convert_with_status;
use crate::error::NumericsError;
use crate::format::Format;
use crate::policy::CastPolicy;
use crate::status::StatusCounts;
use kernels::plan::Plan;

/// Inputs smaller than this many elements are cast on the calling thread: the size from which
/// splitting over threads paid in every measured case (`docs/speed.md`; `npusim bench
/// --crossover` measures it on a machine).
pub const PARALLEL_THRESHOLD: usize = 1 << 16;
/// Smallest elements per parallel task (a multiple of 4, so packed chunks never share a byte).
const MIN_CHUNK: usize = 1 << 12;
/// Parallel tasks per thread: few, big, static chunks, with some slack for a thread that is
/// descheduled on a shared machine.
const TASKS_PER_THREAD: usize = 4;

/// Elements per parallel task for `count` elements: `count` split into a few static chunks
/// per thread, at least [`MIN_CHUNK`], rounded up to a multiple of [`MIN_CHUNK`] (so of 4).
fn chunk_for(count: usize) -> usize {
    let tasks = rayon::current_num_threads().max(1) * TASKS_PER_THREAD;
    count
        .div_ceil(tasks)
        .div_ceil(MIN_CHUNK)
        .max(1)
        .saturating_mul(MIN_CHUNK)
}

/// Options of a bulk cast beyond the policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BulkOptions {
    /// Seed of the per-element entropy that [`RoundMode::Hybrid`](crate::RoundMode::Hybrid) compares against.
    pub seed: u64,
    /// Global index of the first element (so that a cast split into pieces draws the same
    /// entropy as one whole cast). Must be a multiple of the packed elements per byte when
    /// either side is packed.
    pub first_index: u64,
    /// Whether to use the rayon thread pool for large inputs.
    pub parallel: bool,
    /// Inputs of fewer elements than this are cast on the calling thread even when
    /// `parallel` is set (default [`PARALLEL_THRESHOLD`]; `npusim bench --crossover` measures
    /// where splitting starts to pay on a machine).
    pub parallel_threshold: usize,
    /// Outputs of at least this many bytes per call are written past the cache (non-temporal
    /// stores, by the kernels that have them) from their first 64-byte boundary on (default
    /// [`STREAM_BYTES`]; `usize::MAX` never streams, 0 always does).
    pub stream_threshold: usize,
    /// Which kernels may run (tests and benchmarks force the reference path to compare).
    pub kernels: KernelChoice,
}

/// Which bulk-cast kernels may run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KernelChoice {
    /// The fastest kernel for the combination at the best instruction-set level the kernels
    /// may use here ([`SimdLevel::best`]); under the switch `NPUSIM_KERNEL=reference`
    /// ([`KernelSwitch`]) the reference routine.
    #[default]
    Fastest,
    /// The fast kernels at one instruction-set level (a level the kernels may not use here,
    /// because the CPU lacks it or the switch caps it away, runs the portable code;
    /// [`SimdLevel::available`] lists the ones they may).
    Level(SimdLevel),
    /// Only the reference routine, element by element (the definition; slow).
    Reference,
}

impl KernelChoice {
    /// What this choice means here: `None` for the reference routine, else the
    /// instruction-set level of the fast kernels (never above the switch's cap).
    pub fn resolve(self) -> Option<SimdLevel> {
        match self {
            KernelChoice::Fastest if KernelSwitch::current() == Ok(KernelSwitch::Reference) => None,
            KernelChoice::Fastest => Some(SimdLevel::best()),
            KernelChoice::Level(l) if l.is_available() => Some(l),
            KernelChoice::Level(_) => Some(SimdLevel::Portable),
            KernelChoice::Reference => None,
        }
    }
}

impl Default for BulkOptions {
    fn default() -> Self {
        BulkOptions {
            seed: DEFAULT_SEED,
            first_index: 0,
            parallel: true,
            parallel_threshold: PARALLEL_THRESHOLD,
            stream_threshold: STREAM_BYTES,
            kernels: KernelChoice::Fastest,
        }
    }
}

/// The seed used when none is given.
pub const DEFAULT_SEED: u64 = 0x6e70_7573_696d_5352; // "npusimSR"

fn mix(mut z: u64) -> u64 {
    // splitmix64 finaliser
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The stochastic-rounding threshold of element `index` under `seed`: a pure function of both,
/// so results are reproducible whatever the thread count.
pub fn entropy(seed: u64, index: u64) -> u32 {
    (mix(seed ^ mix(index.wrapping_add(0x9e37_79b9_7f4a_7c15))) >> 32) as u32
}

/// Casts a byte buffer of `src_fmt` elements into `dst` (2- and 4-bit formats packed).
///
/// The element count is taken from `src`; `dst` must be exactly the right size.
///
/// ```
/// use npusim_numerics::{cast_slice, CastPolicy, Format};
/// let src: Vec<u8> = [1.0f32, 2.5, -3.0, 1000.0].iter().flat_map(|x| x.to_le_bytes()).collect();
/// let mut dst = [0u8; 4];
/// cast_slice(&src, Format::F32, &mut dst, Format::F8E4M3FN, &CastPolicy::default()).unwrap();
/// assert_eq!(dst, [0x38, 0x42, 0xC4, 0x7F]); // 1000 overflows to NaN under IEEE rules
/// ```
pub fn cast_slice(
    src: &[u8],
    src_fmt: Format,
    dst: &mut [u8],
    dst_fmt: Format,
    policy: &CastPolicy,
) -> Result<(), NumericsError> {
    let s = Storage::native(src_fmt);
    let d = Storage::native(dst_fmt);
    let count = s.count_in(src.len(), "source")?;
    cast_elements(src, s, dst, d, count, policy, &BulkOptions::default())
}

/// Casts `count` elements between any two storages. The general form of [`cast_slice`].
pub fn cast_elements(
    src: &[u8],
    src_storage: Storage,
    dst: &mut [u8],
    dst_storage: Storage,
    count: usize,
    policy: &CastPolicy,
    options: &BulkOptions,
) -> Result<(), NumericsError> {
    cast_elements_with_status(src, src_storage, dst, dst_storage, count, policy, options)
        .map(|_| ())
}

/// Like [`cast_elements`], and counts what happened to the elements ([`StatusCounts`]: how
/// many were exact, inexact, saturated, flushed to zero, became NaN or Inf, ...), computed in
/// the same pass as the cast.
///
/// Fails on buffers of the wrong size, and with [`NumericsError::UnknownKernelSwitch`] when
/// `NPUSIM_KERNEL` holds a value that names no switch ([`KernelSwitch`]).
///
/// ```
/// use npusim_numerics::{cast_elements_with_status, BulkOptions, CastPolicy, Format, Status, Storage};
/// let src: Vec<u8> = [1.0f32, 1000.0, 1e-9, f32::NAN].iter().flat_map(|x| x.to_le_bytes()).collect();
/// let mut dst = [0u8; 4];
/// let counts = cast_elements_with_status(&src, Storage::native(Format::F32), &mut dst,
///     Storage::native(Format::F8E4M3FN), 4, &CastPolicy::saturating(Default::default()),
///     &BulkOptions::default()).unwrap();
/// assert_eq!((counts.total, counts.exact), (4, 2)); // 1.0, and NaN that stays NaN
/// assert_eq!(counts.get(Status::SATURATED), 1);
/// assert_eq!(counts.get(Status::FLUSHED_TO_ZERO), 1);
/// assert_eq!(counts.get(Status::NAN), 1);
/// ```
pub fn cast_elements_with_status(
    src: &[u8],
    src_storage: Storage,
    dst: &mut [u8],
    dst_storage: Storage,
    count: usize,
    policy: &CastPolicy,
    options: &BulkOptions,
) -> Result<StatusCounts, NumericsError> {
    switch::check()?;
    src_storage.check_len(src.len(), count, "source")?;
    dst_storage.check_len(dst.len(), count, "destination")?;
    if count == 0 {
        return Ok(StatusCounts::default());
    }
    let plan = (src_storage != dst_storage)
        .then(|| Plan::cached(src_storage, dst_storage, policy, options.kernels));
    Ok(run_planned(
        plan.as_ref(),
        src,
        src_storage,
        dst,
        dst_storage,
        count,
        policy,
        options,
    ))
}

/// The cast of [`cast_elements_with_status`] once its checks passed (`count` > 0, buffers of
/// the right size) under `plan` (`None`: the two storages are the same).
#[allow(clippy::too_many_arguments)]
fn run_planned(
    plan: Option<&Plan>,
    src: &[u8],
    src_storage: Storage,
    dst: &mut [u8],
    dst_storage: Storage,
    count: usize,
    policy: &CastPolicy,
    options: &BulkOptions,
) -> StatusCounts {
    let Some(plan) = plan else {
        // A cast to the same storage is a copy of the bytes; only NaN and Inf are counted.
        dst.copy_from_slice(src);
        let mut counts = StatusCounts::default();
        for i in 0..count {
            let code = src_storage.read(src, i);
            let f = src_storage.format();
            counts.record(convert_with_status(code, f, f, policy, 0).status);
        }
        return counts;
    };
    let per = dst_storage.per_byte();
    if !count.is_multiple_of(per) {
        // The unused high bits of the last packed byte are zero, never stale memory.
        dst[count / per] = 0;
    }
    let work = |src: &[u8], dst: &mut [u8], start: usize, n: usize| {
        plan.run(src, dst, start, n, policy, options)
    };
    let split = Split {
        src_storage,
        dst_storage,
        count,
        options,
    };
    split.run(src, dst, work, |mut a, b| {
        a.add(&b);
        a
    })
}

/// A bulk cast between two storages under one policy and one set of options, planned once:
/// the kernel and its instruction-set level are chosen when the plan is made, so each
/// [`CastPlan::run`] does no kernel selection, no hashing and no locking before the kernel
/// runs. Its results are those of [`cast_elements_with_status`] with the same arguments, bit
/// for bit, with the same errors.
///
/// ```
/// use npusim_numerics::{BulkOptions, CastPlan, CastPolicy, Format, Storage};
/// let plan = CastPlan::new(Storage::native(Format::F32), Storage::native(Format::F16),
///     &CastPolicy::default(), &BulkOptions::default()).unwrap();
/// let src: Vec<u8> = [1.0f32, 1e9].iter().flat_map(|x| x.to_le_bytes()).collect();
/// let mut dst = [0u8; 4];
/// let counts = plan.run(&src, &mut dst, 2).unwrap();
/// assert_eq!(dst, [0x00, 0x3C, 0x00, 0x7C]); // 1.0, and 1e9 overflows to +Inf
/// assert_eq!((counts.total, counts.exact), (2, 1));
/// ```
#[derive(Clone, Debug)]
pub struct CastPlan {
    src: Storage,
    dst: Storage,
    policy: CastPolicy,
    options: BulkOptions,
    /// `None` when the two storages are the same (a copy).
    plan: Option<Plan>,
}

impl CastPlan {
    /// The plan of casts from `src` to `dst` under `policy` and `options` (whose
    /// `first_index` and `parallel` are the defaults of [`CastPlan::run`]). Fails with
    /// [`NumericsError::UnknownKernelSwitch`] when `NPUSIM_KERNEL` names no switch.
    pub fn new(
        src: Storage,
        dst: Storage,
        policy: &CastPolicy,
        options: &BulkOptions,
    ) -> Result<CastPlan, NumericsError> {
        switch::check()?;
        Ok(CastPlan {
            src,
            dst,
            policy: *policy,
            options: *options,
            plan: (src != dst).then(|| Plan::new(src, dst, policy, options.kernels)),
        })
    }

    /// Casts `count` elements of `src` into `dst` and counts their statuses, as
    /// [`cast_elements_with_status`] with this plan's storages, policy and options.
    pub fn run(
        &self,
        src: &[u8],
        dst: &mut [u8],
        count: usize,
    ) -> Result<StatusCounts, NumericsError> {
        self.run_piece(
            src,
            dst,
            count,
            self.options.first_index,
            self.options.parallel,
        )
    }

    /// [`CastPlan::run`] of a piece whose first element has global index `first_index` (the
    /// stochastic-rounding index), split over the rayon pool when `parallel` is set and the
    /// piece is large enough ([`CastPlan::splits`]).
    pub fn run_piece(
        &self,
        src: &[u8],
        dst: &mut [u8],
        count: usize,
        first_index: u64,
        parallel: bool,
    ) -> Result<StatusCounts, NumericsError> {
        self.src.check_len(src.len(), count, "source")?;
        self.dst.check_len(dst.len(), count, "destination")?;
        if count == 0 {
            return Ok(StatusCounts::default());
        }
        let options = BulkOptions {
            first_index,
            parallel,
            ..self.options
        };
        Ok(run_planned(
            self.plan.as_ref(),
            src,
            self.src,
            dst,
            self.dst,
            count,
            &self.policy,
            &options,
        ))
    }

    /// Whether a parallel run of `count` elements uses the rayon pool (else it runs whole on
    /// the calling thread, so a caller need not hand it to a pool).
    pub fn splits(&self, count: usize) -> bool {
        self.plan.is_some() && count >= self.options.parallel_threshold.max(2 * MIN_CHUNK)
    }

    /// The source storage.
    pub fn source(&self) -> Storage {
        self.src
    }

    /// The destination storage.
    pub fn destination(&self) -> Storage {
        self.dst
    }

    /// The policy.
    pub fn policy(&self) -> &CastPolicy {
        &self.policy
    }

    /// The options the plan was made with.
    pub fn options(&self) -> &BulkOptions {
        &self.options
    }

    /// The name of the code that casts the bulk of each slice ([`kernel_name`]'s names;
    /// `"copy"` when the storages are the same).
    pub fn kernel_name(&self) -> &'static str {
        self.plan.as_ref().map_or("copy", Plan::name)
    }
}

/// How a bulk operation over `count` elements of two buffers is split: whole on the calling
/// thread, or in [`chunk_for`] pieces over the rayon pool when `options` ask for it and the
/// input is large enough.
struct Split<'a> {
    src_storage: Storage,
    dst_storage: Storage,
    count: usize,
    options: &'a BulkOptions,
}

impl Split<'_> {
    /// Runs `work(src, dst, start, n)` on every piece (elements `start..start + n`) and
    /// merges the pieces' results with `merge`.
    fn run<T: Default + Send>(
        &self,
        src: &[u8],
        dst: &mut [u8],
        work: impl Fn(&[u8], &mut [u8], usize, usize) -> T + Sync + Send,
        merge: impl Fn(T, T) -> T + Sync + Send,
    ) -> T {
        let (count, options) = (self.count, self.options);
        if !options.parallel || count < options.parallel_threshold.max(2 * MIN_CHUNK) {
            return work(src, dst, 0, count);
        }
        let chunk = chunk_for(count);
        let src_chunk = self.src_storage.bytes_for(chunk);
        let dst_chunk = self.dst_storage.bytes_for(chunk);
        dst.par_chunks_mut(dst_chunk)
            .zip(src.par_chunks(src_chunk))
            .enumerate()
            .map(|(k, (d, s))| {
                let start = k * chunk;
                work(s, d, start, chunk.min(count - start))
            })
            .reduce(T::default, merge)
    }
}

/// Which of a cast's two buffers a [`touch_elements`] pass moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    /// Both: every source byte read and every destination byte written, interleaved in
    /// proportion as a kernel's loop does (the cast's floor).
    Both,
    /// Only the source's bytes, read; the destination is left as it was.
    Source,
    /// Only the destination's bytes, written; the source is not read.
    Destination,
}

/// Reads every byte that a bulk cast of `count` elements from `src` reads and writes every
/// byte it writes into `dst` (zeros), or with `touch` only one of the two, split over threads,
/// prefetched and streamed past the cache as [`cast_elements`] would under `options`, but with
/// no arithmetic: the data movement that no cast between these buffers can beat (one side
/// alone: a bound that any cast must also pay). `npusim bench` times it as each cast's floor.
/// Returns the XOR of the source's 8-byte words per piece, XORed together (so the reads
/// happen; 0 when the source is not read).
///
/// ```
/// use npusim_numerics::{BulkOptions, Format, Storage};
/// use npusim_numerics::bulk::{Touch, touch_elements};
///
/// let src = 0x0102_0304_0506_0708u64.to_le_bytes();
/// let mut dst = [0xFFu8; 4];
/// let (f32s, f16s) = (Storage::native(Format::F32), Storage::native(Format::F16));
/// let o = BulkOptions::default();
/// assert_eq!(touch_elements(&src, f32s, &mut dst, f16s, 2, Touch::Source, &o), Ok(0x0102_0304_0506_0708));
/// assert_eq!(dst, [0xFF; 4]);
/// assert_eq!(touch_elements(&src, f32s, &mut dst, f16s, 2, Touch::Both, &o), Ok(0x0102_0304_0506_0708));
/// assert_eq!(dst, [0; 4]);
/// ```
pub fn touch_elements(
    src: &[u8],
    src_storage: Storage,
    dst: &mut [u8],
    dst_storage: Storage,
    count: usize,
    touch: Touch,
    options: &BulkOptions,
) -> Result<u64, NumericsError> {
    switch::check()?;
    src_storage.check_len(src.len(), count, "source")?;
    dst_storage.check_len(dst.len(), count, "destination")?;
    let split = Split {
        src_storage,
        dst_storage,
        count,
        options,
    };
    let work = |s: &[u8], d: &mut [u8], _: usize, n: usize| {
        // a piece's own bytes (a caller's buffers may be longer than `count` needs)
        let s_len = match touch {
            Touch::Destination => 0,
            _ => src_storage.bytes_for(n).min(s.len()),
        };
        let d_len = match touch {
            Touch::Source => 0,
            _ => dst_storage.bytes_for(n).min(d.len()),
        };
        let stream = dst_storage.bytes_for(n) >= options.stream_threshold;
        kernels::touch::touch(&s[..s_len], &mut d[..d_len], stream)
    };
    Ok(split.run(src, dst, work, |a, b| a ^ b))
}

/// The hardware conversion alone from `count` `src_fmt` elements of `src` into `dst`, for
/// `npusim bench`: a ceiling, not a cast. f32 → f16, bf16 and i8, f16 → f32 and bf16 → f32
/// to nearest even by the fewest instructions of the level `options.kernels` resolves to
/// (AVX-512: `vcvtps2ph`, `vcvtne2ps2bf16` where the CPU has AVX-512 BF16 else a rounding add,
/// `vcvtps2dq` and saturating packs, `vcvtph2ps`, a shift; the reference choice runs the
/// portable code), split over threads, aligned and streamed as [`cast_elements`] does, with
/// no status counted and no cast policy: NaN, overflow and out-of-range values come out as
/// the instructions give them (f32 → i8: clamped to [−128, 127], NaN and values at or above
/// 2^31 −128; f32 → bf16 with AVX-512 BF16: f32 subnormals read as zero). What a library
/// without status or policy runs (torch's `.to`), so that the bench can show what the cast's
/// status and policy cost. Returns `Ok(false)` and writes nothing for any other pair.
///
/// ```
/// use npusim_numerics::{BulkOptions, Format};
/// use npusim_numerics::bulk::bare_convert;
/// let src: Vec<u8> = [1.0f32, -2.5, 300.0].iter().flat_map(|x| x.to_le_bytes()).collect();
/// let mut dst = [0u8; 3];
/// let o = BulkOptions::default();
/// assert_eq!(bare_convert(&src, Format::F32, &mut dst, Format::I8, 3, &o), Ok(true));
/// assert_eq!(dst, [1, 0xFE, 0x7F]); // -2.5 to nearest even, 300 clamped
/// assert_eq!(bare_convert(&src, Format::F32, &mut dst, Format::U8, 3, &o), Ok(false));
/// ```
#[doc(hidden)]
pub fn bare_convert(
    src: &[u8],
    src_fmt: Format,
    dst: &mut [u8],
    dst_fmt: Format,
    count: usize,
    options: &BulkOptions,
) -> Result<bool, NumericsError> {
    switch::check()?;
    let Some(bare) = kernels::bare::Bare::new(src_fmt, dst_fmt) else {
        return Ok(false);
    };
    let (s, d) = (Storage::native(src_fmt), Storage::native(dst_fmt));
    s.check_len(src.len(), count, "source")?;
    d.check_len(dst.len(), count, "destination")?;
    let level = options.kernels.resolve().unwrap_or(SimdLevel::Portable);
    let split = Split {
        src_storage: s,
        dst_storage: d,
        count,
        options,
    };
    let work = |x: &[u8], y: &mut [u8], _: usize, n: usize| {
        bare.run(level, x, y, n, options.stream_threshold)
    };
    split.run(src, dst, work, |(), ()| ());
    Ok(true)
}

/// The name of the kernel a default bulk cast between these storages under `policy` runs: at
/// the best instruction-set level the kernels may use here (capped by `NPUSIM_KERNEL`,
/// [`KernelSwitch`]). One of
/// `"table"`, `"widen"`, `"f32-float"`, `"f16c"`, `"f32-bf16"`, `"f32-int"`, `"f32-key"`,
/// `"f64-float"`, `"i32-float"`, `"f64-f32"`, `"i32-f32"`, `"i32-int"`, `"reference"` or
/// `"copy"`, with `-avx2` or `-avx512` where an explicit kernel of that level casts the bulk
/// (`"f32-float-avx2"`, `"f16c-avx512"`, `"table-avx512"`, `"widen-avx512"`, ...), as chosen
/// once per slice.
///
/// ```
/// use npusim_numerics::{kernel_name, CastPolicy, Format, Storage};
/// let s = |f| Storage::native(f);
/// assert!(kernel_name(s(Format::F8E4M3FN), s(Format::F32), &CastPolicy::default()).starts_with("table"));
/// assert!(kernel_name(s(Format::F16), s(Format::F32), &CastPolicy::default()).starts_with("widen"));
/// assert!(kernel_name(s(Format::F32), s(Format::F8E5M2), &CastPolicy::default()).starts_with("f32-float"));
/// ```
pub fn kernel_name(src: Storage, dst: Storage, policy: &CastPolicy) -> &'static str {
    if src == dst {
        return "copy";
    }
    Plan::new(src, dst, policy, KernelChoice::Fastest).name()
}

/// Like [`kernel_name`], at instruction-set level `level` (what
/// [`KernelChoice::Level`] runs; a level the kernels may not use here, for want of CPU features
/// or under the switch's cap, runs the portable code).
///
/// ```
/// use npusim_numerics::{kernel_name_at, CastPolicy, Format, Storage, bulk::SimdLevel};
/// let (s, d) = (Storage::native(Format::F32), Storage::native(Format::BF16));
/// let p = CastPolicy::default();
/// assert_eq!(kernel_name_at(s, d, &p, SimdLevel::Portable), "f32-float");
/// if SimdLevel::Avx2.is_available() {
///     assert_eq!(kernel_name_at(s, d, &p, SimdLevel::Avx2), "f32-bf16");
/// }
/// ```
pub fn kernel_name_at(
    src: Storage,
    dst: Storage,
    policy: &CastPolicy,
    level: SimdLevel,
) -> &'static str {
    if src == dst {
        return "copy";
    }
    Plan::at(src, dst, policy, level).name()
}

/// Casts `f32` values to any format (4-bit formats packed).
///
/// ```
/// use npusim_numerics::{cast_from_f32, CastPolicy, Format};
/// let mut out = [0u8; 4];
/// cast_from_f32(&[1.0, -2.0], Format::BF16, &mut out, &CastPolicy::default()).unwrap();
/// assert_eq!(out, [0x80, 0x3F, 0x00, 0xC0]);
/// ```
pub fn cast_from_f32(
    src: &[f32],
    dst_fmt: Format,
    dst: &mut [u8],
    policy: &CastPolicy,
) -> Result<(), NumericsError> {
    cast_slice(bytemuck::cast_slice(src), Format::F32, dst, dst_fmt, policy)
}

/// Casts any format (4-bit formats packed) to `f32` values.
///
/// ```
/// use npusim_numerics::{cast_to_f32, CastPolicy, Format};
/// let mut out = [0f32; 2];
/// cast_to_f32(&[0x3C, 0xC4], Format::F8E4M3FN, &mut out, &CastPolicy::default()).unwrap();
/// assert_eq!(out, [1.5, -3.0]);
/// ```
pub fn cast_to_f32(
    src: &[u8],
    src_fmt: Format,
    dst: &mut [f32],
    policy: &CastPolicy,
) -> Result<(), NumericsError> {
    let s = Storage::native(src_fmt);
    let count = dst.len();
    cast_elements(
        src,
        s,
        bytemuck::cast_slice_mut(dst),
        Storage::native(Format::F32),
        count,
        policy,
        &BulkOptions::default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Layout, RoundMode};

    /// The floor pass reads every source word and zeros every destination byte, the same on
    /// one thread as split over the pool, streamed or not, and refuses short buffers.
    #[test]
    fn touching_moves_the_sides_asked_for_however_split() {
        let n = 3 * PARALLEL_THRESHOLD + 7;
        let (s, d) = (Storage::native(Format::F32), Storage::native(Format::I4));
        let src: Vec<u8> = (0..n as u32)
            .flat_map(|i| (i.wrapping_mul(2_654_435_761)).to_le_bytes())
            .collect();
        // the last word zero-extended
        let words = src.chunks(8).fold(0u64, |x, w| {
            let mut word = [0u8; 8];
            word[..w.len()].copy_from_slice(w);
            x ^ u64::from_le_bytes(word)
        });
        for parallel in [false, true] {
            for stream_threshold in [0, usize::MAX] {
                let options = BulkOptions {
                    parallel,
                    stream_threshold,
                    ..BulkOptions::default()
                };
                let mut dst = vec![0x5Au8; d.bytes_for(n) + 1];
                let (body, past) = dst.split_at_mut(d.bytes_for(n));
                // one side alone: the source read, the destination untouched
                let one = touch_elements(&src, s, body, d, n, Touch::Source, &options);
                assert_eq!(one, Ok(words));
                assert!(body.iter().all(|&b| b == 0x5A));
                // the other: the destination zeroed, the source not read
                let other = touch_elements(&src, s, body, d, n, Touch::Destination, &options);
                assert_eq!(other, Ok(0));
                assert!(body.iter().all(|&b| b == 0));
                body.fill(0x5A);
                let both = touch_elements(&src, s, body, d, n, Touch::Both, &options);
                assert_eq!(both, Ok(words));
                assert!(body.iter().all(|&b| b == 0));
                assert_eq!(past, [0x5A]);
            }
        }
        let mut short = vec![0u8; d.bytes_for(n) - 1];
        let err = touch_elements(
            &src,
            s,
            &mut short,
            d,
            n,
            Touch::Both,
            &BulkOptions::default(),
        );
        assert!(err.is_err());
    }

    #[test]
    fn parallel_and_serial_agree_bit_for_bit_including_hybrid() {
        let n = 3 * PARALLEL_THRESHOLD + 7;
        let src: Vec<u8> = (0..n as u32)
            .flat_map(|i| (i.wrapping_mul(2_654_435_761)).to_le_bytes())
            .collect();
        for (dst_fmt, packed) in [(Format::F8E5M2, false), (Format::F4E2M1, true)] {
            let d = Storage::new(
                dst_fmt,
                if packed {
                    Layout::Packed
                } else {
                    Layout::Unpacked
                },
            )
            .unwrap();
            let policy = CastPolicy::new(RoundMode::Hybrid);
            let mut a = vec![0u8; d.bytes_for(n)];
            let mut b = vec![0u8; d.bytes_for(n)];
            let s = Storage::native(Format::F32);
            let par = BulkOptions::default();
            let ser = BulkOptions {
                parallel: false,
                ..par
            };
            cast_elements(&src, s, &mut a, d, n, &policy, &par).unwrap();
            cast_elements(&src, s, &mut b, d, n, &policy, &ser).unwrap();
            assert_eq!(a, b);
            // split in two pieces at an even index: same bytes
            let mut c = vec![0u8; d.bytes_for(n)];
            let cut = 100_000;
            let (c0, c1) = c.split_at_mut(d.bytes_for(cut));
            cast_elements(&src[..4 * cut], s, c0, d, cut, &policy, &ser).unwrap();
            let second = BulkOptions {
                first_index: cut as u64,
                ..ser
            };
            cast_elements(&src[4 * cut..], s, c1, d, n - cut, &policy, &second).unwrap();
            assert_eq!(a, c);
        }
    }

    #[test]
    fn packed_odd_count_leaves_the_padding_nibble_zero() {
        let src = [1.0f32, 2.0, 3.0];
        let mut dst = [0xFFu8; 2];
        cast_elements(
            bytemuck::cast_slice(&src),
            Storage::native(Format::F32),
            &mut dst,
            Storage::native(Format::F4E2M1),
            3,
            &CastPolicy::default(),
            &BulkOptions::default(),
        )
        .unwrap();
        assert_eq!(dst, [0x42, 0x05]);
    }

    #[test]
    fn buffers_of_the_wrong_size_are_typed_errors() {
        let mut dst = [0u8; 3];
        let e = cast_slice(
            &[0u8; 8],
            Format::F32,
            &mut dst,
            Format::F16,
            &CastPolicy::default(),
        )
        .unwrap_err();
        assert!(
            matches!(e, NumericsError::LengthMismatch { needed: 4, .. }),
            "{e}"
        );
        let e = cast_slice(
            &[0u8; 7],
            Format::F32,
            &mut dst,
            Format::F16,
            &CastPolicy::default(),
        )
        .unwrap_err();
        assert!(
            matches!(e, NumericsError::RaggedBuffer { bytes: 7, .. }),
            "{e}"
        );
    }
}
