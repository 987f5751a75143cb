//! `katas`: the DynamoDB Katas checker (`cargo katas` runs it).
fn main() {
    std::process::exit(katas::commands::main());
}
