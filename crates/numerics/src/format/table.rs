//! The format table: one row per format. The [`Format`](super::Format) enum, [`FORMATS`](super::FORMATS),
//! `Format::ALL`, names, aliases and constants are all generated from these rows, so adding a
//! format is adding a row here (plus its tests).

use super::{Kind, Specials, binary, int};

super::format_table! {
    /// IEEE binary64.
    F64 = "f64", 64, binary(11, 52, 1023, Specials::Ieee),
        ["float64", "double", "fp64", "torch.float64"], "IEEE binary64";
    /// IEEE binary32.
    F32 = "f32", 32, binary(8, 23, 127, Specials::Ieee),
        ["float32", "float", "fp32", "torch.float32"], "IEEE binary32";
    /// IEEE binary16.
    F16 = "f16", 16, binary(5, 10, 15, Specials::Ieee),
        ["float16", "half", "fp16", "torch.float16"], "IEEE binary16";
    /// bfloat16: binary32 with the low 16 mantissa bits dropped.
    BF16 = "bf16", 16, binary(8, 7, 127, Specials::Ieee),
        ["bfloat16", "bfloat16_t", "torch.bfloat16"],
        "bfloat16 (binary32 exponent, 7-bit mantissa)";
    /// OCP fp8 E4M3 "fn": no infinities, one NaN pattern per sign, max 448.
    F8E4M3FN = "f8e4m3fn", 8, binary(4, 3, 7, Specials::NanOnlyAllOnes),
        ["float8_e4m3fn", "fp8_e4m3fn_t", "fp8_e4m3fn", "e4m3fn", "f8_e4m3", "torch.float8_e4m3fn"],
        "OCP fp8 E4M3, no Inf, NaN = S.1111.111";
    /// IEEE-style fp8 E4M3 (ml_dtypes `float8_e4m3`): with ±Inf and NaNs, max 240.
    F8E4M3 = "f8e4m3", 8, binary(4, 3, 7, Specials::Ieee),
        ["float8_e4m3", "e4m3"],
        "IEEE-style fp8 E4M3 with Inf/NaN, max 240";
    /// fp8 E4M3 "fnuz" (ml_dtypes `float8_e4m3fnuz`): bias 8, no Inf, no -0, NaN = 0x80, max 240.
    F8E4M3FNUZ = "f8e4m3fnuz", 8, binary(4, 3, 8, Specials::NanAtNegativeZero),
        ["float8_e4m3fnuz", "e4m3fnuz", "torch.float8_e4m3fnuz"],
        "fp8 E4M3 fnuz: bias 8, no Inf, no -0, NaN = 0x80";
    /// OCP fp8 E5M2: IEEE-style, with infinities and NaNs, max 57344.
    F8E5M2 = "f8e5m2", 8, binary(5, 2, 15, Specials::Ieee),
        ["float8_e5m2", "fp8_e5m2_t", "fp8_e5m2", "e5m2", "f8_e5m2", "torch.float8_e5m2"],
        "OCP fp8 E5M2, IEEE-style Inf/NaN";
    /// fp8 E5M2 "fnuz" (ml_dtypes `float8_e5m2fnuz`): bias 16, no Inf, no -0, NaN = 0x80.
    F8E5M2FNUZ = "f8e5m2fnuz", 8, binary(5, 2, 16, Specials::NanAtNegativeZero),
        ["float8_e5m2fnuz", "e5m2fnuz", "torch.float8_e5m2fnuz"],
        "fp8 E5M2 fnuz: bias 16, no Inf, no -0, NaN = 0x80";
    /// fp8 E4M3 with bias 11 "fnuz" (ml_dtypes `float8_e4m3b11fnuz`): max 30, NaN = 0x80.
    F8E4M3B11FNUZ = "f8e4m3b11fnuz", 8, binary(4, 3, 11, Specials::NanAtNegativeZero),
        ["float8_e4m3b11fnuz", "e4m3b11fnuz", "float8_e4m3b11"],
        "fp8 E4M3 bias 11 fnuz: no Inf, no -0, NaN = 0x80, max 30";
    /// IEEE-style fp8 E3M4 (ml_dtypes `float8_e3m4`): with ±Inf and NaNs, max 15.5.
    F8E3M4 = "f8e3m4", 8, binary(3, 4, 3, Specials::Ieee),
        ["float8_e3m4", "e3m4"],
        "IEEE-style fp8 E3M4 with Inf/NaN, max 15.5";
    /// OCP MX scale E8M0: unsigned power of two 2^-127..2^127, 0xFF is NaN, no zero.
    F8E8M0 = "f8e8m0", 8, binary(8, 0, 127, Specials::ExponentOnly),
        ["float8_e8m0fnu", "fp8_e8m0_t", "fp8_e8m0", "e8m0", "f8_e8m0", "torch.float8_e8m0fnu"],
        "OCP MX scale: unsigned 2^-127..2^127, 0xFF NaN, no zero";
    /// Huawei HiFloat8: tapered precision, 0x00 zero, 0x80 NaN, 0x6F/0xEF infinities.
    HiF8 = "hif8", 8, Kind::HiF8,
        ["hifloat8_t", "hifloat8", "hif8_t"],
        "HiFloat8 tapered: 2^-22..2^15, 0x80 NaN, 0x6F/0xEF Inf";
    /// OCP fp6 E2M3 (ml_dtypes `float6_e2m3fn`): finite only, max 7.5.
    F6E2M3FN = "f6e2m3fn", 6, binary(2, 3, 1, Specials::FiniteOnly),
        ["float6_e2m3fn", "fp6_e2m3", "e2m3", "float6_e2m3"],
        "OCP fp6 E2M3, finite only, max 7.5";
    /// OCP fp6 E3M2 (ml_dtypes `float6_e3m2fn`): finite only, max 28.
    F6E3M2FN = "f6e3m2fn", 6, binary(3, 2, 3, Specials::FiniteOnly),
        ["float6_e3m2fn", "fp6_e3m2", "e3m2", "float6_e3m2"],
        "OCP fp6 E3M2, finite only, max 28";
    /// OCP fp4 E2M1: finite only, max 6.
    F4E2M1 = "f4e2m1", 4, binary(2, 1, 1, Specials::FiniteOnly),
        ["float4_e2m1fn", "fp4x2_e2m1_t", "fp4_e2m1", "e2m1", "float4_e2m1", "f4"],
        "OCP fp4 E2M1, finite only, max 6";
    /// Huawei fp4 E1M2: finite only, max 1.75.
    F4E1M2 = "f4e1m2", 4, binary(1, 2, 1, Specials::FiniteOnly),
        ["fp4x2_e1m2_t", "float4_e1m2", "fp4_e1m2", "e1m2"],
        "Huawei fp4 E1M2, finite only, max 1.75";
    /// Signed 2-bit two's complement, -2..=1 (ml_dtypes `int2`).
    I2 = "i2", 2, int(true),
        ["int2"], "signed 2-bit integer";
    /// Signed 4-bit two's complement, -8..=7.
    I4 = "i4", 4, int(true),
        ["int4", "int4b_t", "int4x2_t"], "signed 4-bit integer";
    /// Signed 8-bit integer.
    I8 = "i8", 8, int(true),
        ["int8", "int8_t", "torch.int8"], "signed 8-bit integer";
    /// Signed 16-bit integer.
    I16 = "i16", 16, int(true),
        ["int16", "int16_t", "torch.int16", "short"], "signed 16-bit integer";
    /// Signed 32-bit integer.
    I32 = "i32", 32, int(true),
        ["int32", "int32_t", "torch.int32", "int"], "signed 32-bit integer";
    /// Signed 64-bit integer.
    I64 = "i64", 64, int(true),
        ["int64", "int64_t", "torch.int64", "long"], "signed 64-bit integer";
    /// Unsigned 2-bit integer, 0..=3 (ml_dtypes `uint2`).
    U2 = "u2", 2, int(false),
        ["uint2"], "unsigned 2-bit integer";
    /// Unsigned 4-bit integer, 0..=15 (ml_dtypes `uint4`).
    U4 = "u4", 4, int(false),
        ["uint4", "uint4b_t"], "unsigned 4-bit integer";
    /// Unsigned 8-bit integer.
    U8 = "u8", 8, int(false),
        ["uint8", "uint8_t", "torch.uint8"], "unsigned 8-bit integer";
    /// Unsigned 16-bit integer.
    U16 = "u16", 16, int(false),
        ["uint16", "uint16_t", "torch.uint16"], "unsigned 16-bit integer";
    /// Unsigned 32-bit integer.
    U32 = "u32", 32, int(false),
        ["uint32", "uint32_t", "torch.uint32"], "unsigned 32-bit integer";
    /// Unsigned 64-bit integer.
    U64 = "u64", 64, int(false),
        ["uint64", "uint64_t", "torch.uint64"], "unsigned 64-bit integer";
}
