//! Furiosa RNGD: the worked examples of Furiosa's documentation, run through `npusim-furiosa`.

pub mod document_examples;
pub mod kernel_examples;
pub mod pipeline_check;
pub mod worked_mappings;
