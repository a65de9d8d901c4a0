//! Serde for the typed values of a call description: each is written as its AscendC (or
//! npusim) spelling and read back through its `FromStr`, so a TOML file says
//! `round = "CAST_CEIL"` and an unknown value is an error listing the legal ones.

/// Implements `Serialize` (the spelling `$name` gives) and `Deserialize` (through `FromStr`).
macro_rules! serde_as_text {
    ($($t:ty => $name:expr),* $(,)?) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let name: fn($t) -> &'static str = $name;
                s.serialize_str(name(*self))
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    )*};
}

serde_as_text! {
    crate::profile::Product => |p| p.short(),
    crate::call::Api => |a| a.short(),
    crate::dtype::DType => |t| t.name(),
    crate::modes::CastRoundMode => |m| m.name(),
    crate::modes::SatMode => |m| m.name(),
    crate::modes::RegLayout => |l| l.name(),
    crate::modes::MaskMergeMode => |m| m.name(),
    crate::element::HybridKind => |h| h.name(),
    crate::element::WideningMask => |w| w.name(),
}
