//! Ascend 950 MicroAPI registers: `RegTensor<T>` (one 256-byte vector register), `MaskReg`
//! (one bit per byte lane), and the aligned loads and stores that move them to and from the UB.

use std::marker::PhantomData;

use crate::dtype::DType;
use crate::error::AscendError;
use npusim_hw::ByteRange;

use crate::limits::TENSOR_ALIGN_BYTES;
use crate::memory::{Element, UnifiedBuffer, read_code, write_code};

/// Vector register length in bytes.
pub const VL_BYTES: usize = 256;
/// Mask register length in bits (one per byte lane).
pub const MASK_BITS: usize = VL_BYTES;

/// Lanes of a `dtype` register (512 for 4-bit types).
pub const fn lanes(dtype: DType) -> usize {
    VL_BYTES * 8 / dtype.size_bits() as usize
}

/// The mask bit that governs lane `i` of a `dtype` register: the bit of its first byte
/// (for 4-bit types, the byte holding the nibble).
pub const fn lane_bit(dtype: DType, i: usize) -> usize {
    i * dtype.size_bits() as usize / 8
}

/// A vector register holding elements of `T`.
///
/// ```
/// use npusim_ascend::{RegTensor, ty};
/// let mut r = RegTensor::<ty::Half>::zeroed();
/// r.set(3, 0x3C00);
/// assert_eq!(r.get(3), 0x3C00);
/// assert_eq!(RegTensor::<ty::Half>::LANES, 128);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegTensor<T: Element> {
    bytes: [u8; VL_BYTES],
    _t: PhantomData<T>,
}

impl<T: Element> RegTensor<T> {
    /// Number of lanes.
    pub const LANES: usize = lanes(T::DTYPE);

    /// An all-zero register.
    pub fn zeroed() -> RegTensor<T> {
        RegTensor {
            bytes: [0; VL_BYTES],
            _t: PhantomData,
        }
    }

    /// A register from lane codes (missing lanes are zero).
    pub fn from_codes(codes: &[u64]) -> Result<RegTensor<T>, AscendError> {
        if codes.len() > Self::LANES {
            return Err(AscendError::RegisterRange {
                what: "lane count",
                value: codes.len(),
                max: Self::LANES,
            });
        }
        let mut r = RegTensor::zeroed();
        for (i, &c) in codes.iter().enumerate() {
            r.set(i, c);
        }
        Ok(r)
    }

    /// The code of lane `i`. Panics if `i >= LANES` (an internal index, never user data).
    pub fn get(&self, i: usize) -> u64 {
        read_code(&self.bytes, 0, T::DTYPE, i)
    }

    /// Sets lane `i`.
    pub fn set(&mut self, i: usize, code: u64) {
        write_code(&mut self.bytes, 0, T::DTYPE, i, code);
    }

    /// Every lane's code.
    pub fn codes(&self) -> Vec<u64> {
        (0..Self::LANES).map(|i| self.get(i)).collect()
    }

    /// The raw register bytes.
    pub fn bytes(&self) -> &[u8; VL_BYTES] {
        &self.bytes
    }

    /// A register holding these bytes.
    pub fn from_bytes(bytes: [u8; VL_BYTES]) -> RegTensor<T> {
        RegTensor {
            bytes,
            _t: PhantomData,
        }
    }
}

/// A predicate register: one bit per byte lane of a vector register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MaskReg {
    words: [u64; MASK_BITS / 64],
}

/// Patterns of `CreateMask<T, pattern>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaskPattern {
    /// Every element.
    All,
    /// No element.
    AllFalse,
    /// The first `n` elements (`VL1`..`VL128` and friends).
    First(usize),
    /// The first half of the elements.
    Half,
    /// The first quarter of the elements.
    Quarter,
    /// Every third element from 0 (`M3`).
    Every3,
    /// Every fourth element from 0 (`M4`).
    Every4,
}

impl MaskReg {
    /// All bits clear.
    pub const fn none() -> MaskReg {
        MaskReg {
            words: [0; MASK_BITS / 64],
        }
    }

    /// From four 64-bit words, bit `i` of the register in bit `i % 64` of word `i / 64`.
    pub const fn from_words(words: [u64; 4]) -> MaskReg {
        MaskReg { words }
    }

    /// The four words.
    pub const fn words(&self) -> [u64; 4] {
        self.words
    }

    /// Bit `i`.
    pub const fn bit(&self, i: usize) -> bool {
        (self.words[i / 64] >> (i % 64)) & 1 == 1
    }

