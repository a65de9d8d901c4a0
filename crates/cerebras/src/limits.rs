//! The hardware limits a DSD's fields must respect, each a named [`Limit`] citing the seed.

use npusim_hw::Limit;

/// A DSD's `extent` is a `u16` (seed 004: "extent, any expression of type u16").
pub const EXTENT: Limit = Limit::new("extent", 0, u16::MAX as i64);
/// A `mem1d_dsd` stride is an `i8`, in elements (seed 004).
pub const MEM1D_STRIDE: Limit = Limit::new("mem1d_dsd stride", i8::MIN as i64, i8::MAX as i64);
/// A `mem4d_dsd` stride is an `i16`, in elements (seed 004).
pub const MEM4D_STRIDE: Limit = Limit::new("mem4d_dsd stride", i16::MIN as i64, i16::MAX as i64);
/// A memory DSD's `offset` is an `i16`, in elements (seed 004).
pub const OFFSET: Limit = Limit::new("offset", i16::MIN as i64, i16::MAX as i64);
/// A tensor access expression has one to four induction variables (seed 004, mem4d).
pub const INDUCTION_VARIABLES: Limit = Limit::new("induction variables", 1, 4);
/// A `mem1d_dsd` has exactly one induction variable (seed 004).
pub const MEM1D_VARIABLES: Limit = Limit::new("mem1d_dsd induction variables", 1, 1);
/// A `mem1d_dsd`'s extent and stride are single values, not tuples (seed 004).
pub const MEM1D_DIMENSIONS: Limit = Limit::new("mem1d_dsd dimensions", 1, 1);
/// A `mem4d_dsd` has one to four dimensions (seed 004: "up to a maximum of four").
pub const MEM4D_DIMENSIONS: Limit = Limit::new("mem4d_dsd dimensions", 1, 4);
/// `@increment_dsd_offset` takes an `i16` count of elements (seed 004).
pub const INCREMENT_OFFSET: Limit = Limit::new(
    "@increment_dsd_offset offset",
    i16::MIN as i64,
    i16::MAX as i64,
);
/// `@set_dsd_length` and the FIFO length setters take a `u16` (seed 004).
pub const LENGTH: Limit = Limit::new("length", 0, u16::MAX as i64);
/// A `circbuf_dsd`'s `wraparound` is a `u16` (seed 004).
pub const WRAPAROUND: Limit = Limit::new("wraparound", 1, u16::MAX as i64);
/// The `.index` of a DSD operation is a `u16` (seed 004, explicit index offset).
pub const INDEX: Limit = Limit::new("index", 0, u16::MAX as i64);
/// Queue identifiers are 0..=7 (seed 004's queue table).
pub const QUEUE: Limit = Limit::new("queue", 0, 7);
/// Routable colors are 0..=23 (spec §1.2).
pub const COLOR: Limit = Limit::new("fabric_color", 0, 23);
/// Local task ids are 0..=30 (spec §1.3: WSE-2 0..=30, WSE-3 8..=30, checked when bound).
pub const LOCAL_TASK_ID: Limit = Limit::new("local task id", 0, 30);
/// Control task ids are 0..=63 (the 6-bit entry a control wavelet names, spec §1.3).
pub const CONTROL_TASK_ID: Limit = Limit::new("control task id", 0, 63);
/// Microthread ids are 0..=7 (WSE-3 `.ut_id`, spec §6).
pub const MICROTHREAD_ID: Limit = Limit::new("microthread id", 0, 7);
