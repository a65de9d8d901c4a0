//! The PE's pseudo-random generator: the `@random16()` builtin and the `<random>` library
//! that wraps it.
//!
//! What the SDK documents, modelled as written: `@random16` returns a `u16` from an LFSR with
//! polynomial x^23 + x^18 + 1 whose state is advanced 128 iterations after every use, starts
//! at `0xdeadbeef` when the program starts, is one per PE (so every PE draws the same
//! sequence until it is seeded) and is shared by the PE's tasks; `<random>`'s
//! `set_global_prng_seed(seed: u32)` sets that state, `random_f16(lo, hi)` and
//! `random_f32(lo, hi)` are uniform in `[lo, hi)`, `random_pow_u32(pow)` is uniform in
//! `[0, 2^pow)` and `random_normal_f32()` is normal through the Box-Muller transform.
//!
//! What it does not document, decided here (so values are npusim's, the same on every run,
//! not necessarily the hardware's):
//! * the state is the polynomial's 23 bits (the low 23 bits of `0xdeadbeef`, `0x2dbeef`, at
//!   the start, and of a seed); one iteration is a Fibonacci step, shifting the state left
//!   by one and taking bit 22 XOR bit 17 in at bit 0;
//! * `@random16` gives the low 16 bits of the state, then advances it 128 iterations;
//! * a seed whose low 23 bits are zero is an error (the LFSR would never leave zero);
//! * `random_f32` takes two values `a`, `b` (in that order): the top 24 bits `u` of
//!   `a << 16 | b` give `lo + (hi - lo) * u / 2^24`, computed in f64 and rounded once to
//!   f32; `random_f16` takes one value, its top 11 bits the same way, rounded once to f16;
//!   a result that rounds up to `hi` is the largest value below `hi` instead, keeping the
//!   range half-open;
//! * `random_pow_u32(pow)` (`pow` 0..=32) takes two values, `(a << 16 | b) >> (32 - pow)`;
//! * `random_normal_f32` takes two `random_f32(0, 1)` draws `u1`, `u2` and gives
//!   `sqrt(-2 ln(1 - u1)) * cos(2 pi u2)`, computed in f64 and rounded once to f32.

use npusim_cerebras::{ElemTy, PeMemory};
use npusim_numerics::Format;

use crate::comptime::IntType;
use crate::pe::RtValue;

/// The memory array holding a PE's generator state (`u32`, the LFSR's 23 bits).
pub const RANDOM_ARRAY: &str = "@random.state";

/// The LFSR's state bits (the polynomial's degree).
const STATE_MASK: u32 = (1 << 23) - 1;

/// The state every PE's generator starts from, as the SDK documents it (`0xdeadbeef`, its
/// low 23 bits).
pub const RANDOM_START: u32 = 0xdead_beef & STATE_MASK;

/// The LFSR iterations after each value.
const STEPS_PER_USE: u32 = 128;

/// One Fibonacci step of the x^23 + x^18 + 1 LFSR.
fn step(s: u32) -> u32 {
    let bit = ((s >> 22) ^ (s >> 17)) & 1;
    ((s << 1) | bit) & STATE_MASK
}

/// The next `@random16` value of state `s`, and the state after it.
pub fn next16(s: u32) -> (u16, u32) {
    let value = (s & 0xffff) as u16;
    let mut s = s;
    for _ in 0..STEPS_PER_USE {
        s = step(s);
    }
    (value, s)
}

/// The address of the PE's state word.
fn state_word(mem: &PeMemory, what: &str) -> Result<i64, String> {
    mem.array(RANDOM_ARRAY)
        .map(|a| a.word_addr)
        .map_err(|_| format!("`{what}` needs the program loaded as a whole program"))
}

/// Draws the PE's next `@random16` value.
pub(crate) fn random16(mem: &mut PeMemory, what: &str) -> Result<u16, String> {
    let word = state_word(mem, what)?;
    let s = mem.load(word, ElemTy::U32).map_err(|e| e.to_string())?;
    let (v, next) = next16(s);
    mem.store(word, ElemTy::U32, next)
        .map_err(|e| e.to_string())?;
    Ok(v)
}

/// Two values `a`, `b` as `a << 16 | b`.
fn random32(mem: &mut PeMemory, what: &str) -> Result<u32, String> {
    let a = random16(mem, what)?;
    let b = random16(mem, what)?;
    Ok(u32::from(a) << 16 | u32::from(b))
}

/// `set_global_prng_seed(seed)`.
fn set_seed(seed: i128, mem: &mut PeMemory) -> Result<RtValue, String> {
    let Ok(seed) = u32::try_from(seed) else {
        return Err(format!(
            "`set_global_prng_seed` takes a u32 seed, found {seed}"
        ));
    };
    let s = seed & STATE_MASK;
    if s == 0 {
        return Err(format!(
            "`set_global_prng_seed({seed:#x})` leaves the 23-bit LFSR state zero, which it never leaves"
        ));
    }
    let word = state_word(mem, "set_global_prng_seed")?;
    mem.store(word, ElemTy::U32, s).map_err(|e| e.to_string())?;
    Ok(RtValue::Void)
}

