//! The results of a table of at most 8-bit sources as byte planes: plane `k` is byte `k` of
//! every destination code, and one or two further planes hold a bit per status class. The
//! AVX-512 lookup ([`crate::bulk::kernels::x86_avx512::table`]) holds them in registers and
//! looks them up by byte permutes.

use crate::bulk::Storage;
use crate::bulk::kernels::table::rule::Rule;
use crate::status::{Status, StatusCounts};

/// Entries of a plane: one per 8-bit source code.
pub(crate) const CODES: usize = 256;
/// Most status classes counted (two planes of 8 bits).
pub(crate) const MAX_MARKS: usize = 16;
/// Most destination bytes (one plane each).
pub(crate) const MAX_BYTES: usize = 8;
/// Raw status bits that make a result inexact in [`StatusCounts::exact`]'s sense.
const LOSSY: u16 = Status::INEXACT.bits() | Status::INVALID.bits();
/// Most [`Cube`]s of all classes together for which [`Planes::cubes`] is given.
pub(crate) const MAX_CUBES: usize = 8;

/// A set of source codes of one status class: the codes `c` with `c & mask == value`. A
/// class's cubes are disjoint and cover it, so that a byte compare per cube counts the class
/// without looking up its mark plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cube {
    /// The code bits that decide membership.
    pub(crate) mask: u8,
    /// Those bits of every member.
    pub(crate) value: u8,
    /// The class ([`Planes::classes`] index) it counts.
    pub(crate) class: usize,
}

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
    /// Where every code plane is sign-symmetric as for [`Planes::sign_flip`] but for one code
    /// from 128 (HiF8's NaN code 0x80, whose partner 0x00 is zero): the flip, and that code.
    /// The AVX2 lookup then looks up 128 entries, flips, and blends that code's bytes in.
    pub(crate) sign_flip_but: Option<([u8; MAX_BYTES], u8)>,
    /// Whether every mark plane is the same for `c` and `c | 0x80`.
    pub(crate) marks_even: bool,
    /// Each class as disjoint [`Cube`]s of the 256 byte codes, when all classes together need
    /// at most [`MAX_CUBES`] (as the NaN and Inf codes of the fp8 formats do); the lookups of
    /// one-code-per-byte sources then count classes by byte compares of the source codes, in
    /// a pass of their own, instead of looking up the mark planes.
    pub(crate) cubes: Option<Box<[Cube]>>,
    /// For 4-byte codes: the arithmetic [`Rule`] that gives every source byte's code, where
    /// one has few exceptions (fp8 and e8m0 → f32); the AVX2 lookup then computes the codes
    /// instead of looking them up.
    pub(crate) rule: Option<Rule>,
}

