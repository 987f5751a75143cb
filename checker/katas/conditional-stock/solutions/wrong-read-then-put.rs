//! # Kata: conditional stock — KNOWN WRONG: read, then put
//!
//! Reads the stock (an ordinary, eventually consistent GetItem), decides in code, and writes
//! the new stock back with an unconditional PutItem. Two buyers who read the same stock both
//! sell; a buyer whose read was served by a lagging replica sells units that are gone. The
//! hidden tests `no_oversell_with_stale_reads` and `no_oversell_under_contention` must reject
//! it.

use engine::{item, AttributeValue, Client, Error};
use given::{ReserveError, TABLE};

/// The stock as a GetItem sees it.
fn read_stock(client: &Client, sku: &str) -> Result<u64, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("sku", AttributeValue::S(sku.to_string()))
        .send()?;
    Ok(out
        .item()
        .and_then(|item| item.get("stock"))
        .and_then(AttributeValue::as_number)
        .and_then(|n| n.to_u64())
        .unwrap_or(0))
}

fn write_stock(client: &Client, sku: &str, stock: u64) -> Result<(), Error> {
    client
        .put_item()
        .table_name(TABLE)
        .set_item(Some(item! { "sku" => sku, "stock" => stock }))
        .send()?;
    Ok(())
}

/// Reads the stock, and writes back one less if there is enough.
pub fn reserve(client: &Client, sku: &str, qty: u64) -> Result<u64, ReserveError> {
    let stock = read_stock(client, sku)?;
    if stock < qty {
        return Err(ReserveError::OutOfStock { available: stock });
    }
    write_stock(client, sku, stock - qty)?;
    Ok(stock - qty)
}

/// Reads the stock, and writes back `qty` more.
pub fn restock(client: &Client, sku: &str, qty: u64) -> Result<u64, Error> {
    let stock = read_stock(client, sku)? + qty;
    write_stock(client, sku, stock)?;
    Ok(stock)
}