/// `x` rounded once to `format`; a result equal to `hi` is the value just below it.
fn below(x: f64, hi: f64, lo: f64, format: Format) -> u64 {
    let code = super::library::round_to(x, format);
    if format.decode(code).to_f64() >= hi && hi > lo {
        // the largest value below hi, in the same format (hi's code minus one toward lo)
        let h = super::library::round_to(hi, format);
        let v = format.decode(h).to_f64();
        if v > 0.0 {
            h - 1
        } else if v == 0.0 {
            // below +0 is the smallest negative subnormal
            (1u64 << (format.bits() - 1)) | 1
        } else {
            h + 1
        }
    } else {
        code
    }
}

/// A float bound of `name` (a literal is the function's type first, as Zig coerces it) as
/// its f64 value.
fn float_arg(name: &str, v: &RtValue, f16: bool) -> Result<f64, String> {
    let format = if f16 { Format::F16 } else { Format::F32 };
    let from = |x: f64| format.decode(super::library::round_to(x, format)).to_f64();
    match v {
        RtValue::F32(x) if !f16 => Ok(f64::from(*x)),
        RtValue::F16(b) if f16 => Ok(Format::F16.decode(u64::from(*b)).to_f64()),
        RtValue::ComptimeFloat(x) => Ok(from(*x)),
        RtValue::Int {
            value,
            ty: IntType::Comptime,
        } => Ok(from(*value as f64)),
        other => Err(format!(
            "`{name}` takes {} arguments, found {}",
            if f16 { "f16" } else { "f32" },
            other.type_name()
        )),
    }
}

/// `random_f32(lo, hi)` / `random_f16(lo, hi)`.
fn uniform(name: &str, args: &[RtValue], mem: &mut PeMemory) -> Result<RtValue, String> {
    let f16 = name == "random_f16";
    let (lo, hi) = (
        float_arg(name, &args[0], f16)?,
        float_arg(name, &args[1], f16)?,
    );
    if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
        return Err(format!(
            "`{name}` takes bounds lower <= upper, both finite; found {lo} and {hi}"
        ));
    }
    if f16 {
        let u = f64::from(random16(mem, name)? >> 5) / f64::from(1u32 << 11);
        Ok(RtValue::F16(
            below(lo + (hi - lo) * u, hi, lo, Format::F16) as u16
        ))
    } else {
        let u = f64::from(random32(mem, name)? >> 8) / f64::from(1u32 << 24);
        Ok(RtValue::F32(f32::from_bits(
            below(lo + (hi - lo) * u, hi, lo, Format::F32) as u32,
        )))
    }
}

/// `random_pow_u32(pow)`.
fn pow_u32(arg: &RtValue, mem: &mut PeMemory) -> Result<RtValue, String> {
    let pow = match arg {
        RtValue::Int { value, .. } if (0..=32).contains(value) => *value as u32,
        RtValue::Int { value, .. } => {
            return Err(format!(
                "`random_pow_u32` takes a power 0..=32, found {value}"
            ));
        }
        other => {
            return Err(format!(
                "`random_pow_u32` takes a u16 power, found {}",
                other.type_name()
            ));
        }
    };
    let r = random32(mem, "random_pow_u32")?;
    let v = if pow == 0 { 0 } else { r >> (32 - pow) };
    Ok(RtValue::Int {
        value: i128::from(v),
        ty: IntType::Sized {
            signed: false,
            bits: 32,
        },
    })
}

/// `random_normal_f32()`.
fn normal_f32(mem: &mut PeMemory) -> Result<RtValue, String> {
    let mut unit = || -> Result<f64, String> {
        let r = uniform("random_f32", &[RtValue::F32(0.0), RtValue::F32(1.0)], mem)?;
        match r {
            RtValue::F32(x) => Ok(f64::from(x)),
            _ => Ok(0.0),
        }
    };
    let (u1, u2) = (unit()?, unit()?);
    let z = (-2.0 * (1.0 - u1).ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
    Ok(RtValue::F32(f32::from_bits(
        super::library::round_to(z, Format::F32) as u32,
    )))
}

/// The `<random>` functions modelled, each with its arity and whether it gives a value.
pub(crate) fn arity(name: &str) -> Option<usize> {
    match name {
        "set_global_prng_seed" | "random_pow_u32" => Some(1),
        "random_f16" | "random_f32" => Some(2),
        "random_normal_f32" => Some(0),
        _ => None,
    }
}

/// Runs `<random>`'s `name` on the PE whose memory is `mem`.
pub(crate) fn call(name: &str, args: &[RtValue], mem: &mut PeMemory) -> Result<RtValue, String> {
    match name {
        "set_global_prng_seed" => match &args[0] {
            RtValue::Int { value, .. } => set_seed(*value, mem),
            other => Err(format!(
                "`set_global_prng_seed` takes a u32 seed, found {}",
                other.type_name()
            )),
        },
        "random_pow_u32" => pow_u32(&args[0], mem),
        "random_normal_f32" => normal_f32(mem),
        _ => uniform(name, args, mem),
    }
}