/// The class of code set `members` (`members[c]` for byte code `c`) as disjoint cubes: the
/// codes merged pairwise while two cubes of the same mask differ in one value bit (as
/// Quine-McCluskey's first step does; a merge of two disjoint cubes is their union, so the
/// cubes stay disjoint); `None` beyond `limit` cubes.
pub(crate) fn cubes_of(members: &[bool; CODES], class: usize, limit: usize) -> Option<Vec<Cube>> {
    let mut cubes: Vec<Cube> = (0..CODES)
        .filter(|&c| members[c])
        .map(|c| Cube {
            mask: 0xFF,
            value: c as u8,
            class,
        })
        .collect();
    loop {
        let mut merged = false;
        for b in 0..8 {
            let bit = 1u8 << b;
            // Partners (same mask, values differing in `bit` only) end up side by side.
            cubes.sort_unstable_by_key(|c| (c.mask, c.value & !bit, c.value));
            let mut out = Vec::with_capacity(cubes.len());
            let mut i = 0;
            while i < cubes.len() {
                let x = cubes[i];
                if let Some(&y) = cubes.get(i + 1)
                    && x.mask == y.mask
                    && x.mask & bit != 0
                    && x.value ^ y.value == bit
                {
                    out.push(Cube {
                        mask: x.mask & !bit,
                        value: x.value & !bit,
                        class,
                    });
                    merged = true;
                    i += 2;
                } else {
                    out.push(x);
                    i += 1;
                }
            }
            cubes = out;
        }
        if !merged {
            break;
        }
    }
    (cubes.len() <= limit).then_some(cubes)
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
        // Sign-symmetric but for one pair: the flip of pair 0x01 / 0x81 (or 0x00 / 0x80, when
        // the pair at 1 is the odd one), and the code from 128 of the one pair that differs.
        let sign_flip_but = (!symmetric)
            .then(|| {
                let base = if code.iter().all(|p| p[0] ^ p[128] == p[2] ^ p[130]) {
                    0
                } else {
                    1
                };
                let flip: [u8; MAX_BYTES] =
                    std::array::from_fn(|k| code.get(k).map_or(0, |p| p[base] ^ p[base | 128]));
                let odd: Vec<usize> = (0..128)
                    .filter(|&c| code.iter().zip(&flip).any(|(p, x)| p[c] ^ p[c | 128] != *x))
                    .collect();
                (odd.len() == 1).then(|| (flip, (odd[0] | 128) as u8))
            })
            .flatten();
        let marks_even = marks
            .iter()
            .all(|plane| (0..128).all(|c| plane[c] == plane[c | 128]));
        let cubes = (|| {
            let mut all = Vec::new();
            for j in 0..classes.len() {
                let members: [bool; CODES] =
                    std::array::from_fn(|c| (marks[j / 8][c] >> (j % 8)) & 1 != 0);
                all.extend(cubes_of(&members, j, MAX_CUBES - all.len())?);
            }
            Some(all.into_boxed_slice())
        })();
        let rule = (dst_bytes == 4)
            .then(|| Rule::find(&std::array::from_fn(|c| all[c].0 as u32)))
            .flatten();
        Some(Planes {
            rule,
            cubes,
            sign_flip: symmetric.then_some(flip),
            sign_flip_but,
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

    /// Adds to `seen` the classes of the one-per-byte source codes `src`, counted cube by cube
    /// (the portable form of the lookups' compare passes, for their last elements).
    pub(crate) fn count_by_cubes(&self, cubes: &[Cube], src: &[u8], seen: &mut [u64; MAX_MARKS]) {
        for cube in cubes {
            let k = src.iter().filter(|&&b| b & cube.mask == cube.value).count();
            seen[cube.class] += k as u64;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `cubes` cover exactly the members, each member once.
    fn covers_once(cubes: &[Cube], members: &[bool; CODES]) -> bool {
        (0..CODES).all(|c| {
            let hits = cubes.iter().filter(|k| c as u8 & k.mask == k.value).count();
            hits == usize::from(members[c])
        })
    }

    #[test]
    fn the_nan_and_inf_codes_of_e5m2_take_three_cubes() {
        // e5m2: ±Inf 0x7C / 0xFC, NaN 0x7D-0x7F / 0xFD-0xFF
        let inf: [bool; CODES] = std::array::from_fn(|c| c & 0x7F == 0x7C);
        let nan: [bool; CODES] = std::array::from_fn(|c| c & 0x7F > 0x7C);
        let (Some(a), Some(b)) = (cubes_of(&inf, 0, 8), cubes_of(&nan, 1, 8)) else {
            panic!("cubes");
        };
        assert_eq!(
            a,
            vec![Cube {
                mask: 0x7F,
                value: 0x7C,
                class: 0
            }]
        );
        assert_eq!(b.len(), 2);
        assert!(covers_once(&a, &inf) && covers_once(&b, &nan));
    }

    #[test]
    fn cubes_cover_their_class_once_or_are_refused_past_the_limit() {
        // made-up classes: every k-th code, runs, one code, none, all
        let sets: Vec<[bool; CODES]> = vec![
            std::array::from_fn(|c| c % 3 == 0),
            std::array::from_fn(|c| (40..77).contains(&c)),
            std::array::from_fn(|c| c == 0x80),
            [false; CODES],
            [true; CODES],
            std::array::from_fn(|c| c & 0x0F == 0x0F),
        ];
        for (j, members) in sets.iter().enumerate() {
            let Some(all) = cubes_of(members, j, CODES) else {
                panic!("set {j}");
            };
            assert!(covers_once(&all, members), "set {j}");
            assert!(all.iter().all(|k| k.value & !k.mask == 0 && k.class == j));
            if all.len() > 1 {
                assert!(cubes_of(members, j, all.len() - 1).is_none(), "set {j}");
            }
        }
        assert_eq!(cubes_of(&[true; CODES], 0, 1).map(|c| c[0].mask), Some(0));
    }

    #[test]
    fn planes_sign_symmetric_but_for_one_code_name_it_and_their_flip() {
        // HiF8-like: c | 0x80 is -c, but 0x80 is a NaN (not -0)
        let f = |c: usize| -> (u64, u16) {
            let v = if c == 0x80 {
                0x7FC0_0000
            } else {
                ((c as u64 & 0x7F) << 20) | ((c as u64 >> 7) << 31)
            };
            (v, 0)
        };
        let Some(p) = Planes::new(8, 4, f) else {
            panic!("planes")
        };
        assert_eq!(p.sign_flip, None);
        let Some((flip, code)) = p.sign_flip_but else {
            panic!("sign_flip_but")
        };
        assert_eq!((flip[..4].to_vec(), code), (vec![0, 0, 0, 0x80], 0x80));
        // the odd pair at 0x01 / 0x81, or 0x05 / 0x85: the flip from another pair
        for odd in [0x01usize, 0x05] {
            let g = |c: usize| match c {
                0x80 => (0x8000_0000, 0),
                _ if c == odd | 0x80 => (0x1234, 0),
                _ => f(c),
            };
            let Some(p) = Planes::new(8, 4, g) else {
                panic!("planes")
            };
            assert_eq!(
                p.sign_flip_but.map(|(x, c)| (x[3], c)),
                Some((0x80, (odd | 0x80) as u8))
            );
        }
        // symmetric planes have a plain flip; two odd codes, neither
        let sym = |c: usize| if c == 0x80 { (0x8000_0000, 0) } else { f(c) };
        let Some(p) = Planes::new(8, 4, sym) else {
            panic!("planes")
        };
        assert!(p.sign_flip.is_some() && p.sign_flip_but.is_none());
        let two = |c: usize| if c == 0x93 { (7, 0) } else { f(c) };
        let Some(p) = Planes::new(8, 4, two) else {
            panic!("planes")
        };
        assert!(p.sign_flip.is_none() && p.sign_flip_but.is_none());
    }

    #[test]
    fn planes_of_fp8_like_results_count_their_classes_by_cubes() {
        // NaN at 0x7F / 0xFF, Inf at 0x7C / 0xFC (two classes, two cubes)
        let p = Planes::new(8, 4, |c| {
            let s = match c & 0x7F {
                0x7F => Status::NAN.bits(),
                0x7C => Status::INVALID.bits(),
                _ => 0,
            };
            (c as u64, s)
        });
        let Some(p) = p else { panic!("planes") };
        let Some(cubes) = p.cubes.as_deref() else {
            panic!("cubes")
        };
        assert_eq!(cubes.len(), 2);
        let src: Vec<u8> = (0..=255u8).chain([0x7F, 0xFC, 3]).collect();
        let mut seen = [0u64; MAX_MARKS];
        p.count_by_cubes(cubes, &src, &mut seen);
        let mut by_marks = [0u64; MAX_MARKS];
        for &b in &src {
            for (j, s) in by_marks.iter_mut().enumerate().take(p.classes.len()) {
                *s += u64::from((p.marks[j / 8][usize::from(b)] >> (j % 8)) & 1);
            }
        }
        assert_eq!(seen, by_marks);
        assert_eq!(seen[..2].iter().sum::<u64>(), 6);
    }
}
