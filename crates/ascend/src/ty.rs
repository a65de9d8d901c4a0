//! Marker types for `LocalTensor<T>`, one per AscendC element type.
//!
//! ```
//! use npusim_ascend::{DType, Element, ty};
//! assert_eq!(<ty::Half as Element>::DTYPE, DType::Half);
//! ```

use crate::dtype::DType;
use crate::memory::Element;

macro_rules! marker {
    ($($name:ident => $dtype:ident, $c:literal;)*) => {$(
        #[doc = concat!("`", $c, "`")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name;
        impl Element for $name {
            const DTYPE: DType = DType::$dtype;
        }
    )*};
}

marker! {
    Float => Float, "float";
    Half => Half, "half";
    BFloat16 => BFloat16, "bfloat16_t";
    HiFloat8 => HiFloat8, "hifloat8_t";
    Fp8E4M3 => Fp8E4M3, "fp8_e4m3fn_t";
    Fp8E5M2 => Fp8E5M2, "fp8_e5m2_t";
    Fp8E8M0 => Fp8E8M0, "fp8_e8m0_t";
    Fp4E2M1 => Fp4E2M1, "fp4x2_e2m1_t";
    Fp4E1M2 => Fp4E1M2, "fp4x2_e1m2_t";
    Int4b => Int4, "int4b_t";
    Int8 => Int8, "int8_t";
    UInt8 => UInt8, "uint8_t";
    Int16 => Int16, "int16_t";
    UInt16 => UInt16, "uint16_t";
    Int32 => Int32, "int32_t";
    UInt32 => UInt32, "uint32_t";
    Int64 => Int64, "int64_t";
}
