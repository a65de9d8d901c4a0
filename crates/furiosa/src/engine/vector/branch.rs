//! Tags and guarded operands: `vector_intra_slice_branch(BranchMode::Comparison)`
//! gives every element a 4-bit tag from four comparisons of its input value; a binary stage
//! may then take up to three immediates, each behind a [`TagGuard`], and every element takes
//! the first slot whose guard admits its tag (elements no slot admits pass through).

use crate::DType;

/// An immediate of the stream's scalar type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Imm {
    /// For i32 streams.
    I32(i32),
    /// For f32 streams.
    F32(f32),
}

impl Imm {
    /// The scalar type the immediate belongs to.
    pub fn dtype(self) -> DType {
        match self {
            Imm::I32(_) => DType::I32,
            Imm::F32(_) => DType::F32,
        }
    }

    /// The 32-bit pattern.
    pub fn bits(self) -> u32 {
        match self {
            Imm::I32(v) => v as u32,
            Imm::F32(v) => v.to_bits(),
        }
    }
}

impl From<i32> for Imm {
    fn from(v: i32) -> Self {
        Imm::I32(v)
    }
}

impl From<f32> for Imm {
    fn from(v: f32) -> Self {
        Imm::F32(v)
    }
}

/// One comparison of `TagMode::Comparison` (here `BranchMode::Comparison`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cmp {
    /// `x == v` (f32: IEEE, so `-0.0 == 0.0` and NaN never equal).
    Equal(Imm),
    /// `x < v` (signed for i32, IEEE for f32).
    Less(Imm),
    /// `x > v` (signed for i32, IEEE for f32).
    Greater(Imm),
    /// Raw 32-bit patterns compared as u32: `bits(x) < bits(v)`.
    LessUnsigned(Imm),
    /// Raw 32-bit patterns compared as u32: `bits(x) > bits(v)`.
    GreaterUnsigned(Imm),
    /// Always.
    True,
    /// Never.
    False,
}

impl Cmp {
    /// The immediate, if the comparison has one.
    pub fn imm(self) -> Option<Imm> {
        match self {
            Cmp::Equal(v)
            | Cmp::Less(v)
            | Cmp::Greater(v)
            | Cmp::LessUnsigned(v)
            | Cmp::GreaterUnsigned(v) => Some(v),
            Cmp::True | Cmp::False => None,
        }
    }

    /// Whether element `code` (a 32-bit pattern of `dtype`) satisfies the comparison; the
    /// immediate must be of `dtype` (checked by the caller).
    pub fn test(self, code: u32, dtype: DType) -> bool {
        let ordered = |v: Imm| -> Option<std::cmp::Ordering> {
            match dtype {
                DType::F32 => f32::from_bits(code).partial_cmp(&f32::from_bits(v.bits())),
                _ => Some((code as i32).cmp(&(v.bits() as i32))),
            }
        };
        match self {
            Cmp::Equal(v) => ordered(v) == Some(std::cmp::Ordering::Equal),
            Cmp::Less(v) => ordered(v) == Some(std::cmp::Ordering::Less),
            Cmp::Greater(v) => ordered(v) == Some(std::cmp::Ordering::Greater),
            Cmp::LessUnsigned(v) => code < v.bits(),
            Cmp::GreaterUnsigned(v) => code > v.bits(),
            Cmp::True => true,
            Cmp::False => false,
        }
    }
}

/// Entry mode of `vector_intra_slice_branch`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BranchMode {
    /// Every element takes the same path (all tags 0).
    Unconditional,
    /// Bit i of an element's tag is comparison i of its value (bit 3 is also the group id).
    Comparison([Cmp; 4]),
}

impl BranchMode {
    /// The tag of element `code` of `dtype`.
    pub fn tag(self, code: u32, dtype: DType) -> u8 {
        match self {
            BranchMode::Unconditional => 0,
            BranchMode::Comparison(cmps) => cmps
                .iter()
                .enumerate()
                .filter(|(_, c)| c.test(code, dtype))
                .fold(0, |t, (i, _)| t | (1 << i)),
        }
    }
}

