//! DynamoDB's reserved words: names an expression may not use bare.
//!
//! The list (573 words, `reserved-words.txt`, copied from the Developer Guide) is compiled
//! into the binary with `include_str!` and matched case-insensitively: `Name`, `NAME` and
//! `name` are all rejected. A learner who needs an attribute called `name` writes `#n` and
//! passes `{"#n": "name"}` in `ExpressionAttributeNames`.
//!
//! Design decision: the file is already sorted and every word is upper-case ASCII, so a
//! lookup upper-cases the candidate into a stack buffer and binary-searches the list. No
//! hashing, no allocation, and a name longer than the longest reserved word (14 bytes)
//! is rejected by its length alone.

use std::sync::OnceLock;

const WORDS_FILE: &str = include_str!("reserved-words.txt");

/// Longest reserved word, in bytes; a buffer of this size is enough to upper-case a candidate.
const MAX_WORD_LEN: usize = 32;

fn words() -> &'static [&'static str] {
    static WORDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut words: Vec<&'static str> = WORDS_FILE
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        // The file is sorted; sorting again keeps the binary search right if someone edits it.
        words.sort_unstable();
        words.dedup();
        words
    })
}

/// Whether `name` (as written in an expression) is a reserved word, ignoring case.
pub fn is_reserved(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_WORD_LEN || !bytes.is_ascii() {
        return false;
    }
    let mut buf = [0u8; MAX_WORD_LEN];
    for (dst, src) in buf.iter_mut().zip(bytes) {
        *dst = src.to_ascii_uppercase();
    }
    let upper = match std::str::from_utf8(&buf[..bytes.len()]) {
        Ok(s) => s,
        Err(_) => return false,
    };
    words().binary_search(&upper).is_ok()
}

/// How many reserved words the list holds (573 in DynamoDB's published list).
pub fn count() -> usize {
    words().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_list_has_573_words() {
        assert_eq!(count(), 573);
    }

    #[test]
    fn matching_ignores_case() {
        for w in ["name", "NAME", "Status", "ttl", "size", "Data", "FLATTERN"] {
            assert!(is_reserved(w), "{w}");
        }
        for w in ["", "price", "myname", "remove", "a", "über"] {
            assert!(!is_reserved(w), "{w}");
        }
    }
}
