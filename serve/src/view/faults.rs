//! The fault controls: `POST /_katas/fault` with a form naming one of the engine's faults.
//!
//! | `op` | fields | the engine's fault |
//! |---|---|---|
//! | `fail_az` | `az` | [`World::fail_az`] |
//! | `heal_az` | `az` | [`World::heal_az`] |
//! | `stop_leader` | `table`, `partition` | [`World::stop_leader`] |
//! | `lag_replica` | `table`, `partition`, `az`, `ms` | [`World::lag_replica`] |
//! | `heal_all` | | [`World::heal_all`] |
//!
//! Fields come from the query string or the form body alike, so a button can be a form
//! whose action names them all (`/_katas/fault?op=fail_az&az=az-b`) and `curl -X POST`
//! works with the same URL.

use std::time::Duration;

use engine::world::faults::Az;
use engine::World;

/// Applies the fault a form names; answers what was done, or why nothing was.
pub fn apply(world: &World, form: &[(String, String)]) -> Result<String, String> {
    let field = |name: &str| {
        form.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
            .ok_or_else(|| format!("the fault form lacks '{name}'"))
    };
    let az = || field("az").and_then(parse_az);
    let partition = || {
        field("partition").and_then(|p| {
            p.parse::<u32>()
                .map_err(|_| format!("partition is a partition id (0, 1, …), not '{p}'"))
        })
    };
    let engine = |e: engine::error::Exception| e.to_string();
    match field("op")? {
        "fail_az" => {
            let az = az()?;
            world.fail_az(az);
            Ok(format!("{} failed", az.name()))
        }
        "heal_az" => {
            let az = az()?;
            world.heal_az(az);
            Ok(format!("{} healed", az.name()))
        }
        "stop_leader" => {
            let (table, partition) = (field("table")?, partition()?);
            let leader = world.leader_az(table, partition).map_err(engine)?;
            world.stop_leader(table, partition).map_err(engine)?;
            Ok(match leader {
                Some(az) => format!("{table} partition {partition}: leader in {} stopped", az.name()),
                None => format!("{table} partition {partition} has no leader to stop (an election is under way)"),
            })
        }
        "lag_replica" => {
            let (table, partition, az) = (field("table")?, partition()?, az()?);
            let ms = field("ms")?;
            let ms = ms
                .parse::<u64>()
                .ok()
                .filter(|ms| *ms <= MAX_LAG_MS)
                .ok_or_else(|| {
                    format!("ms is a whole number of milliseconds up to {MAX_LAG_MS}, not '{ms}'")
                })?;
            world
                .lag_replica(table, partition, az, Duration::from_millis(ms))
                .map_err(engine)?;
            Ok(format!(
                "{table} partition {partition}: replica in {} lags {ms} ms more",
                az.name()
            ))
        }
        "heal_all" => {
            world.heal_all();
            Ok("every replica up, no extra lag".into())
        }
        other => Err(format!(
            "unknown fault '{other}': fail_az, heal_az, stop_leader, lag_replica or heal_all"
        )),
    }
}

/// `az-a`, `a` or `A`.
fn parse_az(s: &str) -> Result<Az, String> {
    let short = s.strip_prefix("az-").unwrap_or(s);
    Az::ALL
        .into_iter()
        .find(|az| az.name()[3..].eq_ignore_ascii_case(short))
        .ok_or_else(|| format!("az is az-a, az-b or az-c, not '{s}'"))
}

/// The longest injected replication lag: an hour, longer than any lesson watches.
pub const MAX_LAG_MS: u64 = 3600 * 1000;

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn availability_zones_are_named_long_or_short() {
        assert_eq!(parse_az("az-b"), Ok(Az::B));
        assert_eq!(parse_az("C"), Ok(Az::C));
        assert!(parse_az("az-d").is_err());
    }

    #[test]
    fn a_bad_form_changes_nothing_and_says_why() {
        let world = World::new(0);
        let err = apply(&world, &form(&[("op", "fail_az"), ("az", "d")])).unwrap_err();
        assert!(err.contains("az-a, az-b or az-c"), "{err}");
        let err = apply(
            &world,
            &form(&[("op", "stop_leader"), ("table", "nope"), ("partition", "0")]),
        )
        .unwrap_err();
        assert!(err.contains("not found"), "{err}");
        let err = apply(&world, &form(&[("op", "explode")])).unwrap_err();
        assert!(err.contains("unknown fault"), "{err}");
    }
}
