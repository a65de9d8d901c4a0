//! The geometry of one slice's DM: banks, rows and the address bits that select them.

/// Banks per slice.
pub const DM_BANKS: usize = 16;

/// Rows per bank.
pub const DM_ROWS: usize = 4096;

/// Bytes per bank row.
pub const DM_ROW_BYTES: usize = 8;

/// Bytes of one slice's DM: 16 banks × 4096 rows × 8 bytes = 524,288 (512 KiB).
pub const DM_SLICE_BYTES: usize = DM_BANKS * DM_ROWS * DM_ROW_BYTES;

/// A DM byte address split into its fields (*Memory Performance* page): bits 0–2 the byte in
/// the row, bits 3–6 the bank, bits 7–18 the row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DmAddress {
    /// Row in the bank (bits 7–18).
    pub row: usize,
    /// Bank (bits 3–6).
    pub bank: usize,
    /// Byte in the 8-byte row (bits 0–2).
    pub byte: usize,
}

impl DmAddress {
    /// Splits byte address `addr` (below [`DM_SLICE_BYTES`]; higher bits are ignored).
    ///
    /// ```
    /// use npusim_furiosa::dm::DmAddress;
    /// assert_eq!(DmAddress::of(1053), DmAddress { row: 8, bank: 3, byte: 5 });
    /// ```
    pub const fn of(addr: usize) -> DmAddress {
        DmAddress {
            row: (addr >> 7) & (DM_ROWS - 1),
            bank: (addr >> 3) & (DM_BANKS - 1),
            byte: addr & (DM_ROW_BYTES - 1),
        }
    }
}
