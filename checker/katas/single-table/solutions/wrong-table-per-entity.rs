//! # Kata: single-table design — KNOWN WRONG: one table per entity
//!
//! The relational habit: a `customers` table, an `orders` table and an `order_items` table,
//! each keyed by its own id, with indexes for the lookups — and joins done in code. Every
//! answer is right and most patterns are still one request, but the order with its lines is
//! a GetItem on `orders` plus a Query on `order_items`: two round trips, two tables to
//! provision and watch. Must fail `one_table_with_typed_items` and
//! `order_with_items_in_one_query`.

use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, Put, ScalarAttributeType, TransactWriteItem,
};
use engine::{AttributeValue, Client, Error, Item};
use given::{Customer, Order, OrderItem, OrderStatus, OrderWithItems, Page};

const CUSTOMERS: &str = "customers";
const ORDERS: &str = "orders";
const ORDER_ITEMS: &str = "order_items";

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn text(item: &Item, name: &str) -> Result<String, Error> {
    match item.get(name) {
        Some(AttributeValue::S(v)) => Ok(v.clone()),
        _ => Err(given::bad_item(format!("item has no string `{name}`"))),
    }
}

fn number(item: &Item, name: &str) -> Result<u64, Error> {
    item.get(name)
        .and_then(AttributeValue::as_number)
        .and_then(|v| v.to_u64())
        .ok_or_else(|| given::bad_item(format!("item has no number `{name}`")))
}

fn customer_from(item: &Item) -> Result<Customer, Error> {
    Ok(Customer {
        id: text(item, "id")?,
        name: text(item, "name")?,
        email: text(item, "email")?,
    })
}

fn order_from(item: &Item) -> Result<Order, Error> {
    let status = text(item, "status")?;
    Ok(Order {
        id: text(item, "id")?,
        customer_id: text(item, "customer_id")?,
        placed_at: text(item, "placed_at")?,
        status: OrderStatus::parse(&status)
            .ok_or_else(|| given::bad_item(format!("unknown status {status}")))?,
        total_cents: number(item, "total_cents")?,
    })
}

pub fn create_table(client: &Client) -> Result<(), Error> {
    let string = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .expect("name and type are set")
    };
    let key = |name: &str, key_type: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(key_type)
            .build()
            .expect("name and key type are set")
    };
    let index = |name: &str, key_schema: Vec<KeySchemaElement>| {
        GlobalSecondaryIndex::builder()
            .index_name(name)
            .set_key_schema(Some(key_schema))
            .projection(
                Projection::builder()
                    .projection_type(ProjectionType::All)
                    .build(),
            )
            .build()
            .expect("name and key schema are set")
    };
    client
        .create_table()
        .table_name(CUSTOMERS)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(string("id"))
        .attribute_definitions(string("email"))
        .key_schema(key("id", KeyType::Hash))
        .global_secondary_indexes(index("by_email", vec![key("email", KeyType::Hash)]))
        .send()?;
    client
        .create_table()
        .table_name(ORDERS)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(string("id"))
        .attribute_definitions(string("customer_id"))
        .attribute_definitions(string("status"))
        .attribute_definitions(string("placed_at"))
        .key_schema(key("id", KeyType::Hash))
        .global_secondary_indexes(index(
            "by_customer",
            vec![
                key("customer_id", KeyType::Hash),
                key("placed_at", KeyType::Range),
            ],
        ))
        .global_secondary_indexes(index(
            "by_status",
            vec![
                key("status", KeyType::Hash),
                key("placed_at", KeyType::Range),
            ],
        ))
        .send()?;
    client
        .create_table()
        .table_name(ORDER_ITEMS)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(string("order_id"))
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("line")
                .attribute_type(ScalarAttributeType::N)
                .build()
                .expect("name and type are set"),
        )
        .key_schema(key("order_id", KeyType::Hash))
        .key_schema(key("line", KeyType::Range))
        .send()?;
    Ok(())
}

pub fn create_customer(client: &Client, customer: &Customer) -> Result<(), Error> {
    client
        .put_item()
        .table_name(CUSTOMERS)
        .item("id", s(&customer.id))
        .item("name", s(&customer.name))
        .item("email", s(&customer.email))
        .send()?;
    Ok(())
}

