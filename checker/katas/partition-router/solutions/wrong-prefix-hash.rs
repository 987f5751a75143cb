//! The partition-router kata, known wrong: hashes only the first 8 bytes of the key (a
//! "faster" hash): keys that share a prefix share a hash.

use given::{
    splitmix_finalize, BoxedRouter, Collection, HashRange, KeyBytes, PartitionRouter, FNV_OFFSET,
    FNV_PRIME,
};

pub fn router() -> BoxedRouter {
    Box::new(MyRouter)
}

struct MyRouter;

/// The two halves of `range` when `mid` is the first hash of the right one.
fn halves(range: HashRange, mid: u64) -> Option<[HashRange; 2]> {
    if mid <= range.start || mid > range.end {
        return None;
    }
    Some([
        HashRange::new(range.start, mid - 1),
        HashRange::new(mid, range.end),
    ])
}

impl PartitionRouter for MyRouter {
    fn hash(&self, partition_key: KeyBytes<'_>, _sort_key: Option<KeyBytes<'_>>) -> u64 {
        let mut h = FNV_OFFSET;
        for byte in
            std::iter::once(partition_key.tag).chain(partition_key.bytes.iter().take(8).copied())
        {
            h ^= u64::from(byte);
            h = h.wrapping_mul(FNV_PRIME);
        }
        splitmix_finalize(h)
    }

    fn route(&self, hash: u64, partitions: &[HashRange]) -> usize {
        partitions.partition_point(|r| r.start <= hash) - 1
    }

    fn split_for_size(
        &self,
        partition: HashRange,
        collections: &[Collection],
    ) -> Option<[HashRange; 2]> {
        if collections.len() < 2 {
            return None;
        }
        halves(partition, collections[collections.len() / 2].hash)
    }

    fn split_for_heat(&self, partition: HashRange, heat: &[(u64, f64)]) -> Option<[HashRange; 2]> {
        if heat.len() < 2 {
            return None;
        }
        let total: f64 = heat.iter().map(|(_, units)| units).sum();
        let mut running = 0.0;
        let mut mid = heat[heat.len() - 1].0;
        for &(hash, units) in heat {
            running += units;
            if running >= total / 2.0 {
                mid = hash;
                break;
            }
        }
        if mid == heat[0].0 {
            mid = heat[1].0;
        }
        halves(partition, mid)
    }
}
