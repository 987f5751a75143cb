//! The lessons, included so their Rust samples run as doctests.
//!
//! Every ```` ```rust ```` block in `src/*.md` is compiled and run by
//! `cargo test -p lessons --doc` against the engine, so a sample that no longer matches the
//! engine's API fails CI instead of misleading a learner. No sample is `ignore`d: each one runs
//! and asserts what its section claims (a hot key capped at 1,000 writes per second, a stale
//! eventually consistent read, a GSI catching up, a shard's records in order…). Lines starting
//! with `# ` are setup, hidden from the reader by rustdoc, mdBook and `katas lesson` alike.

#[doc = include_str!("src/README.md")]
pub mod introduction {}

#[doc = include_str!("src/01-foundations.md")]
pub mod foundations {}

#[doc = include_str!("src/02-modeling.md")]
pub mod modeling {}

#[doc = include_str!("src/coverage.md")]
pub mod coverage {}

/// Numeric quiz answers that the engine can compute are computed by it, so a question and the
/// engine never disagree.
#[cfg(test)]
mod quiz_answers_from_the_engine {
    use engine::types::ScalarAttributeType;
    use engine::types::{AttributeDefinition, KeySchemaElement, KeyType, ProvisionedThroughput};
    use engine::{AttributeValue, World};

    const QUIZ_1: &str = include_str!("quizzes/01-foundations.json");

    /// The `"answer"` of question `id` in a quiz file, read without a JSON parser (the lessons
    /// crate depends on the engine only).
    fn numeric_answer(quiz: &str, id: &str) -> f64 {
        let at = quiz
            .find(&format!("\"id\": \"{id}\""))
            .unwrap_or_else(|| panic!("no question {id}"));
        let rest = &quiz[at..];
        let value = &rest[rest.find("\"answer\": ").expect("an answer") + 10..];
        let end = value.find([',', '\n']).expect("end of the answer");
        value[..end].trim().parse().expect("a numeric answer")
    }

    #[test]
    fn hot_key_throttle_count_01_q32() -> Result<(), engine::Error> {
        let world = World::new(3);
        let client = world.client();
        client
            .create_table()
            .table_name("counters")
            .attribute_definitions(AttributeDefinition::new("id", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("id", KeyType::Hash))
            .provisioned_throughput(ProvisionedThroughput::new(100, 4_000))
            .send()?;
        assert_eq!(
            world.partitions("counters")?.len(),
            5,
            "the prompt says 5 partitions"
        );
        let mut throttled = 0;
        for _ in 0..1_500 {
            let r = client
                .update_item()
                .table_name("counters")
                .key("id", AttributeValue::S("GLOBAL_COUNTER".into()))
                .update_expression("ADD hits :one")
                .expression_attribute_values(":one", AttributeValue::N("1".into()))
                .send();
            match r {
                Ok(_) => {}
                Err(e) if e.is_throttling() => throttled += 1,
                Err(e) => return Err(e.into()),
            }
        }
        assert_eq!(f64::from(throttled), numeric_answer(QUIZ_1, "01-q32"));
        Ok(())
    }
}
