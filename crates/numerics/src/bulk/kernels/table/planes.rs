//! The results of a table of at most 8-bit sources as byte planes: plane `k` is byte `k` of
//! every destination code, and one or two further planes hold a bit per status class. The
//! AVX-512 lookup ([`crate::bulk::kernels::x86_avx512::table`]) holds them in registers and
//! looks them up by byte permutes.

use crate::bulk::Storage;
use crate::status::{Status, StatusCounts};

/// Entries of a plane: one per 8-bit source code.
pub(crate) const CODES: usize = 256;
/// Most status classes counted (two planes of 8 bits).
pub(crate) const MAX_MARKS: usize = 16;
/// Most destination bytes (one plane each).
pub(crate) const MAX_BYTES: usize = 8;
/// Raw status bits that make a result inexact in [`StatusCounts::exact`]'s sense.
const LOSSY: u16 = Status::INEXACT.bits() | Status::INVALID.bits();

/// What one class bit counts: the raw status bits added per element marked, and whether it
/// takes the element out of the exact count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mark {
    /// Flags counted once per marked element.
    pub(crate) flags: u16,
    /// Whether a marked element is not exact.
    pub(crate) lossy: bool,
}

/// The byte planes of one (source of at most 8 bits, destination, policy) table.
#[derive(Debug)]
pub(crate) struct Planes {
    /// Whether source codes have more than 6 bits (two permutes and a blend per plane).
    pub(crate) wide: bool,
    /// Byte `k` of each source code's destination code, for `k` below the destination bytes.
    pub(crate) code: Box<[[u8; CODES]]>,
    /// Whether plane `k` of `code` is non-zero for some code: zero planes are neither looked
    /// up nor, for 4-byte codes, zipped.
    pub(crate) live: [bool; MAX_BYTES],
    /// Bit `j % 8` of plane `j / 8` set where the code's status falls in class `j`.
    pub(crate) marks: Box<[[u8; CODES]]>,
    /// What each class counts.
    pub(crate) classes: Box<[Mark]>,
    /// Where every code plane is sign-symmetric (byte `k` of code `c | 0x80` is byte `k` of
    /// code `c` xor `flip[k]`, for every `c` below 128): `flip`. The AVX2 lookup then looks
    /// up 128 entries and flips the bytes of codes from 128.
    pub(crate) sign_flip: Option<[u8; MAX_BYTES]>,
    /// Whether every mark plane is the same for `c` and `c | 0x80`.
    pub(crate) marks_even: bool,
}

impl Planes {
    /// The planes of a source of `src_bits` (at most 8) into codes of `dst_bytes` bytes, from
    /// `result(c)`: the code and raw status bits of source code `c & (2^src_bits - 1)`, for
    /// every `c` below 256. `None` for a wider source or destination.
    pub(crate) fn new(
        src_bits: u32,
        dst_bytes: usize,
        result: impl Fn(usize) -> (u64, u16),
    ) -> Option<Planes> {
        if src_bits > 8 || dst_bytes > MAX_BYTES {
            return None;
        }
        let all: Vec<(u64, u16)> = (0..CODES).map(result).collect();
        let code: Box<[[u8; CODES]]> = (0..dst_bytes)
            .map(|k| std::array::from_fn(|c| all[c].0.to_le_bytes()[k]))
            .collect();
        // A class per distinct non-OK status if there are few; else one per flag, and one for
        // "not exact".
        let mut distinct: Vec<u16> = all.iter().map(|r| r.1).filter(|&s| s != 0).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let (classes, of): (Vec<Mark>, Box<dyn Fn(u16) -> u16>) = if distinct.len() <= MAX_MARKS {
            let classes = distinct
                .iter()
                .map(|&s| Mark {
                    flags: s,
                    lossy: s & LOSSY != 0,
                })
                .collect();
            let d = distinct.clone();
            let of = move |s: u16| {
                d.iter()
                    .position(|&x| x == s && s != 0)
                    .map_or(0, |j| 1u16 << j)
            };
            (classes, Box::new(of))
        } else {
            let any = distinct.iter().fold(0u16, |a, &s| a | s);
            let bits: Vec<u16> = (0..16)
                .map(|i| 1u16 << i)
                .filter(|b| any & b != 0)
                .collect();
            let mut classes: Vec<Mark> = bits
                .iter()
                .map(|&b| Mark {
                    flags: b,
                    lossy: false,
                })
                .collect();
            classes.push(Mark {
                flags: 0,
                lossy: true,
            });
            let of = move |s: u16| {
                let mut m = 0u16;
                for (j, &b) in bits.iter().enumerate() {
                    if s & b != 0 {
                        m |= 1 << j;
                    }
                }
                if s & LOSSY != 0 {
                    m |= 1 << bits.len();
                }
                m
            };
            (classes, Box::new(of))
        };
        if classes.len() > MAX_MARKS {
            return None;
        }
        let marks: Box<[[u8; CODES]]> = (0..classes.len().div_ceil(8))
            .map(|p| std::array::from_fn(|c| (of(all[c].1) >> (8 * p)) as u8))
            .collect();
        let mut live = [false; MAX_BYTES];
        for (l, plane) in live.iter_mut().zip(code.iter()) {
            *l = plane.iter().any(|&b| b != 0);
        }
        let mut flip = [0u8; MAX_BYTES];
        let symmetric = code.iter().zip(flip.iter_mut()).all(|(plane, x)| {
            *x = plane[0] ^ plane[128];
            (0..128).all(|c| plane[c] ^ plane[c | 128] == *x)
        });
        let marks_even = marks
            .iter()
            .all(|plane| (0..128).all(|c| plane[c] == plane[c | 128]));
        Some(Planes {
            sign_flip: symmetric.then_some(flip),
            marks_even,
            wide: src_bits > 6,
            code,
            live,
            marks,
            classes: classes.into_boxed_slice(),
        })
    }

    /// The status counts of `n` elements of which `seen[j]` fell in class `j`.
    pub(crate) fn counts(&self, seen: &[u64; MAX_MARKS], n: usize) -> StatusCounts {
        let mut counts = StatusCounts {
            total: n as u64,
            exact: n as u64,
            ..StatusCounts::default()
        };
        for (mark, &k) in self.classes.iter().zip(seen.iter()) {
            if mark.lossy {
                counts.exact -= k;
            }
            for (f, slot) in counts.flags.iter_mut().enumerate() {
                if mark.flags & (1 << f) != 0 {
                    *slot += k;
                }
            }
        }
        counts
    }

    /// Whether the AVX-512 lookup casts into storage `d` (codes of at most [`MAX_BYTES`] bytes,
    /// one per element or packed four or two per byte).
    pub(crate) fn serves(&self, d: Storage) -> bool {
        if d.is_packed() {
            matches!(d.per_byte(), 2 | 4) && !self.code.is_empty()
        } else {
            matches!(self.code.len(), 1 | 2 | 4 | 8)
                && d.format().unpacked_bytes() == self.code.len()
        }
    }
}