pub fn place_order(client: &Client, order: &Order, items: &[OrderItem]) -> Result<(), Error> {
    let put = |table: &str, item: Item, condition: Option<&str>| {
        let mut p = Put::builder().table_name(table).set_item(Some(item));
        if let Some(c) = condition {
            p = p.condition_expression(c);
        }
        TransactWriteItem::builder()
            .put(p.build().expect("table and item are set"))
            .build()
    };
    let mut header = Item::new();
    header.insert("id".into(), s(&order.id));
    header.insert("customer_id".into(), s(&order.customer_id));
    header.insert("placed_at".into(), s(&order.placed_at));
    header.insert("status".into(), s(order.status.as_str()));
    header.insert("total_cents".into(), n(order.total_cents));
    let mut tx = client.transact_write_items().transact_items(put(
        ORDERS,
        header,
        Some("attribute_not_exists(id)"),
    ));
    for (i, line) in items.iter().enumerate() {
        let mut item = Item::new();
        item.insert("order_id".into(), s(&order.id));
        item.insert("line".into(), n(i + 1));
        item.insert("sku".into(), s(&line.sku));
        item.insert("quantity".into(), n(line.quantity));
        item.insert("unit_price_cents".into(), n(line.unit_price_cents));
        tx = tx.transact_items(put(ORDER_ITEMS, item, None));
    }
    tx.send()?;
    Ok(())
}

pub fn change_order_status(
    client: &Client,
    order_id: &str,
    status: OrderStatus,
) -> Result<(), Error> {
    client
        .update_item()
        .table_name(ORDERS)
        .key("id", s(order_id))
        .update_expression("SET #status = :status")
        .condition_expression("attribute_exists(id)")
        .expression_attribute_names("#status", "status")
        .expression_attribute_values(":status", s(status.as_str()))
        .send()?;
    Ok(())
}

pub fn customer(client: &Client, customer_id: &str) -> Result<Option<Customer>, Error> {
    let out = client
        .get_item()
        .table_name(CUSTOMERS)
        .key("id", s(customer_id))
        .send()?;
    out.item().map(customer_from).transpose()
}

pub fn customer_orders(
    client: &Client,
    customer_id: &str,
    page_size: usize,
    cursor: Option<&str>,
) -> Result<Page<Order>, Error> {
    let mut query = client
        .query()
        .table_name(ORDERS)
        .index_name("by_customer")
        .key_condition_expression("customer_id = :c")
        .expression_attribute_values(":c", s(customer_id))
        .scan_index_forward(false)
        .limit(page_size.clamp(1, i32::MAX as usize) as i32);
    if let Some(after) = cursor {
        // The cursor is "<placed_at>|<order id>": the index key and the table key.
        let (placed_at, id) = after.split_once('|').unwrap_or((after, ""));
        query = query
            .exclusive_start_key("customer_id", s(customer_id))
            .exclusive_start_key("placed_at", s(placed_at))
            .exclusive_start_key("id", s(id));
    }
    let out = query.send()?;
    let items = out
        .items()
        .iter()
        .map(order_from)
        .collect::<Result<_, _>>()?;
    let next_cursor = match out.last_evaluated_key() {
        Some(key) => Some(format!("{}|{}", text(key, "placed_at")?, text(key, "id")?)),
        None => None,
    };
    Ok(Page { items, next_cursor })
}

pub fn order_with_items(client: &Client, order_id: &str) -> Result<Option<OrderWithItems>, Error> {
    // The join, in code: the header from one table, the lines from another.
    let Some(order) = order(client, order_id)? else {
        return Ok(None);
    };
    let lines = client
        .query()
        .table_name(ORDER_ITEMS)
        .key_condition_expression("order_id = :o")
        .expression_attribute_values(":o", s(order_id))
        .send()?;
    let mut items = Vec::new();
    for item in lines.items() {
        items.push(OrderItem {
            sku: text(item, "sku")?,
            quantity: number(item, "quantity")? as u32,
            unit_price_cents: number(item, "unit_price_cents")?,
        });
    }
    Ok(Some(OrderWithItems { order, items }))
}

pub fn order(client: &Client, order_id: &str) -> Result<Option<Order>, Error> {
    let out = client
        .get_item()
        .table_name(ORDERS)
        .key("id", s(order_id))
        .send()?;
    out.item().map(order_from).transpose()
}

pub fn orders_by_status(
    client: &Client,
    status: OrderStatus,
    limit: usize,
) -> Result<Vec<Order>, Error> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let out = client
        .query()
        .table_name(ORDERS)
        .index_name("by_status")
        .key_condition_expression("#status = :s")
        .expression_attribute_names("#status", "status")
        .expression_attribute_values(":s", s(status.as_str()))
        .scan_index_forward(false)
        .limit(limit.min(i32::MAX as usize) as i32)
        .send()?;
    out.items().iter().map(order_from).collect()
}

pub fn customer_by_email(client: &Client, email: &str) -> Result<Option<Customer>, Error> {
    let out = client
        .query()
        .table_name(CUSTOMERS)
        .index_name("by_email")
        .key_condition_expression("email = :e")
        .expression_attribute_values(":e", s(email))
        .limit(1)
        .send()?;
    out.items().first().map(customer_from).transpose()
}
