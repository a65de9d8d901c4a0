//! Where a program's rectangle sits on the fabric: `--fabric-dims` and `--fabric-offsets`
//! as the SDK's compiler takes them.
//!
//! With memcpy (`--memcpy`), the SDK surrounds the rectangle with a halo of one PE and adds
//! support columns: four columns west of the rectangle and three east of it in all, one row
//! north and one south. So the offsets must be at least `(4, 1)` and the fabric at least
//! `offset + rectangle + (3, 1)`. Without memcpy the rectangle only has to fit. Given no
//! dims, the fabric is the smallest that holds the rectangle at its offsets; given no
//! offsets, they are `(4, 1)` with memcpy and `(0, 0)` without.
//!
//! The simulator holds only the rectangle (the halo and support PEs run the SDK's own code,
//! which npusim models natively): PE `(x, y)` of the program is PE `(x, y)` of the
//! simulator, and the host's memcpy coordinates are the program's, as in the SDK.

use npusim_cerebras::Arch;
use npusim_cerebras::fabric::Fabric;

use super::error::CompileError;

/// Columns the memcpy infrastructure takes west of the rectangle (halo included).
pub const MEMCPY_WEST: u32 = 4;
/// Columns it takes east of the rectangle (halo included).
pub const MEMCPY_EAST: u32 = 3;
/// Rows it takes north and south of the rectangle (the halo).
pub const MEMCPY_ROWS: u32 = 1;

/// The fabric a program is compiled for and where its rectangle sits on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// `--fabric-dims`: width and height of the fabric.
    pub fabric_dims: (u32, u32),
    /// `--fabric-offsets`: the fabric coordinates of the rectangle's PE `(0, 0)`.
    pub offsets: (u32, u32),
}

impl Placement {
    /// Places a `rect` rectangle on a fabric of `arch` of `dims` at `offsets` (defaults above), or
    /// says which size does not fit.
    pub fn new(
        arch: Arch,
        rect: (u32, u32),
        dims: Option<(u32, u32)>,
        offsets: Option<(u32, u32)>,
        memcpy: bool,
    ) -> Result<Placement, CompileError> {
        let (west, east, rows) = if memcpy {
            (MEMCPY_WEST, MEMCPY_EAST, MEMCPY_ROWS)
        } else {
            (0, 0, 0)
        };
        let offsets = offsets.unwrap_or((west, rows));
        let (ox, oy) = offsets;
        if memcpy && (ox < west || oy < rows) {
            return Err(CompileError::Placement(format!(
                "fabric offsets ({ox}, {oy}) leave no room for memcpy's halo and support columns: they must be at least ({west}, {rows})"
            )));
        }
        let need_w = u64::from(ox) + u64::from(rect.0) + u64::from(east);
        let need_h = u64::from(oy) + u64::from(rect.1) + u64::from(rows);
        let dims = match dims {
            Some(d) => d,
            None => (
                u32::try_from(need_w).unwrap_or(u32::MAX),
                u32::try_from(need_h).unwrap_or(u32::MAX),
            ),
        };
        if u64::from(dims.0) < need_w || u64::from(dims.1) < need_h {
            let with = if memcpy {
                format!(
                    " and memcpy's {west} west, {east} east columns and {rows} row above and below"
                )
            } else {
                String::new()
            };
            return Err(CompileError::Placement(format!(
                "the {}x{} rectangle at fabric offsets ({ox}, {oy}){with} needs a fabric of at least {need_w}x{need_h}; the fabric dims are {}x{}",
                rect.0, rect.1, dims.0, dims.1
            )));
        }
        let (fw, fh) = Fabric::full_size(arch);
        if dims.0 > fw || dims.1 > fh {
            return Err(CompileError::Placement(format!(
                "fabric dims {}x{} exceed the {fw}x{fh} PEs of {arch}",
                dims.0, dims.1
            )));
        }
        Ok(Placement {
            fabric_dims: dims,
            offsets,
        })
    }
}
