//! `SdkError` and its companions, as `aws_sdk_dynamodb::error` has them.
//!
//! The SDK's `send()` can fail before a request leaves (`ConstructionFailure`), on the way
//! (`TimeoutError`, `DispatchFailure`), with an answer it cannot read (`ResponseError`), or
//! with the service's exception (`ServiceError`). In-process only the first and the last can
//! happen; the others are here so that a `match` written for the SDK compiles, and the engine
//! never returns them.
//!
//! Decision: the raw response type `R` defaults to [`HttpResponse`], a stand-in that carries
//! only the status DynamoDB would have answered with (400 for a client error, 500 for
//! `InternalServerError`), so `SdkError<PutItemError>` names the same type as in the SDK
//! and `err.raw_response()` has something true to say.

use std::fmt;

/// What every error layer tells about the exception behind it (the SDK's trait of that name).
pub trait ProvideErrorMetadata {
    /// The error's metadata: code and message.
    fn meta(&self) -> &ErrorMetadata;
    /// The exception's name, as DynamoDB sends it (`"ConditionalCheckFailedException"`).
    fn code(&self) -> Option<&str> {
        self.meta().code()
    }
    /// DynamoDB's message.
    fn message(&self) -> Option<&str> {
        self.meta().message()
    }
}

/// An error's code and message (`aws_sdk_dynamodb::error::ErrorMetadata`).
///
/// Kept behind one box: every error of every operation carries it, and inline (two
/// `Option<String>`s) it made `SdkError<PutItemError>` 128 bytes, past clippy's
/// `result_large_err` line, so that every learner function returning a `Result` of it would be
/// flagged. Boxed, an error stays well under it; an error is built once per failed request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ErrorMetadata {
    inner: Option<Box<MetadataFields>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct MetadataFields {
    code: Option<String>,
    message: Option<String>,
}

impl ErrorMetadata {
    /// Starts building metadata.
    pub fn builder() -> ErrorMetadataBuilder {
        ErrorMetadataBuilder::default()
    }
    /// The error code.
    pub fn code(&self) -> Option<&str> {
        self.inner.as_ref()?.code.as_deref()
    }
    /// The error message.
    pub fn message(&self) -> Option<&str> {
        self.inner.as_ref()?.message.as_deref()
    }
    pub(crate) fn new(code: &str, message: &str) -> ErrorMetadata {
        ErrorMetadata {
            inner: Some(Box::new(MetadataFields {
                code: Some(code.to_string()),
                message: Some(message.to_string()),
            })),
        }
    }
    fn fields(&mut self) -> &mut MetadataFields {
        self.inner.get_or_insert_with(Box::default)
    }
}

impl ProvideErrorMetadata for ErrorMetadata {
    fn meta(&self) -> &ErrorMetadata {
        self
    }
}

impl fmt::Display for ErrorMetadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code(), self.message()) {
            (Some(code), Some(message)) => write!(f, "{code}: {message}"),
            (Some(code), None) => f.write_str(code),
            (None, Some(message)) => f.write_str(message),
            (None, None) => f.write_str("an error occurred"),
        }
    }
}

impl std::error::Error for ErrorMetadata {}

/// Builds an [`ErrorMetadata`].
#[derive(Clone, Debug, Default)]
pub struct ErrorMetadataBuilder {
    inner: ErrorMetadata,
}

impl ErrorMetadataBuilder {
    pub fn code(mut self, code: impl Into<String>) -> Self {
        self.inner.fields().code = Some(code.into());
        self
    }
    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.inner.fields().message = Some(message.into());
        self
    }
    pub fn build(self) -> ErrorMetadata {
        self.inner
    }
}

/// An exception the SDK does not model for the operation (`ValidationException` everywhere,
/// for example): recognise it by `code()`. As the SDK's, it is not meant to be matched on by
/// its contents.
#[derive(Clone, Debug, PartialEq)]
pub struct Unhandled {
    pub(crate) meta: ErrorMetadata,
}

