//! The Fetch Adapter's cast (`docs/furiosa-engines.md` §4.2): `fetch_cast::<OutD>()` widens
//! (or, for `f32 → bf16`, narrows) every element of a fetched stream; Time and Packet are
//! unchanged. Pairs: `i4, i8, i16 → i32`; `f8e4m3, f8e5m2, bf16 → f32`; `f32 → bf16`. The read
//! size limit it puts on the fetch is [`BeginTensor::plan_cast`](super::fetch::BeginTensor::plan_cast);
//! the 8-byte packet rule is checked downstream on the cast packet. Latency 2 cycles (decision
//! §4.3).
//!
//! Numerics (decision §4.3): integers sign-extend; `bf16 → f32` keeps the bits, NaN becomes
//! `0x7fc00000` and subnormals signed zero; `f8 → f32` is an exact decode (every f8 value is an
//! f32 normal or zero; the document is silent on f8 subnormals, npusim keeps them), NaN
//! `0x7fc00000`; `f32 → bf16` is the Cast Engine's conversion ([`CastProfile`]).

use crate::engine::fetch::FetchError;
use crate::tensor::Position;
use crate::{CastProfile, DType, StreamTensor};

/// Added latency of `fetch_cast` in cycles (the upper end of the book's "1 to 2").
pub const FETCH_CAST_LATENCY: usize = 2;

/// Whether `fetch_cast` converts `src` to `dst`.
pub fn is_fetch_cast_pair(src: DType, dst: DType) -> bool {
    matches!(
        (src, dst),
        (DType::I4 | DType::I8 | DType::I16, DType::I32)
            | (DType::F8E4M3 | DType::F8E5M2 | DType::BF16, DType::F32)
            | (DType::F32, DType::BF16)
    )
}

/// Converts one code of `src` into a code of `dst` (a pair of [`is_fetch_cast_pair`]).
pub fn fetch_cast_code(code: u64, src: DType, dst: DType) -> u64 {
    const NAN: u64 = 0x7fc0_0000;
    match (src, dst) {
        (DType::F32, _) => CastProfile::default()
            .convert(code, src, dst)
            .unwrap_or_default(),
        (DType::BF16, _) => {
            let (exp, man) = ((code >> 7) & 0xff, code & 0x7f);
            match (exp, man) {
                (0xff, m) if m != 0 => NAN,
                (0, _) => (code & 0x8000) << 16,
                _ => code << 16,
            }
        }
        (DType::F8E4M3 | DType::F8E5M2, _) => {
            let v = src.format().decode(code).to_f64();
            if v.is_nan() {
                NAN
            } else {
                u64::from((v as f32).to_bits())
            }
        }
        _ => {
            let bits = src.bits() as u32;
            let v = ((code << (64 - bits)) as i64) >> (64 - bits);
            u64::from(v as i32 as u32)
        }
    }
}

impl StreamTensor {
    /// `.fetch_cast::<OutD>()` with the type given at run time: the `FetchCastTensor` of every
    /// element converted.
    pub fn fetch_cast_to(self, dst: DType) -> Result<StreamTensor, FetchError> {
        self.position().check_transition("fetch_cast")?;
        let src = self.dtype();
        if !is_fetch_cast_pair(src, dst) {
            return Err(FetchError::CastPair { src, dst });
        }
        let codes: Vec<u64> = self
            .codes()
            .iter()
            .map(|c| fetch_cast_code(c, src, dst))
            .collect();
        Ok(self.restaged(dst, Position::FetchCast, codes)?)
    }

    /// `.fetch_cast::<OutD>()`.
    pub fn fetch_cast<D2: crate::Scalar>(self) -> Result<StreamTensor, FetchError> {
        self.fetch_cast_to(D2::DTYPE)
    }
}
