//! The two Wafer-Scale Engine generations and what differs between them on one PE.

use std::fmt;

use npusim_hw::Limit;

/// Bytes of local memory of one PE: 48 KiB on both generations (spec §1.1).
pub const PE_MEMORY_BYTES: u32 = 48 * 1024;

/// Bytes of local memory of one WSE-2 PE.
pub const WSE2_PE_MEMORY_BYTES: u32 = PE_MEMORY_BYTES;

/// Bytes of local memory of one WSE-3 PE (a third-party link test found exactly 49,152).
pub const WSE3_PE_MEMORY_BYTES: u32 = PE_MEMORY_BYTES;

/// A Wafer-Scale Engine generation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Arch {
    /// WSE-2.
    #[default]
    Wse2,
    /// WSE-3.
    Wse3,
}

impl Arch {
    /// Bytes of local memory of one PE.
    pub const fn memory_bytes(self) -> u32 {
        match self {
            Arch::Wse2 => WSE2_PE_MEMORY_BYTES,
            Arch::Wse3 => WSE3_PE_MEMORY_BYTES,
        }
    }

    /// 16-bit words of local memory of one PE.
    pub const fn memory_words(self) -> u32 {
        self.memory_bytes() / 2
    }

    /// The minimum alignment in bytes of a FIFO buffer (seed 004 names the rule, not the
    /// number: 4 bytes, 32-bit alignment, is an inference).
    pub const fn fifo_min_align_bytes(self) -> u32 {
        match self {
            Arch::Wse2 | Arch::Wse3 => 4,
        }
    }

    /// The PE memory as a limit on byte addresses (`[0, bytes - 1]`).
    pub const fn memory_limit(self) -> Limit {
        match self {
            Arch::Wse2 => Limit::new(
                "WSE-2 PE memory byte address",
                0,
                WSE2_PE_MEMORY_BYTES as i64 - 1,
            ),
            Arch::Wse3 => Limit::new(
                "WSE-3 PE memory byte address",
                0,
                WSE3_PE_MEMORY_BYTES as i64 - 1,
            ),
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Arch::Wse2 => "wse2",
            Arch::Wse3 => "wse3",
        })
    }
}