/// `unhandled error (ValidationException)` as the SDK's, then DynamoDB's message (which the
/// SDK prints only through the error's metadata).
impl fmt::Display for Unhandled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.meta.code() {
            Some(code) => write!(f, "unhandled error ({code})")?,
            None => f.write_str("unhandled error")?,
        }
        match self.meta.message() {
            Some(message) => write!(f, ": {message}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for Unhandled {}

impl ProvideErrorMetadata for Unhandled {
    fn meta(&self) -> &ErrorMetadata {
        &self.meta
    }
}

/// The raw response an [`SdkError`] carries: here only the HTTP status DynamoDB would answer
/// with. Not the SDK's `HttpResponse` (there is no HTTP in process).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpResponse {
    status: u16,
}

impl HttpResponse {
    /// 400 for a client error, 500 for `InternalServerError`.
    pub fn status(&self) -> u16 {
        self.status
    }
}

/// The service's answer: the operation's error and the raw response.
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceError<E, R = HttpResponse> {
    source: E,
    raw: R,
}

impl<E, R> ServiceError<E, R> {
    /// The operation's error.
    pub fn err(&self) -> &E {
        &self.source
    }
    /// The operation's error, by value.
    pub fn into_err(self) -> E {
        self.source
    }
    /// The raw response.
    pub fn raw(&self) -> &R {
        &self.raw
    }
}

/// A request that could not be built or sent (never produced by the engine, as there is no
/// transport; here so that a `match` written for the SDK compiles).
#[derive(Clone, Debug, PartialEq)]
pub struct ConstructionFailure {
    meta: ErrorMetadata,
}

/// See [`ConstructionFailure`].
#[derive(Clone, Debug, PartialEq)]
pub struct TimeoutError {
    meta: ErrorMetadata,
}

/// See [`ConstructionFailure`].
#[derive(Clone, Debug, PartialEq)]
pub struct DispatchFailure {
    meta: ErrorMetadata,
}

/// See [`ConstructionFailure`].
#[derive(Clone, Debug, PartialEq)]
pub struct ResponseError<R> {
    meta: ErrorMetadata,
    raw: R,
}

impl<R> ResponseError<R> {
    /// The raw response.
    pub fn raw(&self) -> &R {
        &self.raw
    }
}

/// How a `send()` failed (`aws_sdk_dynamodb::error::SdkError<E>`). In the engine it is always
/// `ServiceError`: the service answered with an exception, which `E` (the operation's error
/// enum) names.
#[derive(Clone, Debug, PartialEq)]
pub enum SdkError<E, R = HttpResponse> {
    ConstructionFailure(ConstructionFailure),
    TimeoutError(TimeoutError),
    DispatchFailure(DispatchFailure),
    ResponseError(ResponseError<R>),
    ServiceError(ServiceError<E, R>),
}

/// What an operation's error enum provides to [`SdkError`]: an `Unhandled` value for the
/// failures that are not the service's (the SDK's `CreateUnhandledError`).
pub trait CreateUnhandledError {
    /// An `Unhandled` error with this metadata.
    fn create_unhandled_error(meta: ErrorMetadata) -> Self;
}

impl<E> SdkError<E, HttpResponse> {
    /// The service's exception `source`, with the status DynamoDB would have answered with.
    pub(crate) fn service(source: E, status: u16) -> Self {
        SdkError::ServiceError(ServiceError {
            source,
            raw: HttpResponse { status },
        })
    }
}

impl<E, R> SdkError<E, R> {
    /// The operation's error, if the service answered with one.
    pub fn as_service_error(&self) -> Option<&E> {
        match self {
            SdkError::ServiceError(e) => Some(&e.source),
            _ => None,
        }
    }

    /// The operation's error; a failure that was not the service's becomes its `Unhandled`.
    pub fn into_service_error(self) -> E
    where
        E: CreateUnhandledError,
    {
        match self {
            SdkError::ServiceError(e) => e.source,
            SdkError::ConstructionFailure(ConstructionFailure { meta })
            | SdkError::TimeoutError(TimeoutError { meta })
            | SdkError::DispatchFailure(DispatchFailure { meta })
            | SdkError::ResponseError(ResponseError { meta, .. }) => {
                E::create_unhandled_error(meta)
            }
        }
    }

    /// The metadata of a failure that is not the service's.
    pub(crate) fn transport_meta(&self) -> Option<&ErrorMetadata> {
        match self {
            SdkError::ServiceError(_) => None,
            SdkError::ConstructionFailure(ConstructionFailure { meta })
            | SdkError::TimeoutError(TimeoutError { meta })
            | SdkError::DispatchFailure(DispatchFailure { meta })
            | SdkError::ResponseError(ResponseError { meta, .. }) => Some(meta),
        }
    }

    /// The raw response, if there was one.
    pub fn raw_response(&self) -> Option<&R> {
        match self {
            SdkError::ServiceError(e) => Some(&e.raw),
            SdkError::ResponseError(e) => Some(&e.raw),
            _ => None,
        }
    }

    /// Converts the operation's error with `map` (the SDK's `map_service_error`).
    pub fn map_service_error<E2>(self, map: impl FnOnce(E) -> E2) -> SdkError<E2, R> {
        match self {
            SdkError::ServiceError(ServiceError { source, raw }) => {
                SdkError::ServiceError(ServiceError {
                    source: map(source),
                    raw,
                })
            }
            SdkError::ConstructionFailure(e) => SdkError::ConstructionFailure(e),
            SdkError::TimeoutError(e) => SdkError::TimeoutError(e),
            SdkError::DispatchFailure(e) => SdkError::DispatchFailure(e),
            SdkError::ResponseError(e) => SdkError::ResponseError(e),
        }
    }
}

impl<E: ProvideErrorMetadata, R> SdkError<E, R> {
    /// Not part of the SDK (its retry classifier decides this): whether DynamoDB refused the
    /// request for throughput (`ProvisionedThroughputExceededException` or
    /// `ThrottlingException`). Nothing was written; wait and retry.
    pub fn is_throttling(&self) -> bool {
        is_throttling_code(self.code())
    }

    /// Not part of the SDK: whether the AWS SDKs would retry this error with backoff.
    pub fn is_retryable(&self) -> bool {
        is_retryable_code(self.code())
    }
}

/// `ProvisionedThroughputExceededException` or `ThrottlingException`.
pub(crate) fn is_throttling_code(code: Option<&str>) -> bool {
    matches!(
        code,
        Some("ProvisionedThroughputExceededException" | "ThrottlingException")
    )
}

/// The codes the AWS SDKs retry with backoff.
pub(crate) fn is_retryable_code(code: Option<&str>) -> bool {
    matches!(
        code,
        Some(
            "ProvisionedThroughputExceededException"
                | "ThrottlingException"
                | "RequestLimitExceeded"
                | "TransactionConflictException"
                | "TransactionInProgressException"
                | "LimitExceededException"
                | "InternalServerError"
                | "ServiceUnavailable"
        )
    )
}

impl<E: ProvideErrorMetadata, R> ProvideErrorMetadata for SdkError<E, R> {
    fn meta(&self) -> &ErrorMetadata {
        match self {
            SdkError::ServiceError(e) => e.source.meta(),
            SdkError::ConstructionFailure(ConstructionFailure { meta })
            | SdkError::TimeoutError(TimeoutError { meta })
            | SdkError::DispatchFailure(DispatchFailure { meta })
            | SdkError::ResponseError(ResponseError { meta, .. }) => meta,
        }
    }
}

/// As the SDK's: the kind of failure only ("service error"); the exception is its `source()`,
/// printed by [`DisplayErrorContext`].
impl<E, R> fmt::Display for SdkError<E, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SdkError::ConstructionFailure(_) => "failed to construct request",
            SdkError::TimeoutError(_) => "request has timed out",
            SdkError::DispatchFailure(_) => "dispatch failure",
            SdkError::ResponseError(_) => "response error",
            SdkError::ServiceError(_) => "service error",
        })
    }
}

impl<E, R> std::error::Error for SdkError<E, R>
where
    E: std::error::Error + 'static,
    R: fmt::Debug,
{
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SdkError::ServiceError(e) => Some(&e.source),
            SdkError::ConstructionFailure(ConstructionFailure { meta })
            | SdkError::TimeoutError(TimeoutError { meta })
            | SdkError::DispatchFailure(DispatchFailure { meta })
            | SdkError::ResponseError(ResponseError { meta, .. }) => Some(meta),
        }
    }
}

/// Prints an error with every error in its `source()` chain, as the SDK's
/// `DisplayErrorContext`: `service error: ConditionalCheckFailedException: The conditional
/// request failed`.
pub struct DisplayErrorContext<E>(pub E);

impl<E: std::error::Error> fmt::Display for DisplayErrorContext<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(e) = source {
            write!(f, ": {e}")?;
            source = e.source();
        }
        Ok(())
    }
}

impl<E: std::error::Error> fmt::Debug for DisplayErrorContext<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
