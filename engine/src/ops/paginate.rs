//! # Paginators: every page of a Query, Scan or ListTables
//!
//! The SDK turns a paged operation into a stream: `client.query()….into_paginator().send()`
//! yields each page's output, `.items().send()` each item, following `LastEvaluatedKey`
//! (or `LastEvaluatedTableName`) until a page has none. Here the stream is a plain
//! [`Iterator`] — `send()` is synchronous, so `.next().await` becomes `.next()` and
//! `.collect::<Result<Vec<_>, _>>().await` becomes `.collect::<Result<Vec<_>, _>>()`.
//!
//! ```text
//!   into_paginator() ── send() ──▶ page 1 ─ LastEvaluatedKey k1 ─▶ page 2 ─ … ─▶ page n (no key): end
//!                    └─ items().send() ──▶ the items of page 1, then of page 2, …
//! ```
//!
//! Each page is one request, with its own capacity and its own chance of being throttled:
//! a failed page is yielded as `Err` and ends the iteration (the SDK's stream ends too), so
//! a caller that wants to retry it starts again from the last key it saw. As the SDK's, a
//! paginator stops if a page's key repeats the one it was sent with, so a key that does not
//! advance cannot loop forever. `page_size(n)` sets `Limit` on every request.

/// An operation whose output is paged. Not part of the SDK: the one trait the engine's three
/// paginators share.
pub trait Paged: Clone + std::fmt::Debug {
    /// One page.
    type Output;
    /// What a page returns for the next to start from.
    type Token: Clone + PartialEq + std::fmt::Debug;
    /// What a page holds.
    type Item: std::fmt::Debug;
    /// How a page's request fails (`SdkError<QueryError>`, …).
    type Error: std::fmt::Debug;
    /// Sends the request for one page.
    fn send_page(self) -> Result<Self::Output, Self::Error>;
    /// The request, starting after `token`.
    fn starting_after(self, token: Self::Token) -> Self;
    /// The request, with `Limit` set.
    fn with_page_size(self, limit: i32) -> Self;
    /// Where the next page starts, or `None` after the last page.
    fn next_token(output: &Self::Output) -> Option<Self::Token>;
    /// The page's items, in order.
    fn page_items(output: Self::Output) -> Vec<Self::Item>;
}

/// A paginator over the pages of one request (`into_paginator()`), as the SDK's
/// `QueryPaginator`, `ScanPaginator` and `ListTablesPaginator`.
#[derive(Clone, Debug)]
pub struct Paginator<B> {
    request: B,
    stop_on_duplicate_token: bool,
}

impl<B: Paged> Paginator<B> {
    pub(crate) fn new(request: B) -> Self {
        Paginator {
            request,
            stop_on_duplicate_token: true,
        }
    }

    /// Sets `Limit` on every page's request.
    pub fn page_size(mut self, limit: i32) -> Self {
        self.request = self.request.with_page_size(limit);
        self
    }

    /// Whether to stop when a page's key repeats the key it was sent with (default `true`).
    pub fn stop_on_duplicate_token(mut self, stop: bool) -> Self {
        self.stop_on_duplicate_token = stop;
        self
    }

    /// The items of every page, in order (`QueryPaginatorItems`).
    pub fn items(self) -> PaginatorItems<B> {
        PaginatorItems { pages: self }
    }

    /// Starts sending: an iterator over the pages' outputs.
    pub fn send(self) -> PaginationStream<B> {
        PaginationStream {
            next: Some((self.request, None)),
            stop_on_duplicate_token: self.stop_on_duplicate_token,
        }
    }
}

/// The items of every page (`into_paginator().items()`).
#[derive(Clone, Debug)]
pub struct PaginatorItems<B> {
    pages: Paginator<B>,
}

impl<B: Paged> PaginatorItems<B> {
    /// Starts sending: an iterator over every item of every page.
    pub fn send(self) -> ItemStream<B> {
        ItemStream {
            pages: self.pages.send(),
            current: Vec::new().into_iter(),
        }
    }
}

/// The pages as they are fetched, one request per `next()` (the SDK's `PaginationStream`).
#[derive(Debug)]
pub struct PaginationStream<B: Paged> {
    /// The next page's request and the key it starts after; `None` once done.
    next: Option<(B, Option<B::Token>)>,
    stop_on_duplicate_token: bool,
}

impl<B: Paged> Iterator for PaginationStream<B> {
    type Item = Result<B::Output, B::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let (request, sent_after) = self.next.take()?;
        let output = match request.clone().send_page() {
            Ok(output) => output,
            Err(e) => return Some(Err(e)),
        };
        if let Some(token) = B::next_token(&output) {
            let repeated = sent_after.as_ref() == Some(&token);
            if !(repeated && self.stop_on_duplicate_token) {
                self.next = Some((request.starting_after(token.clone()), Some(token)));
            }
        }
        Some(Ok(output))
    }
}

impl<B: Paged> PaginationStream<B> {
    /// The next page, `Ok(None)` once there are no more (the SDK's `try_next`, without the
    /// `.await`): the `Option` and the `Result` of [`Iterator::next`] swapped, for
    /// `while let Some(page) = pages.try_next()? { .. }`.
    pub fn try_next(&mut self) -> Result<Option<B::Output>, B::Error> {
        self.next().transpose()
    }
}

impl<B: Paged> ItemStream<B> {
    /// The next item, `Ok(None)` once there are no more (the SDK's `try_next`).
    pub fn try_next(&mut self) -> Result<Option<B::Item>, B::Error> {
        self.next().transpose()
    }
}

/// Every item of every page, fetching a page when the previous one is used up.
#[derive(Debug)]
pub struct ItemStream<B: Paged> {
    pages: PaginationStream<B>,
    current: std::vec::IntoIter<B::Item>,
}

impl<B: Paged> Iterator for ItemStream<B> {
    type Item = Result<B::Item, B::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.current.next() {
                return Some(Ok(item));
            }
            match self.pages.next()? {
                Ok(page) => self.current = B::page_items(page).into_iter(),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Implements [`Paged`] for a Query- or Scan-shaped builder (`exclusive_start_key` →
/// `last_evaluated_key`, `items`).
macro_rules! paged_by_key {
    ($builder:ty, $output:ty, $error:ty) => {
        impl $crate::ops::paginate::Paged for $builder {
            type Output = $output;
            type Token = $crate::value::Item;
            type Item = $crate::value::Item;
            type Error = $crate::error::SdkError<$error>;
            fn send_page(self) -> std::result::Result<$output, Self::Error> {
                self.send()
            }
            fn starting_after(self, token: $crate::value::Item) -> Self {
                self.set_exclusive_start_key(Some(token))
            }
            fn with_page_size(self, limit: i32) -> Self {
                self.limit(limit)
            }
            fn next_token(output: &$output) -> Option<$crate::value::Item> {
                output.last_evaluated_key.clone()
            }
            fn page_items(output: $output) -> Vec<$crate::value::Item> {
                output.items.map(Vec::from).unwrap_or_default()
            }
        }
        impl $builder {
            /// A paginator over every page of this request (the SDK's `into_paginator()`).
            pub fn into_paginator(self) -> $crate::ops::paginate::Paginator<$builder> {
                $crate::ops::paginate::Paginator::new(self)
            }
        }
    };
}
pub(crate) use paged_by_key;
