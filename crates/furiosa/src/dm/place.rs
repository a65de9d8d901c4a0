//! A position of a DM tensor: which slice, and which element of its `Element` layout.

use std::fmt;

/// One DM position of a tensor: chip, cluster and slice positions, and the position in the
/// `Element` mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Place {
    /// Position in the `Chip` mapping.
    pub chip: usize,
    /// Position in the `Cluster` mapping.
    pub cluster: usize,
    /// Position in the `Slice` mapping.
    pub slice: usize,
    /// Position in the `Element` mapping.
    pub element: usize,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "chip {}, cluster {}, slice {}, element {}",
            self.chip, self.cluster, self.slice, self.element
        )
    }
}
