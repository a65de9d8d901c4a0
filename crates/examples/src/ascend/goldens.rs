//! The golden vectors: 213 worked examples (ids `G001`..`G213`) from the AscendC `Cast`
//! documentation — the Ascend 950PR/950DT MicroAPI page (`S1`: its conversion tables and
//! constraints) and the Atlas training series LocalTensor page (`S2`: its precision conversion
//! rules, Table 4 and "More Samples") — plus derived cases that pin the gaps between them.
//!
//! The data is `data/ascend/ascend_goldens.json`, built in; [`goldens`] reads it and [`Golden::check`]
//! runs one row through the API its `sat` column names. This is the one reader: the crate's tests
//! and `npusim tour` both use it.
//!
//! ```
//! let rows = npusim_examples::ascend::goldens::goldens().unwrap();
//! assert_eq!(rows.len(), 213);
//! let g120 = &rows[119];
//! assert_eq!(g120.id, "G120");
//! assert!(g120.check().unwrap().iter().all(|c| c.pass));
//! ```

use npusim_numerics::RoundMode;
use serde::Deserialize;
use serde_json::Value;

use npusim_ascend::{
    AiCore, AscendError, CastOptions, CastRoundMode, Ctrl, DType, ElementCast, HybridThreshold,
    Product, SatMode,
};

/// A golden row that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("golden row {row}: {why}")]
pub struct GoldenError {
    /// 1-based row number (0: the file as a whole).
    pub row: usize,
    /// What is wrong.
    pub why: String,
}

/// The golden rows as shipped (JSON written by Python: non-finite numbers are bare `NaN`).
pub const GOLDENS_JSON: &str = include_str!("../../data/ascend/ascend_goldens.json");

/// The `sat` column: which API, and which saturation, a row names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SatColumn {
    /// `default(SAT)` / `default`: the LocalTensor API, which has no SatMode. Run on the 950
    /// (reset CTRL: saturating) and, where Table 4 lists the pair and mode, on the training series.
    Default,
    /// `SAT`: the 950 Reg API with `CTRL[60]` = 0 and `SatMode::SAT`.
    Sat,
    /// `NO_SAT`: the 950 Reg API with `CTRL[60]` = 0 and `SatMode::NO_SAT`.
    NoSat,
    /// `SAT/NO_SAT`: both of the above give the expected code.
    Either,
    /// `n/a`, `n/a (forced SAT)`: the 950 Reg API with the reset CTRL and `SatMode::UNKNOWN`.
    NotApplicable,
}

impl SatColumn {
    fn parse(s: &str) -> Option<SatColumn> {
        Some(match s {
            "default(SAT)" | "default" => SatColumn::Default,
            "SAT" => SatColumn::Sat,
            "NO_SAT" => SatColumn::NoSat,
            "SAT/NO_SAT" => SatColumn::Either,
            "n/a" | "n/a (forced SAT)" => SatColumn::NotApplicable,
            _ => return None,
        })
    }
}

/// One golden row, typed.
#[derive(Clone, Debug, PartialEq)]
pub struct Golden {
    /// `G001`..: the row's position in the file.
    pub id: String,
    /// Source type.
    pub src: DType,
    /// Source code; `None` for a row that names no single element (G208).
    pub src_code: Option<u64>,
    /// Destination type.
    pub dst: DType,
    /// Rounding mode.
    pub round: RoundMode,
    /// `SetDeqScale` value for the `NONE(deq, scale=s)` rows.
    pub deq_scale: Option<f64>,
    /// The API and saturation the row names.
    pub sat: SatColumn,
    /// Expected destination code; `None` for a row that states no code (G208: "unchanged",
    /// a masked lane, checked by the 512-lane example in [`super::document_examples`]).
    pub expected: Option<u64>,
    /// The mode column as written (`CEIL (dst lane 0, mask=32)`).
    pub mode_text: String,
    /// Where the row comes from (`S2 float->half`, `derived: ...`).
    pub reference: String,
    /// Remark.
    pub note: String,
}

/// One API's result for a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoldenCheck {
    /// Which API and settings ran (`950 LocalTensor`, `950 Reg SAT`, `training deq`, ...).
    pub how: String,
    /// The code it produced.
    pub got: u64,
    /// Whether it is the expected code (any NaN matches any NaN).
    pub pass: bool,
}

#[derive(Deserialize)]
struct Raw {
    src: String,
    src_val: Value,
    src_bits: Value,
    dst: String,
    mode: String,
    sat: String,
    exp_val: Value,
    exp_bits: Value,
    #[serde(rename = "ref")]
    reference: String,
    note: String,
}

fn parse_hex(v: &Value) -> Option<u64> {
    let t = v.as_str()?.split_whitespace().next()?;
    u64::from_str_radix(t.strip_prefix("0x")?, 16).ok()
}

/// A code from `bits` (hex) or else the integer `val`, cut to `dtype`'s width.
fn code(bits: &Value, val: &Value, dtype: DType) -> Option<u64> {
    parse_hex(bits).or_else(|| Some(val.as_i64()? as u64 & dtype.format().code_mask()))
}

