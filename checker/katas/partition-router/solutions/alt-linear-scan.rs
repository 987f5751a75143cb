//! The partition-router kata, another correct router: the hash as a fold, routing by a scan
//! for the range that contains the hash (slower on long lists, the same answers), the heat
//! median found from the running sums.

use given::{
    splitmix_finalize, BoxedRouter, Collection, HashRange, KeyBytes, PartitionRouter, FNV_OFFSET,
    FNV_PRIME,
};

pub fn router() -> BoxedRouter {
    Box::new(Scanning)
}

struct Scanning;

fn fnv(h: u64, byte: u8) -> u64 {
    (h ^ u64::from(byte)).wrapping_mul(FNV_PRIME)
}

/// `[start, mid - 1]` and `[mid, end]`, if both are non-empty.
fn cut_before(range: HashRange, mid: u64) -> Option<[HashRange; 2]> {
    (range.start < mid && mid <= range.end).then(|| {
        [
            HashRange {
                start: range.start,
                end: mid - 1,
            },
            HashRange {
                start: mid,
                end: range.end,
            },
        ]
    })
}

impl PartitionRouter for Scanning {
    fn hash(&self, partition_key: KeyBytes<'_>, _sort_key: Option<KeyBytes<'_>>) -> u64 {
        let h = partition_key
            .bytes
            .iter()
            .fold(fnv(FNV_OFFSET, partition_key.tag), |h, &b| fnv(h, b));
        splitmix_finalize(h)
    }

    fn route(&self, hash: u64, partitions: &[HashRange]) -> usize {
        partitions
            .iter()
            .position(|r| r.contains(hash))
            .unwrap_or(partitions.len() - 1)
    }

    fn split_for_size(
        &self,
        partition: HashRange,
        collections: &[Collection],
    ) -> Option<[HashRange; 2]> {
        match collections {
            [] | [_] => None,
            _ => cut_before(partition, collections[collections.len() / 2].hash),
        }
    }

    fn split_for_heat(&self, partition: HashRange, heat: &[(u64, f64)]) -> Option<[HashRange; 2]> {
        if heat.len() < 2 {
            return None;
        }
        let sums: Vec<f64> = heat
            .iter()
            .scan(0.0, |acc, &(_, units)| {
                *acc += units;
                Some(*acc)
            })
            .collect();
        let half = sums[sums.len() - 1] / 2.0;
        let at = sums
            .iter()
            .position(|&s| s >= half)
            .unwrap_or(heat.len() - 1);
        cut_before(partition, heat[at.max(1)].0)
    }
}
