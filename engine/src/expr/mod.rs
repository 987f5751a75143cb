pub mod reserved;
