//! The two `Cast` APIs: LocalTensor (unified buffer, masks, repeats) and Reg (MicroAPI registers).

pub mod local_tensor;
pub mod reg;
