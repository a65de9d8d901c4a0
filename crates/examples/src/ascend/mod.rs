//! Huawei Ascend: the worked examples of the AscendC API reference's `Cast` pages.

pub mod document_examples;
pub mod goldens;