/// What a guard asks of one tag bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitReq {
    /// The bit is set.
    One,
    /// The bit is clear.
    Zero,
    /// Either.
    Ignore,
}

/// Which tags (0..16) a slot applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TagGuard {
    admits: u16,
}

impl TagGuard {
    /// Every tag.
    pub fn all() -> TagGuard {
        TagGuard { admits: u16::MAX }
    }

    /// Tags whose bits meet every requirement (listed LSB first).
    pub fn matches(reqs: [BitReq; 4]) -> TagGuard {
        let admits = (0u16..16)
            .filter(|&t| {
                reqs.iter().enumerate().all(|(i, r)| match r {
                    BitReq::One => t >> i & 1 == 1,
                    BitReq::Zero => t >> i & 1 == 0,
                    BitReq::Ignore => true,
                })
            })
            .fold(0, |m, t| m | (1 << t));
        TagGuard { admits }
    }

    /// Tags that `matches(reqs)` does not admit.
    pub fn not_matches(reqs: [BitReq; 4]) -> TagGuard {
        TagGuard {
            admits: !TagGuard::matches(reqs).admits,
        }
    }

    /// Tags whose group bit (bit 3) is `group`.
    pub fn group(group: bool) -> TagGuard {
        let b = if group { BitReq::One } else { BitReq::Zero };
        TagGuard::matches([BitReq::Ignore, BitReq::Ignore, BitReq::Ignore, b])
    }

    /// Whether the guard admits `tag`.
    pub fn admits(self, tag: u8) -> bool {
        self.admits >> (tag & 15) & 1 == 1
    }

    /// Whether it admits every tag.
    pub fn is_all(self) -> bool {
        self.admits == u16::MAX
    }

    /// Whether it admits none (a dead guard).
    pub fn is_dead(self) -> bool {
        self.admits == 0
    }
}

/// Up to three guarded immediates of one binary stage (`Branched::imm(guard, value)`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Branched {
    slots: Vec<(TagGuard, Imm)>,
}

/// Immediate slots of a binary stage.
pub const IMMEDIATE_SLOTS: usize = 3;

impl Branched {
    /// No slots yet.
    pub fn new() -> Branched {
        Branched::default()
    }

    /// Adds an immediate behind `guard` (slots are tried in the order added).
    pub fn imm(mut self, guard: TagGuard, value: impl Into<Imm>) -> Branched {
        self.slots.push((guard, value.into()));
        self
    }

    /// The slots, in order.
    pub fn slots(&self) -> &[(TagGuard, Imm)] {
        &self.slots
    }

    /// Why the slots cannot be used: more than three, a dead guard, a slot after an
    /// unconditional one, or an immediate of another type than `dtype`.
    pub fn refusal(&self, dtype: DType) -> Option<String> {
        if self.slots.is_empty() {
            return Some("no operand slot".into());
        }
        if self.slots.len() > IMMEDIATE_SLOTS {
            return Some(format!(
                "{} immediate slots, at most {IMMEDIATE_SLOTS}",
                self.slots.len()
            ));
        }
        for (i, (g, v)) in self.slots.iter().enumerate() {
            if g.is_dead() {
                return Some(format!("slot {} has a guard that admits no tag", i + 1));
            }
            if v.dtype() != dtype {
                return Some(format!(
                    "slot {} holds a {} immediate but the stream holds {dtype}",
                    i + 1,
                    v.dtype()
                ));
            }
            if g.is_all() && i + 1 < self.slots.len() {
                return Some(format!(
                    "slot {} is unconditional, so slot {} could never apply",
                    i + 1,
                    i + 2
                ));
            }
        }
        None
    }

