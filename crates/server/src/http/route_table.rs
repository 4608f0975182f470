//! The one table every route of the server is registered in. A documented route comes from
//! `utoipa_axum::routes!(handler)`: the path and methods written once, in the handler's
//! `#[utoipa::path]` attribute, become both the axum route and its OpenAPI operation. The table
//! also records every path it hands to axum, documented or not, so a test can hold the router and
//! `GET /api/openapi.json` together (`GET /__test/routes` lists them in test mode).

use axum::routing::MethodRouter;
use axum::Router;
use serde::Serialize;
use utoipa::openapi::OpenApi;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};

/// A path the router serves, as axum matches it (`/api/player/{name}`, `/manifests/{*file}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegisteredRoute {
    pub path: String,
    /// Lower-case methods for documented routes; empty for an undocumented one (its methods live
    /// only in its `MethodRouter`).
    pub methods: Vec<String>,
    pub documented: bool,
}

/// Routes being registered: the axum router, its OpenAPI document and what was registered.
pub struct RouteTable<S> {
    router: OpenApiRouter<S>,
    registered: Vec<RegisteredRoute>,
}

impl<S: Clone + Send + Sync + 'static> RouteTable<S> {
    /// An empty table whose document starts as `base` (info, security schemes, shared schemas).
    pub fn new(base: OpenApi) -> Self {
        Self {
            router: OpenApiRouter::with_openapi(base),
            registered: Vec::new(),
        }
    }

    /// Adds the handlers of one path (`routes!(a, b)`), documented by their attributes.
    pub fn documented(mut self, routes: UtoipaMethodRouter<S>) -> Self {
        for (path, item) in &routes.1.paths {
            let operations = [
                ("get", item.get.is_some()),
                ("put", item.put.is_some()),
                ("post", item.post.is_some()),
                ("delete", item.delete.is_some()),
                ("options", item.options.is_some()),
                ("head", item.head.is_some()),
                ("patch", item.patch.is_some()),
                ("trace", item.trace.is_some()),
            ];
            self.registered.push(RegisteredRoute {
                path: path.clone(),
                methods: operations
                    .iter()
                    .filter(|(_, present)| *present)
                    .map(|(method, _)| (*method).to_owned())
                    .collect(),
                documented: true,
            });
        }
        self.router = self.router.routes(routes);
        self
    }

    /// Adds a route that has no OpenAPI operation. Only the test-only `/__test/*` routes may: the
    /// completeness test fails for any other path registered here.
    pub fn undocumented(mut self, path: &str, method_router: MethodRouter<S>) -> Self {
        self.registered.push(RegisteredRoute {
            path: path.to_owned(),
            methods: Vec::new(),
            documented: false,
        });
        self.router = self.router.route(path, method_router);
        self
    }

    /// A layer around the routes registered so far (`Router::route_layer`).
    pub fn route_layer<L>(mut self, layer: L) -> Self
    where
        L: tower::Layer<axum::routing::Route> + Clone + Send + Sync + 'static,
        L::Service: tower::Service<axum::extract::Request> + Clone + Send + Sync + 'static,
        <L::Service as tower::Service<axum::extract::Request>>::Response:
            axum::response::IntoResponse + 'static,
        <L::Service as tower::Service<axum::extract::Request>>::Error:
            Into<std::convert::Infallible> + 'static,
        <L::Service as tower::Service<axum::extract::Request>>::Future: Send + 'static,
    {
        self.router = self.router.route_layer(layer);
        self
    }

    /// Adds another table's routes, documents and records.
    pub fn merge(mut self, other: RouteTable<S>) -> Self {
        self.router = self.router.merge(other.router);
        self.registered.extend(other.registered);
        self
    }

    /// The axum router, the OpenAPI document and the registered routes.
    pub fn into_parts(self) -> (Router<S>, OpenApi, Vec<RegisteredRoute>) {
        let (router, document) = self.router.split_for_parts();
        (router, document, self.registered)
    }
}
