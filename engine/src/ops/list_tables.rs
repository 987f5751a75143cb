//! ListTables: table names in order, a page at a time (at most 100 per page).

use super::builder::{string_setter, value_setter};
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::world::State;

/// The parameters of a ListTables request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListTablesInput {
    pub exclusive_start_table_name: Option<String>,
    pub limit: Option<i32>,
}

/// One page of table names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListTablesOutput {
    pub table_names: Option<Vec<String>>,
    /// Present when more names follow; pass it as `ExclusiveStartTableName`.
    pub last_evaluated_table_name: Option<String>,
}

impl ListTablesOutput {
    pub fn table_names(&self) -> &[String] {
        self.table_names.as_deref().unwrap_or_default()
    }
    pub fn last_evaluated_table_name(&self) -> Option<&str> {
        self.last_evaluated_table_name.as_deref()
    }
}

/// Builds and sends a ListTables request.
#[derive(Clone, Debug)]
pub struct ListTablesFluentBuilder {
    client: Client,
    input: ListTablesInput,
}

impl ListTablesFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        ListTablesFluentBuilder {
            client,
            input: ListTablesInput::default(),
        }
    }
    string_setter!(
        exclusive_start_table_name,
        set_exclusive_start_table_name,
        get_exclusive_start_table_name
    );
    value_setter!(limit, set_limit, get_limit: i32);

    pub fn send(
        self,
    ) -> std::result::Result<
        ListTablesOutput,
        crate::error::SdkError<crate::error::operations::ListTablesError>,
    > {
        self.client
            .world()
            .send("ListTables", |state| execute(state, &self.input))
    }
}

pub(crate) fn execute(state: &State, input: &ListTablesInput) -> Result<ListTablesOutput> {
    let limit = match input.limit {
        Some(l) if !(1..=100).contains(&l) => {
            return Err(Exception::validation(format!(
                "1 validation error detected: Value '{l}' at 'limit' failed to satisfy constraint: Member must have value {}",
                if l < 1 { "greater than or equal to 1" } else { "less than or equal to 100" }
            )))
        }
        Some(l) => l as usize,
        None => 100,
    };
    let names = state.tables.keys().filter(|n| {
        input
            .exclusive_start_table_name
            .as_ref()
            .is_none_or(|start| *n > start)
    });
    let table_names: Vec<String> = names.take(limit).cloned().collect();
    // Unlike Query's, this page key is only given when more names remain.
    let more = table_names.len() == limit
        && table_names
            .last()
            .is_some_and(|last| state.tables.keys().any(|n| n > last));
    Ok(ListTablesOutput {
        last_evaluated_table_name: if more {
            table_names.last().cloned()
        } else {
            None
        },
        table_names: Some(table_names),
    })
}

impl super::paginate::Paged for ListTablesFluentBuilder {
    type Output = ListTablesOutput;
    type Token = String;
    type Item = String;
    type Error = crate::error::SdkError<crate::error::operations::ListTablesError>;
    fn send_page(self) -> std::result::Result<ListTablesOutput, Self::Error> {
        self.send()
    }
    fn starting_after(self, token: String) -> Self {
        self.exclusive_start_table_name(token)
    }
    fn with_page_size(self, limit: i32) -> Self {
        self.limit(limit)
    }
    fn next_token(output: &ListTablesOutput) -> Option<String> {
        output.last_evaluated_table_name.clone()
    }
    fn page_items(output: ListTablesOutput) -> Vec<String> {
        output.table_names.unwrap_or_default()
    }
}

impl ListTablesFluentBuilder {
    /// A paginator over every page of table names (the SDK's `into_paginator()`;
    /// `.items()` yields the names).
    pub fn into_paginator(self) -> super::paginate::Paginator<ListTablesFluentBuilder> {
        super::paginate::Paginator::new(self)
    }
}
