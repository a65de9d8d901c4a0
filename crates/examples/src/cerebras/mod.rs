//! Cerebras fixtures: the tensor-access lowerings worked in the SDK documentation's "Data
//! Structure Descriptors" page, and the SDK tutorial programs E1-E10 ported by hand onto the
//! multi-PE simulator of `npusim-cerebras`.

pub mod document_examples;
pub mod programs;
