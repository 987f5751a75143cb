//! DescribeEndpoints: where to send requests (for SDKs that discover endpoints).
//!
//! DynamoDB answers one endpoint, the Regional one (`dynamodb.<region>.amazonaws.com`),
//! cacheable for 1,440 minutes. The model answers the same for its Region; `katas serve`
//! clients reach the engine through the address they already use.

use crate::client::Client;
use crate::types::Endpoint;

/// The parameters of a DescribeEndpoints request: none.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DescribeEndpointsInput {}

/// What DescribeEndpoints returns.
#[derive(Clone, Debug, PartialEq)]
pub struct DescribeEndpointsOutput {
    pub endpoints: Vec<Endpoint>,
}

impl DescribeEndpointsOutput {
    pub fn endpoints(&self) -> &[Endpoint] {
        &self.endpoints
    }
}

/// Builds and sends a DescribeEndpoints request.
#[derive(Clone, Debug)]
pub struct DescribeEndpointsFluentBuilder {
    client: Client,
}

impl DescribeEndpointsFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        DescribeEndpointsFluentBuilder { client }
    }

    pub fn send(
        self,
    ) -> std::result::Result<
        DescribeEndpointsOutput,
        crate::error::SdkError<crate::error::operations::DescribeEndpointsError>,
    > {
        self.client.world().send("DescribeEndpoints", |state| {
            Ok(DescribeEndpointsOutput {
                endpoints: vec![Endpoint {
                    address: format!("dynamodb.{}.amazonaws.com", state.regions.here.as_str()),
                    cache_period_in_minutes: ENDPOINT_CACHE_MINUTES,
                }],
            })
        })
    }
}

/// How long a client may cache the endpoint. DynamoDB: 1,440 minutes.
pub const ENDPOINT_CACHE_MINUTES: i64 = 1440;
