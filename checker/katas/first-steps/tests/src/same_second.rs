//! `two_orders_of_one_second_are_both_kept`: a customer places two orders within the same
//! second (a double-tap on "buy", two devices). An item's primary key is `PK` and `SK`
//! together, and it must be unique: a sort key made of the time alone gives both orders the
//! same key, and the second PutItem silently replaces the first. The order id in the sort key
//! is what keeps them apart.

use super::*;

pub(super) fn two_orders_of_one_second_are_both_kept(seed: u64) {
    let shop = Shop::build(seed);
    let mut rng = Rng::new(seed ^ 19);
    let customer = &shop.customers[1 + rng.below(CUSTOMERS as u64 - 1) as usize];
    let placed_at = iso(AFTER_THE_SHOP + rng.below(80_000));
    let orders: Vec<Order> = ["o-4101", "o-4102"]
        .into_iter()
        .map(|id| Order {
            customer_id: customer.id.clone(),
            order_id: id.to_string(),
            placed_at: placed_at.clone(),
            total_cents: 100 + rng.below(20_000),
        })
        .collect();
    for order in &orders {
        let call = format!("save_order({})", show_order(order));
        save_order(&shop.client, order).unwrap_or_else(|e| fail(format!("{call} failed: {e}")));
    }

    // What the table holds of that second, read by the test.
    let pk = s(format!("CUSTOMER#{}", customer.id));
    let held: Vec<Item> = shop
        .scan_all()
        .into_iter()
        .filter(|i| i.get("PK") == Some(&pk))
        .filter(|i| i.get("placed_at") == Some(&s(placed_at.as_str())))
        .collect();
    if held.len() < orders.len() {
        let keys: Vec<String> = held
            .iter()
            .map(|i| match i.get("SK").and_then(|v| v.as_s().ok()) {
                Some(sk) => format!("SK = {sk:?}"),
                None => "an item without a string SK".to_string(),
            })
            .collect();
        fail(format!(
            "{} and {} were both placed at {placed_at} and both saved with save_order, but the \
             table holds {} order item(s) of that second ({}): the second PutItem replaced the \
             first. An item's primary key is PK and SK together, and no two items share it — \
             two orders whose keys are the same are one item, written twice. The layout's sort \
             key is ORDER#<placed_at>#<order_id>: the order id is what keeps two orders of the \
             same second apart.",
            show_order(&orders[0]),
            show_order(&orders[1]),
            held.len(),
            if keys.is_empty() {
                "none".to_string()
            } else {
                keys.join(", ")
            }
        ));
    }

    // Let replication finish: recent_orders reads eventually consistent, and this test is
    // about keys, not about replicas.
    shop.world.settle();
    let call = format!("recent_orders({:?}, 2)", customer.id);
    let got = recent_orders(&shop.client, &customer.id, 2)
        .unwrap_or_else(|e| fail(format!("{call} failed: {e}")));
    let ids: BTreeSet<&str> = got.iter().map(|o| o.order_id.as_str()).collect();
    let want: BTreeSet<&str> = orders.iter().map(|o| o.order_id.as_str()).collect();
    if ids != want {
        fail(format!(
            "{call} after two orders placed at the same second, {placed_at}, returned:\n{}\n\
             Both are the customer's newest orders, and both are in the table (one item each): \
             the two newest are exactly these two.",
            orders_text(&got)
        ));
    }
}
