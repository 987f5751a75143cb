//! How many bytes an item counts for.
//!
//! DynamoDB charges capacity and enforces the 400 KB limit on this size, not on the JSON that
//! carried the item. The rules (semantics reference §2):
//!
//! ```text
//!   item      Σ over attributes: UTF-8 length of the name + size of the value
//!   S         UTF-8 bytes                  B      raw (decoded) bytes
//!   N         Number::size (≈ 1 byte per 2 digits + 1)
//!   BOOL/NULL 1 byte
//!   L         3 + Σ (1 + element size)
//!   M         3 + Σ (1 + name length + element size)
//!   SS/NS/BS  Σ element sizes
//! ```
//!
//! Sizes are computed on demand and never allocate: the engine computes them on every read
//! and write, so a walk over the value is all it costs.

use super::{AttributeValue, Item, Number};

/// DynamoDB's item size limit, 400 KB (as emulators count it: 400 × 1024 bytes).
pub const MAX_ITEM_SIZE: usize = 409_600;

/// Bytes `item` counts for: Σ (name UTF-8 length + value size).
pub fn item_size(item: &Item) -> usize {
    item.iter().fold(0usize, |sum, (name, value)| {
        sum.saturating_add(name.len()).saturating_add(value.size())
    })
}

/// Size of a number held as a string. Canonical strings always parse; anything else counts
/// its characters, so a bad value never panics here (validation rejects it elsewhere).
fn number_size(s: &str) -> usize {
    Number::parse(s).map_or(s.len(), |n| n.size())
}

impl AttributeValue {
    /// Bytes this value counts for inside an item (the attribute name not included).
    pub fn size(&self) -> usize {
        use AttributeValue as V;
        match self {
            V::S(s) => s.len(),
            V::N(n) => number_size(n),
            V::B(b) => b.len(),
            V::Bool(_) | V::Null(_) => 1,
            V::L(list) => list.iter().fold(3usize, |sum, v| {
                sum.saturating_add(1).saturating_add(v.size())
            }),
            V::M(map) => map.iter().fold(3usize, |sum, (k, v)| {
                sum.saturating_add(1 + k.len()).saturating_add(v.size())
            }),
            V::Ss(set) => set.iter().map(String::len).sum(),
            V::Ns(set) => set.iter().map(|n| number_size(n)).sum(),
            V::Bs(set) => set.iter().map(|b| b.len()).sum(),
        }
    }
}
