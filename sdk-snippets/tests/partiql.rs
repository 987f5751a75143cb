//! PartiQL: ExecuteStatement and BatchExecuteStatement, as SDK code sends them.
//!
//! Each snippet below is written as it would be against `aws-sdk-dynamodb` 1.x and then edited
//! mechanically only; the edits are listed above each one. Common to every snippet of this
//! file: the imports read `engine::` where the SDK's read `aws_sdk_dynamodb::`.

#![allow(clippy::result_large_err)]

mod common;

use std::collections::HashMap;

use common::{movies_world, n, s, BoxError};
use engine::error::SdkError;
use engine::operation::execute_statement::ExecuteStatementError;
use engine::types::{AttributeValue, BatchStatementRequest};
use engine::Client;

// Snippet 54: titles_in_year_partiql — a SELECT with its partition key as a parameter, every
// page followed through NextToken (the SDK has no paginator for ExecuteStatement).
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn titles_in_year_partiql(client: &Client, year: u16) -> Result<Vec<String>, BoxError> {
    let mut titles = Vec::new();
    let mut next_token: Option<String> = None;
    loop {
        let page = client
            .execute_statement()
            .statement(r#"SELECT title FROM "Movies" WHERE "year" = ?"#)
            .parameters(AttributeValue::N(year.to_string()))
            .limit(2)
            .set_next_token(next_token)
            .send()?;
        for item in page.items() {
            if let Some(AttributeValue::S(title)) = item.get("title") {
                titles.push(title.clone());
            }
        }
        next_token = page.next_token().map(str::to_string);
        if next_token.is_none() {
            return Ok(titles);
        }
    }
}

#[test]
fn titles_in_year_partiql_reads_every_page() -> Result<(), BoxError> {
    let (world, client) = movies_world()?;
    world.advance(std::time::Duration::from_secs(5));

    let titles = titles_in_year_partiql(&client, 2013)?;
    assert_eq!(titles, ["Frozen", "Gravity", "Her", "Prisoners", "Rush"]);
    let record = world.request_log().pop().expect("logged");
    assert_eq!(record.operation, "Query", "the year is the partition key");
    Ok(())
}

// Snippet 55: add_movie_once — an INSERT never overwrites: an existing key is the typed
// DuplicateItemException, which the caller turns into `false`.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn add_movie_once(client: &Client, year: u16, title: &str) -> Result<bool, BoxError> {
    let result = client
        .execute_statement()
        .statement(r#"INSERT INTO "Movies" VALUE {'year': ?, 'title': ?, 'info': {'rating': 0}}"#)
        .parameters(AttributeValue::N(year.to_string()))
        .parameters(AttributeValue::S(title.to_string()))
        .send();
    match result {
        Ok(_) => Ok(true),
        Err(SdkError::ServiceError(e))
            if matches!(e.err(), ExecuteStatementError::DuplicateItemException(_)) =>
        {
            Ok(false)
        }
        Err(e) => Err(e.into()),
    }
}

#[test]
fn add_movie_once_refuses_a_second_insert_of_a_key() -> Result<(), BoxError> {
    let (_world, client) = movies_world()?;

    assert!(add_movie_once(&client, 2024, "Dune: Part Two")?);
    assert!(!add_movie_once(&client, 2024, "Dune: Part Two")?);
    assert!(
        !add_movie_once(&client, 2013, "Her")?,
        "a seeded movie is not replaced"
    );
    let her = client
        .get_item()
        .table_name("Movies")
        .key("year", n(2013))
        .key("title", s("Her"))
        .consistent_read(true)
        .send()?
        .into_item()
        .ok_or("Her is gone")?;
    assert!(matches!(&her["info"], AttributeValue::M(info) if info["rating"] == n("8")));
    Ok(())
}

// Snippet 56: rate_movies — one BatchExecuteStatement of UPDATEs; the batch is no
// transaction, so each statement's error comes back in its place.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn rate_movies(
    client: &Client,
    ratings: &[(u16, &str, &str)],
) -> Result<HashMap<String, String>, BoxError> {
    let mut request = client.batch_execute_statement();
    for (year, title, rating) in ratings {
        request = request.statements(
            BatchStatementRequest::builder()
                .statement(r#"UPDATE "Movies" SET info.rating = ? WHERE "year" = ? AND title = ?"#)
                .parameters(AttributeValue::N(rating.to_string()))
                .parameters(AttributeValue::N(year.to_string()))
                .parameters(AttributeValue::S(title.to_string()))
                .build()?,
        );
    }
    let out = request.send()?;
    let mut failed = HashMap::new();
    for ((_, title, _), response) in ratings.iter().zip(out.responses()) {
        if let Some(error) = response.error() {
            let code = error.code().map(|c| c.as_str()).unwrap_or("unknown");
            failed.insert(title.to_string(), code.to_string());
        }
    }
    Ok(failed)
}

#[test]
fn rate_movies_updates_what_exists_and_reports_the_rest() -> Result<(), BoxError> {
    let (_world, client) = movies_world()?;

    let failed = rate_movies(&client, &[(2013, "Her", "8.2"), (2013, "Nope", "1")])?;
    assert_eq!(
        failed,
        HashMap::from([("Nope".to_string(), "ConditionalCheckFailed".to_string())]),
        "an UPDATE of a missing item fails its condition"
    );
    let her = client
        .execute_statement()
        .statement(r#"SELECT info.rating FROM "Movies" WHERE "year" = 2013 AND title = 'Her'"#)
        .consistent_read(true)
        .send()?;
    assert_eq!(
        her.items()[0]["info"],
        AttributeValue::M(HashMap::from([("rating".to_string(), n("8.2"))]))
    );
    Ok(())
}