    /// Sets or clears bit `i`.
    pub fn set_bit(&mut self, i: usize, on: bool) {
        if on {
            self.words[i / 64] |= 1 << (i % 64);
        } else {
            self.words[i / 64] &= !(1 << (i % 64));
        }
    }

    /// Selects element `i` of `dtype`: sets every bit of the bytes it occupies.
    pub fn select(&mut self, dtype: DType, i: usize) {
        let bytes = (dtype.size_bits() as usize / 8).max(1);
        let first = lane_bit(dtype, i);
        for b in first..first + bytes {
            self.set_bit(b, true);
        }
    }

    /// Whether element `i` of `dtype` is selected (its first byte's bit).
    pub const fn selects(&self, dtype: DType, i: usize) -> bool {
        self.bit(lane_bit(dtype, i))
    }

    /// `CreateMask<T, pattern>()`.
    pub fn create<T: Element>(pattern: MaskPattern) -> Result<MaskReg, AscendError> {
        let n = lanes(T::DTYPE);
        let pick: Box<dyn Fn(usize) -> bool> = match pattern {
            MaskPattern::All => Box::new(|_| true),
            MaskPattern::AllFalse => Box::new(|_| false),
            MaskPattern::First(k) => {
                if k > n {
                    return Err(AscendError::RegisterRange {
                        what: "CreateMask element count",
                        value: k,
                        max: n,
                    });
                }
                Box::new(move |i| i < k)
            }
            MaskPattern::Half => Box::new(move |i| i < n / 2),
            MaskPattern::Quarter => Box::new(move |i| i < n / 4),
            MaskPattern::Every3 => Box::new(|i| i % 3 == 0),
            MaskPattern::Every4 => Box::new(|i| i % 4 == 0),
        };
        let mut m = MaskReg::none();
        for i in (0..n).filter(|&i| pick(i)) {
            m.select(T::DTYPE, i);
        }
        Ok(m)
    }

    /// `UpdateMask<T>(count)`: the first `min(count, lanes)` elements; `count` goes down by the
    /// lane count (not below 0), ready for the next iteration.
    ///
    /// ```
    /// use npusim_ascend::{MaskReg, ty};
    /// let mut count = 100u32;
    /// let m = MaskReg::update::<ty::Float>(&mut count); // 64 floats per register
    /// assert_eq!(count, 36);
    /// assert!(m.selects(npusim_ascend::DType::Float, 63));
    /// let m = MaskReg::update::<ty::Float>(&mut count);
    /// assert!(m.selects(npusim_ascend::DType::Float, 35) && !m.selects(npusim_ascend::DType::Float, 36));
    /// ```
    pub fn update<T: Element>(count: &mut u32) -> MaskReg {
        let n = lanes(T::DTYPE);
        let k = (*count as usize).min(n);
        let mut m = MaskReg::none();
        for i in 0..k {
            m.select(T::DTYPE, i);
        }
        *count = count.saturating_sub(n as u32);
        m
    }
}

/// `LoadAlign(reg, addr)`: 256 bytes from a 32-byte aligned UB address.
pub fn load_align<T: Element>(
    ub: &UnifiedBuffer,
    addr: usize,
) -> Result<RegTensor<T>, AscendError> {
    check_reg_access(ub, addr)?;
    let mut r = RegTensor::zeroed();
    r.bytes.copy_from_slice(&ub.bytes()[addr..addr + VL_BYTES]);
    Ok(r)
}

/// `StoreAlign(addr, reg, mask)`: writes the lanes the mask selects to a 32-byte aligned address.
pub fn store_align<T: Element>(
    ub: &mut UnifiedBuffer,
    addr: usize,
    reg: &RegTensor<T>,
    mask: &MaskReg,
) -> Result<(), AscendError> {
    check_reg_access(ub, addr)?;
    for i in 0..RegTensor::<T>::LANES {
        if mask.selects(T::DTYPE, i) {
            write_code(ub.bytes_mut(), addr, T::DTYPE, i, reg.get(i));
        }
    }
    Ok(())
}

fn check_reg_access(ub: &UnifiedBuffer, addr: usize) -> Result<(), AscendError> {
    if !addr.is_multiple_of(TENSOR_ALIGN_BYTES) {
        return Err(AscendError::Misaligned { addr });
    }
    if !ByteRange::new(addr, VL_BYTES).is_ok_and(|r| ub.range().contains(&r)) {
        return Err(AscendError::OutsideBuffer {
            addr,
            bytes: VL_BYTES,
            ub_bytes: ub.size(),
        });
    }
    Ok(())
}
