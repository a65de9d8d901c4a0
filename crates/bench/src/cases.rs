//! What the benchmark measures: its cases (a cast between two formats under a policy), their
//! deterministic source data, and the row each measurement gives.

use npusim_numerics::bulk::sample_source;
use npusim_numerics::{CastPolicy, Format, Layout, RoundMode, Storage};

/// The source data of a case: the plain sample, or f32 data with special values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Data {
    /// [`sample_source`]: finite values over the range of weights and activations.
    Plain,
    /// A causal attention mask: rows of [`MASK_ROW`] f32 values, row `r` keeping its first
    /// `r + 1` values and −∞ after them (half the elements −∞).
    Masked,
    /// One element in a hundred replaced by a special value: NaN, +∞ or −∞ in turn.
    Nan1,
}

/// Elements per row of the [`Data::Masked`] source.
pub(crate) const MASK_ROW: usize = 1024;

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
    /// The source data.
    pub(crate) data: Data,
}

impl Case {
    /// The case's name in the table and in the case filter, e.g. `f32->f8e4m3fn rint sat`.
    pub(crate) fn name(&self) -> String {
        let sat = if self.saturate { " sat" } else { "" };
        let unpacked = if self.unpacked { " unpacked" } else { "" };
        let data = match self.data {
            Data::Plain => "",
            Data::Masked => " masked",
            Data::Nan1 => " nan1%",
        };
        format!(
            "{}->{} {}{sat}{unpacked}{data}",
            self.src, self.dst, self.round
        )
    }

    /// The case's `n` source elements: [`sample_source`], with special values put in as
    /// [`Data`] says (f32 sources only; other sources keep the sample).
    pub(crate) fn source(&self, n: usize) -> Vec<u8> {
        let mut src = sample_source(self.src, n);
        if self.src != Format::F32 || self.data == Data::Plain {
            return src;
        }
        let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY];
        for (i, x) in src.chunks_exact_mut(4).enumerate() {
            let special = match self.data {
                Data::Masked => {
                    (i % MASK_ROW > (i / MASK_ROW) % MASK_ROW).then_some(f32::NEG_INFINITY)
                }
                Data::Nan1 => {
                    let h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
                    h.is_multiple_of(100)
                        .then(|| specials[(h / 100 % 3) as usize])
                }
                Data::Plain => None,
            };
            if let Some(v) = special {
                x.copy_from_slice(&v.to_le_bytes());
            }
        }
        src
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
        data: Data::Plain,
    };
    let u = |src, dst, round| Case {
        src,
        dst,
        round,
        saturate: false,
        unpacked: true,
        data: Data::Plain,
    };
    // f32 → the five destinations on masked and 1 %-special data
    let special = |dst, saturate, data| Case {
        src: Format::F32,
        dst,
        round: RoundMode::Rint,
        saturate,
        unpacked: false,
        data,
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
        special(F16, false, Data::Masked),
        special(BF16, false, Data::Masked),
        special(F8E4M3FN, true, Data::Masked),
        special(F8E5M2, false, Data::Masked),
        special(I8, false, Data::Masked),
        special(F16, false, Data::Nan1),
        special(BF16, false, Data::Nan1),
        special(F8E4M3FN, true, Data::Nan1),
        special(F8E5M2, false, Data::Nan1),
        special(I8, false, Data::Nan1),
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
    /// Median speed as a percentage of the same-run bare conversion's (the hardware
    /// conversion alone, no status and no policy), where there is one.
    pub(crate) pct_bare: Option<f64>,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The f32 values of a case's source.
    fn values(case: &Case, n: usize) -> Vec<f32> {
        case.source(n)
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    }

    fn named(name: &str) -> Case {
        match cases().into_iter().find(|c| c.name() == name) {
            Some(c) => c,
            None => panic!("no case {name}"),
        }
    }

    #[test]
    fn a_masked_source_is_half_minus_infinity_in_causal_rows() {
        let n = 4 * MASK_ROW * MASK_ROW / 4;
        let v = values(&named("f32->f16 rint masked"), n);
        let masked = v.iter().filter(|x| **x == f32::NEG_INFINITY).count();
        // row r keeps r + 1 values: (MASK_ROW - 1) / 2 of each row's MASK_ROW masked on average
        assert_eq!(masked, n / MASK_ROW * (MASK_ROW - 1) / 2);
        // row 3: its first 4 values kept, the rest −∞
        let row = &v[3 * MASK_ROW..4 * MASK_ROW];
        assert!(row[..4].iter().all(|x| x.is_finite()));
        assert!(row[4..].iter().all(|x| *x == f32::NEG_INFINITY));
        assert!(v.iter().all(|x| x.is_finite() || *x == f32::NEG_INFINITY));
    }

    #[test]
    fn a_one_percent_source_has_nan_and_both_infinities_near_one_in_a_hundred() {
        let n = 1 << 20;
        let v = values(&named("f32->f8e5m2 rint nan1%"), n);
        let nan = v.iter().filter(|x| x.is_nan()).count();
        let inf = v.iter().filter(|x| x.is_infinite()).count();
        let special = nan + inf;
        assert!((n / 110..n / 90).contains(&special), "{special} of {n}");
        assert!(
            nan > special / 4 && inf > special / 2,
            "{nan} NaN, {inf} inf"
        );
        // the other values are the plain sample's
        let plain = sample_source(Format::F32, n);
        let same = v
            .iter()
            .zip(plain.chunks_exact(4))
            .filter(|(x, b)| x.to_le_bytes() == [b[0], b[1], b[2], b[3]])
            .count();
        assert_eq!(same, n - special);
    }

    #[test]
    fn case_names_are_unique_and_the_special_ones_say_their_data() {
        let names: Vec<String> = cases().iter().map(Case::name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        for dst in [
            "f16 rint",
            "bf16 rint",
            "f8e4m3fn rint sat",
            "f8e5m2 rint",
            "i8 rint",
        ] {
            for data in ["masked", "nan1%"] {
                let name = format!("f32->{dst} {data}");
                assert!(names.contains(&name), "{name}");
            }
        }
    }
}