/// Reads every built-in golden row.
pub fn goldens() -> Result<Vec<Golden>, GoldenError> {
    parse(GOLDENS_JSON)
}

/// Reads golden rows from JSON text in the shipped layout.
pub fn parse(json: &str) -> Result<Vec<Golden>, GoldenError> {
    let bad = |row: usize, why: String| GoldenError { row, why };
    let text = json
        .replace(": -Infinity", ": null")
        .replace(": Infinity", ": null")
        .replace(": NaN", ": null");
    let raws: Vec<Raw> = serde_json::from_str(&text).map_err(|e| bad(0, e.to_string()))?;
    raws.into_iter()
        .enumerate()
        .map(|(i, r)| {
            let row = i + 1;
            let src: DType = r
                .src
                .parse()
                .map_err(|e: AscendError| bad(row, e.to_string()))?;
            let dst: DType = r
                .dst
                .parse()
                .map_err(|e: AscendError| bad(row, e.to_string()))?;
            let head = r.mode.split(['(', ' ']).next().unwrap_or_default();
            let round = head
                .parse::<CastRoundMode>()
                .ok()
                .and_then(CastRoundMode::mode)
                .ok_or_else(|| bad(row, format!("mode `{}`", r.mode)))?;
            let deq_scale = match r.mode.strip_prefix("NONE(deq, scale=") {
                Some(rest) => Some(
                    rest.trim_end_matches(')')
                        .parse::<f64>()
                        .map_err(|e| bad(row, format!("mode `{}`: {e}", r.mode)))?,
                ),
                None => None,
            };
            let sat =
                SatColumn::parse(&r.sat).ok_or_else(|| bad(row, format!("sat `{}`", r.sat)))?;
            let src_code = code(&r.src_bits, &r.src_val, src);
            Ok(Golden {
                id: format!("G{row:03}"),
                src,
                src_code,
                dst,
                round,
                deq_scale,
                sat,
                expected: code(&r.exp_bits, &r.exp_val, dst),
                mode_text: r.mode,
                reference: r.reference,
                note: r.note,
            })
        })
        .collect()
}

impl Golden {
    /// The rounding mode as AscendC spells it (`CAST_CEIL`, or `CAST_NONE(deq)` for the
    /// SetDeqScale rows).
    pub fn round_name(&self) -> String {
        let name = npusim_ascend::round_mode_name(self.round);
        if self.deq_scale.is_some() {
            format!("{name}(deq)")
        } else {
            name.to_string()
        }
    }

    /// Runs the row through every API its `sat` column names (see [`SatColumn`]); an empty list
    /// for a row without a source or expected code. An error means the row names a conversion the model
    /// rejects, which is itself a failure.
    pub fn check(&self) -> Result<Vec<GoldenCheck>, AscendError> {
        let (Some(code), Some(want)) = (self.src_code, self.expected) else {
            return Ok(Vec::new());
        };
        let (src, dst) = (self.src, self.dst);
        let mut got: Vec<(String, u64)> = Vec::new();
        if let Some(scale) = self.deq_scale {
            let bits = npusim_numerics::convert(
                scale.to_bits(),
                npusim_numerics::Format::F64,
                npusim_numerics::Format::F16,
                &npusim_numerics::CastPolicy::new(RoundMode::Rint),
            ) as u16;
            for product in [Product::AtlasTraining, Product::Ascend950] {
                let mut core = AiCore::new(product);
                core.set_deq_scale(bits);
                let c = core.resolve(src, dst, RoundMode::None)?;
                got.push((format!("{} deq", product.short()), c.apply(code, 0)));
            }
        } else if self.sat == SatColumn::Default {
            let lt = |product| {
                ElementCast::local_tensor(
                    product,
                    src,
                    dst,
                    self.round,
                    None,
                    &CastOptions::default(),
                )
            };
            got.push((
                "950 LocalTensor".into(),
                lt(Product::Ascend950)?.apply(code, 0),
            ));
            if let Ok(c) = lt(Product::AtlasTraining) {
                got.push(("training LocalTensor".into(), c.apply(code, 0)));
            }
        } else {
            let (sats, ctrl): (&[SatMode], Ctrl) = match self.sat {
                SatColumn::Sat => (&[SatMode::Sat], Ctrl::per_instruction()),
                SatColumn::NoSat => (&[SatMode::NoSat], Ctrl::per_instruction()),
                SatColumn::Either => (&[SatMode::Sat, SatMode::NoSat], Ctrl::per_instruction()),
                _ => (&[SatMode::Unknown], Ctrl::default()),
            };
            let options = CastOptions {
                hybrid: HybridThreshold::InputLowBits,
                ..CastOptions::default()
            };
            for &s in sats {
                let c = ElementCast::reg(src, dst, Some(self.round), s, &ctrl, &options)?;
                got.push((format!("950 Reg {s}"), c.apply(code, 0)));
            }
        }
        let f = dst.format();
        let nan = |c: u64| f.decode(c).is_nan();
        Ok(got
            .into_iter()
            .map(|(how, got)| GoldenCheck {
                how,
                got,
                pass: got == want || (nan(got) && nan(want)),
            })
            .collect())
    }
}
