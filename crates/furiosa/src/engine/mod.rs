//! Tensor Unit engines: each a validator of its mapping rules plus a data transformation.

pub mod cast;
pub mod collect;
pub mod commit;
pub mod commit_cast;
pub mod context;
pub mod fetch;
pub mod fetch_cast;
pub mod fetch_interleave;
pub mod fetch_lift;
pub mod fetch_mask;
pub mod fetch_table_lookup;
pub mod fetch_zero_point_sub;
pub mod switch;
pub mod switch_custom;
pub mod vector;
