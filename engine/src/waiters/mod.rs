//! # Waiters, on the simulated clock
//!
//! The SDK's waiters, shaped as `aws_sdk_dynamodb::waiters` (and, for the generic types,
//! `aws_smithy_runtime_api::client::waiters`): `client.wait_until_table_exists()
//! .table_name(..).wait(max_wait)` polls DescribeTable until the table is `ACTIVE`;
//! `wait_until_table_not_exists()` until DescribeTable answers `ResourceNotFoundException`.
//! Bring the methods into scope with [`crate::client::Waiters`], as in the SDK.
//!
//! Between polls the waiter sleeps on the world's simulated clock ([`World::advance`]), so a
//! wait of five minutes takes no wall time. The delays follow the DynamoDB waiters' model: the
//! first poll at once, then 20 s, doubling up to 120 s. Unlike the SDK, there is no jitter (a
//! random part of each delay): the engine draws no unseeded randomness, and a waiter taking
//! the world's seeded generator would shift every later draw of a run. A wait whose next
//! sleep would go past `max_wait` ends in [`WaiterError::ExceededMaxWait`].
//!
//! [`World::advance`]: crate::World::advance

pub mod table_exists;
pub mod table_not_exists;

use std::fmt;
use std::time::Duration;

/// The first delay between two polls (the DynamoDB waiters' `delay`).
const MIN_DELAY: Duration = Duration::from_secs(20);
/// The longest delay between two polls.
const MAX_DELAY: Duration = Duration::from_secs(120);

/// The poll that ended a wait: its output, or the error that was the waiter's success
/// (`ResourceNotFoundException` for TableNotExists). `aws_smithy_runtime_api`'s `FinalPoll`.
#[derive(Debug)]
pub struct FinalPoll<O, E> {
    result: Result<O, E>,
}

impl<O, E> FinalPoll<O, E> {
    /// The final poll's result, owned.
    pub fn into_result(self) -> Result<O, E> {
        self.result
    }
    /// The final poll's result, borrowed.
    pub fn as_result(&self) -> Result<&O, &E> {
        self.result.as_ref()
    }
}

/// Why a wait failed (`aws_smithy_runtime_api`'s `WaiterError`).
#[derive(Debug)]
#[non_exhaustive]
pub enum WaiterError<O, E> {
    /// The request could not be built (a missing table name).
    ConstructionFailure(ConstructionFailure),
    /// The condition was not met within the maximum wait.
    ExceededMaxWait(ExceededMaxWait),
    /// A poll reached a state from which the condition cannot be met.
    FailureState(FailureState<O, E>),
    /// A poll failed with an error the waiter does not expect.
    OperationFailed(OperationFailed<E>),
}

/// The request could not be built.
#[derive(Debug)]
pub struct ConstructionFailure {
    message: String,
}

/// The condition was not met within the maximum wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExceededMaxWait {
    max_wait: Duration,
    elapsed: Duration,
    poll_count: usize,
}

impl ExceededMaxWait {
    /// The maximum wait that was asked for.
    pub fn max_wait(&self) -> Duration {
        self.max_wait
    }
    /// Simulated time spent waiting.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }
    /// How many times the operation was sent.
    pub fn poll_count(&self) -> usize {
        self.poll_count
    }
}

/// A poll reached a failure state; its result is kept.
#[derive(Debug)]
pub struct FailureState<O, E> {
    final_poll: FinalPoll<O, E>,
}

impl<O, E> FailureState<O, E> {
    pub fn final_poll(&self) -> &FinalPoll<O, E> {
        &self.final_poll
    }
    pub fn into_final_poll(self) -> FinalPoll<O, E> {
        self.final_poll
    }
}

/// A poll failed with an error the waiter does not expect.
#[derive(Debug)]
pub struct OperationFailed<E> {
    source: E,
}

impl<E> OperationFailed<E> {
    pub fn error(&self) -> &E {
        &self.source
    }
    pub fn into_error(self) -> E {
        self.source
    }
}

impl<O, E: fmt::Display> fmt::Display for WaiterError<O, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WaiterError::ConstructionFailure(c) => {
                write!(f, "failed to construct waiter: {}", c.message)
            }
            WaiterError::ExceededMaxWait(e) => write!(
                f,
                "exceeded max wait time ({:?}): {} polls in {:?} of simulated time",
                e.max_wait, e.poll_count, e.elapsed
            ),
            WaiterError::FailureState(_) => write!(f, "waiter entered a failure state"),
            WaiterError::OperationFailed(e) => write!(f, "operation failed: {}", e.source),
        }
    }
}

impl<O: fmt::Debug, E: std::error::Error + 'static> std::error::Error for WaiterError<O, E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WaiterError::OperationFailed(e) => Some(&e.source),
            _ => None,
        }
    }
}

/// What one poll says about the wait.
pub(crate) enum Acceptor {
    /// The condition holds: the wait succeeds with this poll.
    Success,
    /// Not yet: sleep and poll again.
    Retry,
    /// The poll failed in a way the waiter does not expect.
    Failure,
}

/// Polls with `poll` until `accept` says success or failure, sleeping on `world`'s clock
/// between polls, for at most `max_wait` of simulated time.
#[allow(clippy::result_large_err)]
pub(crate) fn wait<O, E>(
    world: &crate::World,
    max_wait: Duration,
    mut poll: impl FnMut() -> Result<O, E>,
    accept: impl Fn(&Result<O, E>) -> Acceptor,
) -> Result<FinalPoll<O, E>, WaiterError<O, E>> {
    let start = world.now();
    let mut delay = MIN_DELAY;
    let mut poll_count = 0;
    loop {
        let result = poll();
        poll_count += 1;
        match accept(&result) {
            Acceptor::Success => return Ok(FinalPoll { result }),
            Acceptor::Failure => {
                return Err(match result {
                    Err(source) => WaiterError::OperationFailed(OperationFailed { source }),
                    Ok(_) => WaiterError::FailureState(FailureState {
                        final_poll: FinalPoll { result },
                    }),
                })
            }
            Acceptor::Retry => {}
        }
        let elapsed = world.now() - start;
        if elapsed + delay > max_wait {
            return Err(WaiterError::ExceededMaxWait(ExceededMaxWait {
                max_wait,
                elapsed,
                poll_count,
            }));
        }
        world.advance(delay);
        delay = (delay * 2).min(MAX_DELAY);
    }
}

/// The error of a waiter whose request has no table name.
pub(crate) fn construction_failure<O, E>(what: &str) -> WaiterError<O, E> {
    WaiterError::ConstructionFailure(ConstructionFailure {
        message: format!("{what} was not specified but it is required when building the waiter"),
    })
}
