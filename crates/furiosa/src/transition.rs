//! The pipeline edges between engines (`docs/furiosa-engines.md` §1): which methods a stream
//! tensor at each [`Position`] accepts. The vendor makes a wrong order a compile error; with
//! run-time mappings it is a [`TransitionError`].

use thiserror::Error;

use crate::tensor::Position;

/// A method called on a stream tensor at a position that has no such edge.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "`{method}` cannot be called on a {type_name} (rule: a {type_name} goes on with {})",
    allowed.join(", ")
)]
pub struct TransitionError {
    /// The method called.
    pub method: String,
    /// Where the tensor is.
    pub position: Position,
    /// The vendor's type name of that position.
    pub type_name: &'static str,
    /// The methods that position accepts, in pipeline order.
    pub allowed: Vec<&'static str>,
}

impl Position {
    /// The methods a tensor at this position accepts (`docs/furiosa-engines.md` §1; the
    /// Vector Engine's own chain, Contraction, Transpose and the VRF/TRF exits are not listed
    /// here).
    pub fn next_methods(self) -> &'static [&'static str] {
        match self {
            Position::Begin => &["fetch"],
            Position::Fetch => &[
                "fetch_chip_lift",
                "fetch_cluster_lift",
                "fetch_slice_lift",
                "fetch_mask",
                "fetch_table_lookup",
                "fetch_cast",
                "switch",
                "collect",
            ],
            Position::FetchMask => &["fetch_table_lookup", "fetch_cast", "switch", "collect"],
            Position::FetchTableLookup => &["fetch_cast", "switch", "collect"],
            Position::FetchCast => &["switch", "collect"],
            Position::Switch => &["collect"],
            Position::Collect => &["vector_init", "cast", "commit_trim"],
            Position::Contract => &["vector_init", "cast"],
            Position::VectorFinal => &["cast", "commit_trim"],
            Position::Cast => &["commit_trim"],
            Position::CommitTrim => &["commit_cast", "commit_cast_relu", "commit", "commit_view"],
            Position::CommitCast => &["commit", "commit_view"],
        }
    }

    /// Accepts `method` at this position, or names the methods that are allowed.
    pub fn check_transition(self, method: &str) -> Result<(), TransitionError> {
        let allowed = self.next_methods();
        if allowed.contains(&method) {
            return Ok(());
        }
        Err(TransitionError {
            method: method.to_string(),
            position: self,
            type_name: self.type_name(),
            allowed: allowed.to_vec(),
        })
    }
}
