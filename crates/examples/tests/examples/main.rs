//! The examples crate's integration tests, one test program: the hand-written tutorial
//! programs give their documented outputs, and the tour speaks of documents a user has.

#![allow(clippy::unwrap_used)]

mod gemv_scaled;
mod programs_by_hand;
mod tour_words;