    /// The immediate element `tag` takes (the first admitting slot), if any.
    pub fn pick(&self, tag: u8) -> Option<Imm> {
        self.slots
            .iter()
            .find(|(g, _)| g.admits(tag))
            .map(|(_, v)| *v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BitReq::{Ignore, One, Zero};

    fn tag_i32(mode: BranchMode, x: i32) -> u8 {
        mode.tag(x as u32, DType::I32)
    }

    fn tag_f32(mode: BranchMode, x: f32) -> u8 {
        mode.tag(x.to_bits(), DType::F32)
    }

    #[test]
    fn g31_comparisons() {
        let m = BranchMode::Comparison([
            Cmp::Less(0.into()),
            Cmp::Equal(5.into()),
            Cmp::Greater(100.into()),
            Cmp::True,
        ]);
        assert_eq!(tag_i32(m, 7), 0b1000);
        let f = BranchMode::Comparison([
            Cmp::Equal(0.0.into()),
            Cmp::Greater(0.0.into()),
            Cmp::Less(0.0.into()),
            Cmp::True,
        ]);
        assert_eq!(tag_f32(f, 0.0), 0b1001);
        assert_eq!(tag_f32(f, 1.5), 0b1010);
        assert_eq!(tag_f32(f, -2.5), 0b1100);
        assert_eq!(tag_f32(f, -0.0), 0b1001);
        assert_eq!(tag_f32(f, f32::NAN), 0b1000);
        let gu = |v: Imm| {
            BranchMode::Comparison([Cmp::GreaterUnsigned(v), Cmp::False, Cmp::False, Cmp::False])
        };
        assert_eq!(tag_f32(gu(1.0f32.into()), -1.0), 1);
        assert_eq!(tag_i32(gu(1.into()), -1), 1);
        let lu = BranchMode::Comparison([
            Cmp::LessUnsigned(0.into()),
            Cmp::False,
            Cmp::False,
            Cmp::False,
        ]);
        for x in [0, 1, -1, i32::MIN, i32::MAX] {
            assert_eq!(tag_i32(lu, x), 0, "{x}");
        }
        assert_eq!(tag_i32(BranchMode::Unconditional, 12), 0);
    }

    #[test]
    fn guards_and_first_match() {
        assert_eq!(TagGuard::matches([Ignore; 4]), TagGuard::all());
        assert!(TagGuard::not_matches([Ignore; 4]).is_dead());
        let neg = TagGuard::matches([Zero, Zero, One, Ignore]);
        assert!(neg.admits(0b0100) && neg.admits(0b1100) && !neg.admits(0b0110));
        assert!(TagGuard::group(true).admits(8) && !TagGuard::group(true).admits(7));
        let b = Branched::new()
            .imm(TagGuard::matches([One, Ignore, Ignore, Ignore]), 1)
            .imm(TagGuard::matches([Ignore, Ignore, One, Ignore]), 2);
        assert_eq!(b.pick(0b0101), Some(Imm::I32(1)), "first slot wins");
        assert_eq!(b.pick(0b0100), Some(Imm::I32(2)));
        assert_eq!(b.pick(0b0010), None, "no slot: pass through");
        assert_eq!(b.refusal(DType::I32), None);
        assert!(
            b.refusal(DType::F32)
                .is_some_and(|r| r.contains("i32 immediate"))
        );
        let after_all = Branched::new()
            .imm(TagGuard::all(), 1)
            .imm(TagGuard::group(true), 2);
        assert!(
            after_all
                .refusal(DType::I32)
                .is_some_and(|r| r.contains("never apply"))
        );
        let four = (0..4).fold(Branched::new(), |b, i| {
            b.imm(TagGuard::group(i % 2 == 0), i)
        });
        assert!(
            four.refusal(DType::I32)
                .is_some_and(|r| r.contains("at most 3"))
        );
        let dead = Branched::new().imm(TagGuard::not_matches([Ignore; 4]), 1);
        assert!(
            dead.refusal(DType::I32)
                .is_some_and(|r| r.contains("admits no tag"))
        );
    }
}
