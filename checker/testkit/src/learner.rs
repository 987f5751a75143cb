//! Handing the learner's functions to hidden tests that were compiled without them.
//!
//! A kata's hidden tests are a library (`checker/katas/<kata>/tests`) that depends on the
//! kata's given part, the engine and this kit, but not on the learner's crate; a tiny glue
//! binary (`checker/katas/<kata>/run`) depends on both and hands the learner's functions over.
//! A save then rebuilds the learner's crate and the glue, never the hidden tests, which are
//! most of the code (see `checker/src/runner/mod.rs` for the measurements).
//!
//! [`learner!`](crate::learner!) writes the plumbing from the signatures, once per kata:
//!
//! ```
//! mod given {
//!     #[derive(Debug)]
//!     pub struct Error;
//! }
//! katas_testkit::learner! {
//!     /// Records one like.
//!     fn increment(post: &str, n: u64) -> Result<(), given::Error>;
//! }
//! // generates: `pub struct Kata { pub increment: fn(&str, u64) -> Result<(), given::Error> }`,
//! // `fn install(kata: Kata)` (once, before the tests run) and a module `learner` with
//! // `pub fn increment(post: &str, n: u64) -> Result<(), given::Error>` that calls the
//! // installed function, so test bodies call `learner::increment(..)` as if it were the crate.
//!
//! fn pretend(post: &str, n: u64) -> Result<(), given::Error> {
//!     let _ = (post, n);
//!     Ok(())
//! }
//!
//! fn main() {
//!     install(Kata { increment: pretend });
//!     assert!(learner::increment("p", 1).is_ok());
//! }
//! ```
//!
//! The glue binary is then `fn main() { hidden::main(hidden::Kata { increment:
//! my_kata::increment }) }`: if the learner changes a signature, the error is a type mismatch
//! in that one line, which the checker explains.

/// Declares the learner's functions of a kata; see the [module docs](mod@crate::learner).
#[macro_export]
macro_rules! learner {
    ($( $(#[$meta:meta])* fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) -> $ret:ty ; )*) => {
        /// The learner's functions, as the kata's glue binary hands them over.
        #[derive(Clone, Copy, Debug)]
        pub struct Kata {
            $( $(#[$meta])* pub $name: fn($($ty),*) -> $ret, )*
        }

        static INSTALLED: ::std::sync::OnceLock<Kata> = ::std::sync::OnceLock::new();

        /// Makes `kata` the functions [`learner`] calls (the first call wins).
        fn install(kata: Kata) {
            let _ = INSTALLED.set(kata);
        }

        /// The learner's functions, called as if the hidden tests depended on their crate.
        #[allow(dead_code)]
        mod learner {
            #[allow(unused_imports)]
            use super::*;
            $(
                $(#[$meta])*
                pub fn $name($($arg: $ty),*) -> $ret {
                    let kata = super::INSTALLED
                        .get()
                        .expect("the glue binary installs the learner's functions first");
                    (kata.$name)($($arg),*)
                }
            )*
        }
    };
}
