//! The HTTP surface: routes, extractors and the layers every request passes through.

pub mod bank_shop;
pub mod compress;
pub mod connection_limits;
pub mod cors;
pub mod error;
pub mod game_socket_route;
pub mod health;
pub mod json;
pub mod limits;
pub mod listener;
pub mod metrics;
pub mod openapi;
pub mod parse_errors;
pub mod route_table;
pub mod routes;
pub mod security_headers;
pub mod social;
pub mod test_hooks;
pub mod web_assets;
pub mod ws;
pub mod ws_transport;
