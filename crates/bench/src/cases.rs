//! What the benchmark measures: its cases (a cast between two formats under a policy), their
//! deterministic source data, and the row each measurement gives.

use npusim_numerics::{CastPolicy, Format, Layout, RoundMode, Storage};

/// One benchmark case: a cast between two formats under a policy.
pub(crate) struct Case {
    /// Source format.
    pub(crate) src: Format,
    /// Destination format.
    pub(crate) dst: Format,
    /// Rounding mode.
    pub(crate) round: RoundMode,
    /// Saturating overflow instead of the IEEE results.
    pub(crate) saturate: bool,
    /// A 4-bit destination one element per byte instead of packed.
    pub(crate) unpacked: bool,
}

impl Case {
    /// The case's name in the table and in the case filter, e.g. `f32->f8e4m3fn rint sat`.
    pub(crate) fn name(&self) -> String {
        let sat = if self.saturate { " sat" } else { "" };
        let unpacked = if self.unpacked { " unpacked" } else { "" };
        format!("{}->{} {}{sat}{unpacked}", self.src, self.dst, self.round)
    }

    /// How the destination lays out its codes.
    pub(crate) fn dst_storage(&self) -> Storage {
        if self.unpacked {
            Storage::new(self.dst, Layout::Unpacked).unwrap_or(Storage::native(self.dst))
        } else {
            Storage::native(self.dst)
        }
    }

    /// The cast's policy: the mode, saturating or not.
    pub(crate) fn policy(&self) -> CastPolicy {
        if self.saturate {
            CastPolicy::saturating(self.round)
        } else {
            CastPolicy::new(self.round)
        }
    }
}

/// Every case, in the table's order: the targets first.
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
    /// Median speed as a percentage of the same-run floor's: a pass that moves the same bytes
    /// with no arithmetic.
    pub(crate) pct_floor: f64,
    /// The floor's median bytes/s as a percentage of the same-run memcpy's: the most of
    /// memcpy that any cast between these buffers could reach on this machine.
    pub(crate) floor_pct_memcpy: f64,
    /// The larger of the cast's two buffers moved alone (measured at the large size only).
    pub(crate) alone: Option<Alone>,
    /// Median speed over the `half` crate's, where it has the conversion.
    pub(crate) x_half: Option<f64>,
}

/// A same-run pass that moves only the larger of a cast's two buffers (reads the input, or
/// writes the output): a cost that every cast between them pays in full.
pub(crate) struct Alone {
    /// Which buffer: `"input"` or `"output"`.
    pub(crate) side: &'static str,
    /// Its median as a percentage of the same-run memcpy's bytes/s, counted with the cast's
    /// input + output bytes (as `pct_memcpy`): at most what a cast could reach.
    pub(crate) pct_memcpy: f64,
}

/// One paired comparison: two cases on the same source, their samples taken in turn.
pub(crate) struct Pair {
    /// The case compared.
    pub(crate) case: String,
    /// The case it is compared with.
    pub(crate) base: String,
    /// Elements per call.
    pub(crate) elements: usize,
    /// Threads of the pool.
    pub(crate) threads: usize,
    /// The median over the sample pairs of `case`'s elements per second over `base`'s.
    pub(crate) speed_ratio: f64,
}

/// `n` as `NMi` when it is a whole number of Mi.
pub(crate) fn human(n: usize) -> String {
    if n.is_multiple_of(1 << 20) {
        format!("{}Mi", n >> 20)
    } else {
        n.to_string()
    }
}
