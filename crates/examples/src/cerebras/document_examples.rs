//! The tensor-access lowering examples of the CSL "Data Structure Descriptors" document, as
//! data: each expression with its array shape and the offset, strides and accesses the
//! document states. The tour runs them; npusim-cerebras's `tests/cerebras/seed_lowering.rs` checks them one by one too.

use npusim_cerebras::access::{BoundsPolicy, Lowered, lower, parse};

/// One worked lowering example of the document.
#[derive(Clone, Copy, Debug)]
pub struct DocumentLowering {
    /// What the document calls it.
    pub title: &'static str,
    /// The tensor access expression, as written there.
    pub expr: &'static str,
    /// The array's shape.
    pub shape: &'static [u64],
    /// Expected element offset.
    pub offset: i64,
    /// Expected strides, innermost first (the lowered struct's order).
    pub stride: &'static [i64],
    /// Expected first accesses (row-major element indices), in order.
    pub first: &'static [i64],
    /// Expected number of accesses.
    pub count: u64,
}

/// Every lowering example of the document that needs no fabric.
pub const DOCUMENT_LOWERINGS: [DocumentLowering; 8] = [
    DocumentLowering {
        title: "odd elements",
        expr: "|i|{5} -> array[2 * i + 1]",
        shape: &[10],
        offset: 1,
        stride: &[2],
        first: &[1, 3, 5, 7, 9],
        count: 5,
    },
    DocumentLowering {
        title: "the first element, ten times",
        expr: "|i|{10} -> array[0]",
        shape: &[10],
        offset: 0,
        stride: &[0],
        first: &[0, 0, 0],
        count: 10,
    },
    DocumentLowering {
        title: "the diagonal of a 20 x 20 array",
        expr: "|i|{20} -> array[i,i]",
        shape: &[20, 20],
        offset: 0,
        stride: &[21],
        first: &[0, 21, 42],
        count: 20,
    },
    DocumentLowering {
        title: "A[2*i + 42]",
        expr: "|i|{10} -> A[2*i + 42]",
        shape: &[10],
        offset: 42,
        stride: &[2],
        first: &[42, 44, 46],
        count: 10,
    },
    DocumentLowering {
        title: "a 2 x 2 subset of a 4 x 3 array",
        expr: "|i,j|{2,2} -> array[i, j]",
        shape: &[4, 3],
        offset: 0,
        stride: &[1, 2],
        first: &[0, 1, 3, 4],
        count: 4,
    },
    DocumentLowering {
        title: "eight elements of a 1 x 2 x 3 x 4 array",
        expr: "|i,j,k,l|{1,2,1,4} -> array[i, j, 1+k, l]",
        shape: &[1, 2, 3, 4],
        offset: 4,
        stride: &[1, 1, 9, 9],
        first: &[4, 5, 6, 7, 16, 17, 18, 19],
        count: 8,
    },
    DocumentLowering {
        title: "2*i + j: reset-relative stride -2",
        expr: "|i,j|{5,5} -> A[2*i + j]",
        shape: &[20],
        offset: 0,
        stride: &[1, -2],
        first: &[0, 1, 2, 3, 4, 2, 3],
        count: 25,
    },
    DocumentLowering {
        title: "four variables over a 4 x 5 array",
        expr: "|i, j, k, l|{5, 5, 5, 5} -> A[i + j, k + l + 2]",
        shape: &[4, 5],
        offset: 2,
        stride: &[1, -3, -3, -23],
        first: &[2, 3, 4, 5, 6, 3, 4],
        count: 625,
    },
];

impl DocumentLowering {
    /// Lowers the expression (no bounds check, as the document's own examples go beyond
    /// their arrays) and compares it with the document's numbers; `Err` says what differs.
    pub fn check(&self) -> Result<Lowered, String> {
        let parsed = parse(self.expr).map_err(|e| e.to_string())?;
        let l = lower(&parsed, self.shape, BoundsPolicy::Unchecked).map_err(|e| e.to_string())?;
        let first: Vec<i64> = l.addresses().take(self.first.len()).collect();
        if l.offset != self.offset
            || l.stride != self.stride
            || first != self.first
            || l.len() != self.count
        {
            return Err(format!(
                "expected offset {} stride {:?} first {:?} count {}, got offset {} stride {:?} first {:?} count {}",
                self.offset,
                self.stride,
                self.first,
                self.count,
                l.offset,
                l.stride,
                first,
                l.len()
            ));
        }
        Ok(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_lowering_matches_the_document() {
        for ex in DOCUMENT_LOWERINGS {
            if let Err(e) = ex.check() {
                panic!("{}: {e}", ex.title);
            }
        }
    }
}
