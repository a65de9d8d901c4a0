//! One tensor access lowered over a `u16` array of one PE's memory, as the DSD it becomes and
//! the element indices it visits in access order: what `npusim cerebras access` prints.

use std::fmt::Write as _;

use thiserror::Error;

use super::{AccessError, BoundsPolicy, Lowered, TensorAccess, lower, parse};
use crate::ElemTy;
use crate::arch::Arch;
use crate::dsd::{DsdError, Mem1d, Mem4d};
use crate::memory::{MemoryError, PeMemory};

/// Most element indices a listing holds (a 4-D access can name 2^64 elements).
pub const MAX_LISTED: u64 = 1 << 24;

/// The memory DSD kind an access is lowered to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DsdKind {
    /// `mem1d_dsd`: one induction variable, i8 stride.
    Mem1d,
    /// `mem4d_dsd`: one to four induction variables, i16 strides.
    Mem4d,
}

impl DsdKind {
    /// The CSL name without `_dsd`.
    pub fn name(self) -> &'static str {
        match self {
            DsdKind::Mem1d => "mem1d",
            DsdKind::Mem4d => "mem4d",
        }
    }
}

/// Why an access cannot be listed.
#[derive(Debug, Error)]
pub enum ListingError {
    /// The expression does not parse or lower over the array.
    #[error(transparent)]
    Access(#[from] AccessError),
    /// The array does not fit in one PE's memory.
    #[error("a u16 array must fit in one PE's memory ({bytes} bytes)")]
    Memory {
        /// The memory size of a PE.
        bytes: u64,
        /// What the memory said.
        #[source]
        source: MemoryError,
    },
    /// The lowered access breaks a limit of the DSD kind.
    #[error(transparent)]
    Dsd(#[from] DsdError),
    /// The access names more elements than a listing holds.
    #[error("the access names {count} elements; a listing holds at most {MAX_LISTED}")]
    TooMany {
        /// Elements the access names.
        count: u64,
    },
}

/// A lowered access and the element indices it visits.
#[derive(Clone, Debug)]
pub struct Listing {
    /// The parsed expression.
    pub expr: TensorAccess,
    /// The array's shape, outermost dimension first.
    pub shape: Vec<u64>,
    /// The DSD kind it was lowered to.
    pub kind: DsdKind,
    /// The DSD in CSL syntax.
    pub dsd: String,
    /// The DSD's strides.
    pub stride: Vec<i64>,
    /// The lowering (offset, extents).
    pub lowered: Lowered,
    /// Row-major element indices of the array, in access order.
    pub addresses: Vec<i64>,
}

/// Parses `text`, lowers it over the `u16` array `array` of `shape` (declared in one PE's
/// memory, so an array that cannot exist is refused) to `kind` (default: mem1d for one
/// induction variable, mem4d otherwise) and lists the elements it visits.
pub fn listing(
    text: &str,
    array: &str,
    shape: &[u64],
    kind: Option<DsdKind>,
    policy: BoundsPolicy,
) -> Result<Listing, ListingError> {
    let expr = parse(text)?;
    if expr.array != array {
        return Err(AccessError::ArrayName {
            expected: array.to_string(),
            found: expr.array,
        }
        .into());
    }
    let lowered = lower(&expr, shape, policy)?;
    let base = PeMemory::new(Arch::Wse2)
        .declare(array, ElemTy::U16, shape)
        .map_err(|source| ListingError::Memory {
            bytes: u64::from(Arch::Wse2.memory_bytes()),
            source,
        })?;
    let kind = kind.unwrap_or(if expr.variables.len() == 1 {
        DsdKind::Mem1d
    } else {
        DsdKind::Mem4d
    });
    let (dsd, stride) = match kind {
        DsdKind::Mem1d => {
            let d = Mem1d::from_lowered(base, &lowered)?;
            (d.to_string(), vec![i64::from(d.stride)])
        }
        DsdKind::Mem4d => {
            let d = Mem4d::from_lowered(base, &lowered)?;
            let s = d.stride.iter().map(|&s| i64::from(s)).collect();
            (d.to_string(), s)
        }
    };
    if lowered.len() > MAX_LISTED {
        return Err(ListingError::TooMany {
            count: lowered.len(),
        });
    }
    let addresses = lowered.addresses().collect();
    Ok(Listing {
        expr,
        shape: shape.to_vec(),
        kind,
        dsd,
        stride,
        lowered,
        addresses,
    })
}

impl Listing {
    /// One JSON object: kind, offset, extent, stride and addresses.
    pub fn json(&self) -> String {
        format!(
            "{{\"addresses\":[{}],\"extent\":[{}],\"kind\":\"{}\",\"offset\":{},\"stride\":[{}]}}",
            join(&self.addresses),
            join(&self.lowered.extent),
            self.kind.name(),
            self.lowered.offset,
            join(&self.stride)
        )
    }

    /// The text report: the access, the DSD and its struct form, the addresses 20 to a line,
    /// and how many fall outside the array (`hint` says how to refuse them).
    pub fn text(&self, hint: &str) -> String {
        let name = &self.expr.array;
        let mut out = String::new();
        let _ = writeln!(out, "access   {}", self.expr);
        let _ = writeln!(out, "dsd      {}", self.dsd);
        let _ = writeln!(
            out,
            "struct   .{{.base_address = &{name}, .offset = {}, .stride = .{{{}}}, .extent = .{{{}}}}}",
            self.lowered.offset,
            join(&self.stride),
            join(&self.lowered.extent)
        );
        let _ = writeln!(
            out,
            "{} addresses (row-major element indices of {name}{:?}, access order):",
            self.addresses.len(),
            self.shape
        );
        for chunk in self.addresses.chunks(20) {
            let _ = writeln!(out, "  {}", join_with(chunk, " "));
        }
        let outside = self.outside();
        if outside > 0 {
            let _ = writeln!(
                out,
                "note: {outside} of them fall outside {name} (allowed; {hint})"
            );
        }
        out
    }

    /// How many listed indices fall outside the array.
    pub fn outside(&self) -> usize {
        let elements = self.shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
        elements.map_or(0, |e| {
            self.addresses
                .iter()
                .filter(|&&a| a < 0 || u64::try_from(a).is_ok_and(|a| a >= e))
                .count()
        })
    }
}

/// The items joined by commas.
fn join<T: ToString>(items: &[T]) -> String {
    join_with(items, ",")
}

/// The items joined by `sep`.
fn join_with<T: ToString>(items: &[T], sep: &str) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strided_access_lists_its_elements_and_those_outside() {
        let l = listing(
            "|i|{5} -> A[3 * i]",
            "A",
            &[10],
            None,
            BoundsPolicy::Unchecked,
        )
        .unwrap();
        assert_eq!(l.kind, DsdKind::Mem1d);
        assert_eq!(l.addresses, [0, 3, 6, 9, 12]);
        assert_eq!(l.outside(), 1);
        assert!(
            l.text("strict refuses them")
                .contains("note: 1 of them fall outside A")
        );
        assert_eq!(
            l.json(),
            r#"{"addresses":[0,3,6,9,12],"extent":[5],"kind":"mem1d","offset":0,"stride":[3]}"#
        );
    }

    #[test]
    fn an_array_larger_than_pe_memory_is_refused() {
        let e = listing(
            "|i|{2} -> A[i]",
            "A",
            &[30000],
            None,
            BoundsPolicy::Unchecked,
        )
        .unwrap_err();
        assert!(
            matches!(e, ListingError::Memory { bytes: 49152, .. }),
            "{e}"
        );
    }
}
